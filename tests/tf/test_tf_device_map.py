"""Device maps on TF, on two logical CPUs (configured in a subprocess, before TensorFlow initialises).

Mapped components' variables and the ops of their name scopes in the traced graphs land on the mapped device,
``resolved_device`` says so, and the outputs equal a single-device build with the same weights.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])

    from rlworkbench import build
    from rlworkbench.demo import QActor
    from rlworkbench.spaces import FloatBox

    def device(name):
        spec = tf.DeviceSpec.from_string(name)
        return f"{spec.device_type}:{spec.device_index}" if spec.device_type else ""

    def op_devices(function, prefix):
        ops = function.get_concrete_function().graph.get_operations()
        return sorted({device(op.device) for op in ops if op.name.startswith(prefix) and op.device})

    def op_count(function, prefix):
        ops = function.get_concrete_function().graph.get_operations()
        return sum(op.name.startswith(prefix) for op in ops)

    space = FloatBox(shape=(4,), add_batch_rank=True)
    actor = QActor(2, hidden=(8,), name="actor")
    mapped = build(actor, {"states": space}, backend="tf", seed=1,
                   device_map={"network/*": "/CPU:1", "preprocessor": "/CPU:0"})
    single = build(QActor(2, hidden=(8,), name="actor"), {"states": space}, backend="tf", seed=2)
    single.set_weights(mapped.get_weights())
    states = space.sample(9, seed=0) * 4.0
    report = {
        "logical": [d.name for d in tf.config.list_logical_devices("CPU")],
        "resolved": {c.path: c.resolved_device for c in actor.walk()},
        "variables": {name: device(v.device) for name, v in actor.variables().items()},
        "ops": {},
        "counts": {},
        "equal_q": bool(np.allclose(mapped.execute("get_q_values", states), single.execute("get_q_values", states),
                                    atol=1e-6)),
        "equal_actions": bool((mapped.execute("get_action", states) == single.execute("get_action", states)).all()),
        "sub_graph": op_devices(mapped.graph_function(actor.network.layers[0], "apply"), "dense_0/"),
    }
    for api_name in ("get_action", "get_q_values"):
        function = mapped.graph_function(actor, api_name)
        for scope in ("actor/network/dense_0/", "actor/network/dense_1/", "actor/preprocessor/", "actor/actor/"):
            report["ops"][f"{api_name} {scope}"] = op_devices(function, scope)
            report["counts"][f"{api_name} {scope}"] = op_count(function, scope)
        report["ops"][f"{api_name} actor/selector/"] = op_devices(function, "actor/selector/")
    print(json.dumps(report))
""")


@pytest.fixture(scope="module")
def report() -> dict:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False, timeout=180,
                            env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_two_logical_cpus_exist(report):
    assert report["logical"] == ["/device:CPU:0", "/device:CPU:1"]


def test_resolved_devices_follow_the_map(report):
    assert report["resolved"] == {
        "actor": "/CPU:0", "actor/preprocessor": "/CPU:0", "actor/network": "/CPU:0", "actor/selector": "/CPU:0",
        "actor/preprocessor/clip_0": "/CPU:0", "actor/preprocessor/divide_1": "/CPU:0",
        "actor/network/dense_0": "/CPU:1", "actor/network/dense_1": "/CPU:1"}


def test_mapped_variables_live_on_the_mapped_device(report):
    assert report["variables"] == dict.fromkeys(
        ["network/dense_0/kernel", "network/dense_0/bias", "network/dense_1/kernel", "network/dense_1/bias"], "CPU:1")


@pytest.mark.parametrize("api_name", ["get_action", "get_q_values"])
def test_ops_of_each_scope_land_on_its_device(report, api_name):
    ops, counts = report["ops"], report["counts"]
    for scope in ("actor/network/dense_0/", "actor/network/dense_1/"):
        assert counts[f"{api_name} {scope}"] > 0
        assert ops[f"{api_name} {scope}"] == ["CPU:1"], scope
    assert counts[f"{api_name} actor/preprocessor/"] > 0
    assert ops[f"{api_name} actor/preprocessor/"] == ["CPU:0"]
    assert counts[f"{api_name} actor/actor/"] == 0  # a root calling its own API method does not re-enter its scope
    if api_name == "get_action":
        assert ops["get_action actor/selector/"] == ["CPU:0"]


def test_a_sub_graph_keeps_its_device(report):
    assert report["sub_graph"] == ["CPU:1"]


def test_outputs_equal_a_single_device_build(report):
    assert report["equal_q"] and report["equal_actions"]
