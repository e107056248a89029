"""Run as a script (in a subprocess: TF's logical devices must be set before TensorFlow initialises): a GraphExplorer
on a TF build with two logical CPUs moves ``network`` to ``/CPU:1`` from its widgets and prints a JSON report."""

from __future__ import annotations

import json
import re

import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

from rlworkbench import build  # noqa: E402 (after the device configuration)
from rlworkbench.demo import QActor  # noqa: E402
from rlworkbench.spaces import FloatBox  # noqa: E402
from rlworkbench.workbench.graph_explorer import GraphExplorer  # noqa: E402


def fills(svg: str) -> list[str]:
    return sorted(set(re.findall(r'<g id="[^"]*" class="cluster">.*?<path fill="(#[0-9a-f]{6})"', svg, re.S)))


def main() -> None:
    space = FloatBox(shape=(4,), add_batch_rank=True)
    actor = QActor(2, hidden=(8,), name="actor")
    executor = build(actor, {"states": space}, backend="tf", seed=0)
    states = space.sample(5, seed=0)
    q_before = executor.execute("get_q_values", states)
    explorer = GraphExplorer(actor)
    before = explorer.svg
    explorer.tree.value = "actor/network"
    options = list(explorer.device_menu.options)
    explorer.device_menu.value = "/CPU:1"
    explorer.rebuild_button.click()
    explorer.select("network/dense_0")
    report = {
        "options": options,
        "status": explorer.status,
        "device_map": explorer.device_map,
        "resolved": {c.path: c.resolved_device for c in actor.walk()},
        "variables": {name: v.device.rsplit("device:", 1)[-1] for name, v in actor.variables().items()},
        "fills_before": fills(before),
        "fills_after": fills(explorer.svg),
        "label_before": "@ /CPU:1" in before,
        "label_after": "@ /CPU:1" in explorer.svg,
        "details_device": "CPU:1" in explorer.details,
        "same_q": bool(abs(explorer.executor.execute("get_q_values", states) - q_before).max() < 1e-6),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
