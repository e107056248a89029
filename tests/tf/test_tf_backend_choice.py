"""The backend is chosen per build: both in one process, the default from RLWORKBENCH_BACKEND, lazy imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf
import torch

from rlworkbench import ConfigError, build
from rlworkbench.components import Dense, NeuralNetwork
from rlworkbench.core.backend import BACKEND_ENV_VAR
from rlworkbench.spaces import FloatBox

SPACE = FloatBox(shape=(3,), add_batch_rank=True)
LAYERS = [{"type": "dense", "units": 6, "activation": "relu"}, {"type": "dense", "units": 2}]


def test_both_backends_in_one_process_interleaved():
    torch_net, tf_net = NeuralNetwork(LAYERS, name="net"), NeuralNetwork(LAYERS, name="net")
    torch_executor = build(torch_net, {"inputs": SPACE}, backend="torch", seed=3)
    tf_executor = build(tf_net, {"inputs": SPACE}, backend="tf", seed=3)
    assert (torch_executor.backend.name, tf_executor.backend.name) == ("torch", "tf")
    assert isinstance(torch_net.layers[0].kernel, torch.Tensor)
    assert isinstance(tf_net.layers[0].kernel, tf.Variable)
    for size in (1, 4, 9):  # alternate the two executors call by call
        x = SPACE.sample(size, seed=size)
        out_torch = torch_executor.execute("apply", x)
        out_tf = tf_executor.execute("apply", x)
        assert type(out_torch) is np.ndarray and type(out_tf) is np.ndarray
        np.testing.assert_allclose(out_tf, out_torch, atol=1e-5)  # same seed, same initial weights
        np.testing.assert_allclose(torch_executor.call("dense_0", "apply", x), tf_executor.call("dense_0", "apply", x),
                                   atol=1e-5)


def test_a_component_rebuilt_on_the_other_backend_switches_completely():
    dense = Dense(4, name="dense")
    torch_out = build(dense, {"inputs": SPACE}, backend="torch", seed=5).execute("apply", SPACE.sample(2, seed=0))
    tf_executor = build(dense, {"inputs": SPACE}, backend="tf", seed=5)
    assert dense.backend.name == "tf" and isinstance(dense.kernel, tf.Variable)
    assert tf_executor.graph.backend_name == "tf"
    np.testing.assert_allclose(tf_executor.execute("apply", SPACE.sample(2, seed=0)), torch_out, atol=1e-5)


@pytest.mark.parametrize("name", ["tf", "torch"])
def test_default_backend_comes_from_the_environment(monkeypatch, name):
    monkeypatch.setenv(BACKEND_ENV_VAR, name)
    executor = build(Dense(2), {"inputs": SPACE}, backend=None)
    assert executor.backend.name == name
    assert executor.graph.backend_name == name
    assert executor.execute("apply", SPACE.sample(3, seed=0)).shape == (3, 2)


def test_without_the_environment_variable_the_default_is_torch(monkeypatch):
    monkeypatch.delenv(BACKEND_ENV_VAR, raising=False)
    assert build(Dense(2), {"inputs": SPACE}).backend.name == "torch"


def test_an_unknown_backend_in_the_environment_is_a_config_error(monkeypatch):
    monkeypatch.setenv(BACKEND_ENV_VAR, "jax-ish")
    with pytest.raises(ConfigError) as info:
        build(Dense(2), {"inputs": SPACE})
    assert info.value.got == "jax-ish" and "tf" in info.value.expected


def _run(code: str) -> dict:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            check=False, timeout=120, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_imports_are_lazy_per_backend():
    seen = _run("""
        import json, sys
        import rlworkbench, rlworkbench.components, rlworkbench.testing, rlworkbench.backends, rlworkbench.demo
        after_import = sorted(m for m in ("torch", "tensorflow") if m in sys.modules)
        from rlworkbench import build
        from rlworkbench.components import Dense
        from rlworkbench.spaces import FloatBox
        out = build(Dense(3), {"inputs": FloatBox(shape=(2,), add_batch_rank=True)}, backend="torch").execute(
            "apply", FloatBox(shape=(2,), add_batch_rank=True).sample(4, seed=0))
        print(json.dumps({"after_import": after_import, "torch": "torch" in sys.modules,
                          "tensorflow": "tensorflow" in sys.modules, "shape": list(out.shape)}))
    """)
    assert seen == {"after_import": [], "torch": True, "tensorflow": False, "shape": [4, 3]}


def test_building_with_tf_does_not_import_torch():
    seen = _run("""
        import json, sys
        from rlworkbench import build
        from rlworkbench.components import Dense
        from rlworkbench.spaces import FloatBox
        build(Dense(3), {"inputs": FloatBox(shape=(2,), add_batch_rank=True)}, backend="tf")
        print(json.dumps({"torch": "torch" in sys.modules, "tensorflow": "tensorflow" in sys.modules}))
    """)
    assert seen == {"torch": False, "tensorflow": True}
