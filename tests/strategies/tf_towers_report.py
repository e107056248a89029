"""Run as a script (in a subprocess: TF's logical devices must be set before TensorFlow initialises): replica towers
on TensorFlow with two logical CPUs; prints one JSON report that test_multi_device_tf.py checks.

- ``training``: every kind of ``multi_device_helpers.CONFIGS`` trained on one device (no towers) and on 1, 2 and 3
  (uneven) towers — the largest weight difference, each update's metrics of both, and any weight named "tower";
- ``priorities``: DQN with PER's sum tree and max priority after training, one device and 3 towers;
- ``order``: TD errors of a batch and of the same batch shuffled, one device and 3 uneven towers;
- ``errors``: what devices that do not exist, and batches too small for the towers, raise;
- ``refused_step``: after a non-finite step, whether the weights are unchanged and the towers still in sync;
- ``resolved``/``variables``/``ops``: where a 2-tower build puts its towers, their variables and traced ops;
- ``svg``/``explorer_svg``: the drawing of that build (``graph_svg``) and a GraphExplorer's on it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

from multi_device_helpers import CONFIGS, batch, largest_difference, make_agent, refused_step, td_errors, train  # noqa: E402

from rlworkbench.agents import Agent  # noqa: E402
from rlworkbench.errors import RLWorkbenchError  # noqa: E402
from rlworkbench.visualize import graph_svg  # noqa: E402
from rlworkbench.workbench import GraphExplorer  # noqa: E402

DEVICES = {1: ["/CPU:0"], 2: ["/CPU:0", "/CPU:1"], 3: ["/CPU:0", "/CPU:1", "/CPU:0"]}  # 3 on 32 rows: 10/11/11


def plain(metrics: list[dict[str, Any]]) -> list[dict[str, float]]:
    return [{key: float(value) for key, value in update.items()} for update in metrics]


def training() -> tuple[dict[str, Any], dict[str, Any]]:
    cases, priorities = {}, {}
    for kind in CONFIGS:
        reference, reference_metrics = train(kind, "tf")
        for count, devices in DEVICES.items():
            weights, metrics = train(kind, "tf", devices)
            cases[f"{kind} {count}"] = {
                "difference": largest_difference(weights, reference), "metrics": plain(metrics),
                "reference_metrics": plain(reference_metrics), "tower_names": [n for n in weights if "tower" in n]}
            if kind == "dqn_per" and count == 3:
                priorities = {name: {"towers": weights[name].tolist(), "one_device": reference[name].tolist()}
                              for name in ("memory/sum_tree/tree", "memory/max_priority")}
    return cases, priorities


def order() -> dict[str, Any]:
    """As torch's test_per_item_outputs_come_back_in_batch_order: both builds from the same weights."""
    towers, single = make_agent("dqn_per", "tf", DEVICES[3]), make_agent("dqn_per", "tf")
    start = single.get_weights()
    data = batch(32)
    permutation = np.random.default_rng(1).permutation(32)
    shuffled = {key: value[permutation] for key, value in data.items()}
    found: dict[str, Any] = {"permutation": permutation.tolist()}
    for name, agent in (("towers", towers), ("one_device", single)):
        agent.set_weights(start)
        found[name] = td_errors(agent, data).tolist()
        agent.set_weights(start)
        found[f"{name}_shuffled"] = td_errors(agent, shuffled).tolist()
    return found


def caught(action: Any) -> dict[str, Any]:
    try:
        action()
    except RLWorkbenchError as error:
        return {"type": type(error).__name__, "message": str(error), "key_path": error.key_path,
                "argument": error.argument, "component": error.component, "expected": str(error.expected)}
    except Exception as error:  # an untyped error is a finding too
        return {"type": type(error).__name__, "message": str(error)}
    return {"type": None}


def refused(agent: Agent, action: Any) -> dict[str, Any]:
    """What ``action`` raises, and whether the agent's weights stayed as they were."""
    before = agent.get_weights()
    found = caught(action)
    after = agent.get_weights()
    return {**found, "unchanged": all(np.array_equal(after[name], before[name]) for name in before)}


def errors() -> dict[str, Any]:
    found = {f"devices={devices!r}": caught(lambda devices=devices: make_agent("dqn_per", "tf", devices))
             for devices in (["/CPU:0", "/CPU:7"], ["cuda:7"], ["/CPU:0", "nosuch"], 2, 0)}
    env_id, config = CONFIGS["dqn_per"]
    small = {**config, "update": {**config["update"], "batch_size": 2}}
    found["build, batch_size 2"] = caught(
        lambda: Agent.from_env(env_id, small, backend="tf").build(devices=DEVICES[3]))
    agent = make_agent("dqn_per", "tf", DEVICES[3])
    found["update, 2 rows"] = refused(agent, lambda: agent.update(batch(2)))
    env_id, config = CONFIGS["ppo"]  # a rollout of 2 rows in minibatches of 1
    tiny = {**config, "update": {"rollout_length": 1, "num_epochs": 1, "num_minibatches": 2}}
    ppo = Agent.from_env(env_id, tiny, backend="tf", seed=0).build(devices=DEVICES[3])
    states = np.zeros((2, 4), np.float32)
    ppo.observe(states, ppo.get_actions(states), np.ones(2, np.float32), np.zeros(2, bool), states)
    found["ppo update, minibatches of 1 row"] = refused(ppo, ppo.update)
    return found


def placement() -> dict[str, Any]:
    agent = make_agent("dqn_per", "tf", ["cpu:0", "cpu:1"])
    agent.update(batch(4))
    ops = agent.executor.graph_function(agent.root, "update_from_batch").get_concrete_function().graph.get_operations()

    def devices_of(scope: str) -> list[int]:
        return sorted({tf.DeviceSpec.from_string(op.device).device_index for op in ops
                       if op.name.startswith(scope) and op.device})

    return {"resolved": [t.resolved_device for t in agent.towers.towers],
            "variables": {name: tf.DeviceSpec.from_string(v.device).device_index
                          for name, v in agent.towers.variables().items() if name.endswith("kernel")},
            "ops": {scope: devices_of(scope) for scope in ("dqn/towers/tower_0/", "dqn/towers/tower_1/")},
            "svg": graph_svg(agent, depth=3, spaces=False),
            "explorer_svg": GraphExplorer(agent).svg}


def main() -> None:
    cases, priorities = training()
    report = {"logical": [d.name for d in tf.config.list_logical_devices("CPU")], "training": cases,
              "priorities": priorities, "order": order(), "errors": errors(),
              "refused_step": refused_step("tf", DEVICES[2]), **placement()}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
