"""Replica towers on TensorFlow, on two logical CPUs (configured in a subprocess before TensorFlow starts): the
same weights as one device for DQN with PER, PPO and SAC (2 towers, and 3 uneven ones); every tower's ops run
on its own device inside the one traced update; the drawn graph fills the two towers in two device colours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "visualize"))
from graph_svg_helpers import clusters, fill_color, texts

HERE = Path(__file__).parent
SCRIPT = textwrap.dedent("""
    import json, sys
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
    sys.path.insert(0, sys.argv[1])
    from multi_device_helpers import largest_difference, make_agent, train
    from rlworkbench.visualize import graph_svg

    report = {"logical": [d.name for d in tf.config.list_logical_devices("CPU")], "differences": {}}
    for kind in ("dqn_per", "ppo", "sac"):
        reference, _ = train(kind, "tf")
        for devices in (["/CPU:0", "/CPU:1"], ["/CPU:0", "/CPU:1", "/CPU:0"]):
            weights, _ = train(kind, "tf", devices)
            report["differences"][f"{kind} {len(devices)}"] = largest_difference(weights, reference)

    agent = make_agent("dqn_per", "tf", ["cpu:0", "cpu:1"])
    agent.update({"states": [[0.1, 0.2, 0.3, 0.4]] * 4, "actions": [0, 1, 0, 1], "rewards": [1.0] * 4,
                  "terminals": [False] * 4, "next_states": [[0.0, 0.1, 0.2, 0.3]] * 4})
    ops = agent.executor.graph_function(agent.root, "update_from_batch").get_concrete_function().graph.get_operations()
    def devices_of(scope):
        return sorted({tf.DeviceSpec.from_string(op.device).device_index for op in ops
                       if op.name.startswith(scope) and op.device})
    report["resolved"] = [t.resolved_device for t in agent.towers.towers]
    report["variables"] = {name: tf.DeviceSpec.from_string(v.device).device_index
                           for name, v in agent.towers.variables().items() if name.endswith("kernel")}
    report["ops"] = {scope: devices_of(scope) for scope in ("dqn/towers/tower_0/", "dqn/towers/tower_1/")}
    report["svg"] = graph_svg(agent, depth=3, spaces=False)
    print(json.dumps(report))
""")


@pytest.fixture(scope="module")
def report() -> dict:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(HERE)], capture_output=True, text=True, check=False,
                            timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_two_logical_cpus_exist(report):
    assert report["logical"] == ["/device:CPU:0", "/device:CPU:1"]


@pytest.mark.parametrize("case", ["dqn_per 2", "dqn_per 3", "ppo 2", "ppo 3", "sac 2", "sac 3"])
def test_towers_reach_the_weights_of_one_device(report, case):
    assert report["differences"][case] < 1e-5


def test_each_tower_runs_on_its_device(report):
    assert report["resolved"] == ["/CPU:0", "/CPU:1"]
    assert report["variables"] and all(index == int(name.split("/")[0][-1]) for name, index in
                                       report["variables"].items())
    assert report["ops"] == {"dqn/towers/tower_0/": [0], "dqn/towers/tower_1/": [1]}


def test_the_graph_fills_the_towers_in_two_device_colours(report):
    svg = report["svg"]
    found = dict(clusters(svg))
    tower_0, tower_1 = fill_color(found["tower_0 (Tower)"]), fill_color(found["tower_1 (Tower)"])
    assert tower_0 != tower_1
    assert fill_color(found["towers (ReplicaTowers)"]) == tower_0  # the towers' holder sits on the main device
    assert {"/CPU:0", "/CPU:1"} <= set(texts(svg, "node"))  # the legend names both devices
