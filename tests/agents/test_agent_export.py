"""``agent.export_model``: the greedy acting path (preprocess → policy → argmax) written as TorchScript and ONNX
(torch) or a SavedModel (tf), loaded back in its own runtime (no rlworkbench involved) and checked to give the
actions ``get_actions(states, explore=False)`` gives, at two batch sizes; plus the sidecar, the format check and
the executor-level export of nested spaces."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from agent_helpers import STATES, small_agent, small_config, transitions

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.agents import Agent
from rlworkbench.core.export import sidecar_path
from rlworkbench.errors import BuildError, ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox

# loading TorchScript is deprecated upstream (torch.jit.load warns); it is the format under test here
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.load` is deprecated:DeprecationWarning")

BATCH_SIZES = (1, 13)
DEFAULT_FORMAT = {"torch": "torchscript", "tf": "saved_model"}
FORMAT_BACKEND = {"torchscript": "torch", "onnx": "torch", "saved_model": "tf"}
PREPROCESSED_DUELING = {"preprocessing": [{"type": "multiply", "factor": 2.0}, {"type": "clip", "low": -1.0,
                                                                               "high": 1.0}],
                        "policy": {"dueling": True, "value_units": [8], "advantage_units": [8]}}


@pytest.fixture(autouse=True)
def _one_torch_thread(one_torch_thread: None) -> None:
    """Two CPU cores here: one intra-op thread keeps tracing and the exporters from oversubscribing them."""


def _needs_backend(backend: str) -> None:
    framework = {"torch": "torch", "tf": "tensorflow"}[backend]
    if importlib.util.find_spec(framework) is None:
        pytest.skip(f"backend '{backend}' needs {framework}, which is not installed")


def _needs_onnxruntime() -> None:
    for package in ("onnxruntime", "onnx", "onnxscript"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"ONNX export/inference needs {package}, which is not installed")


def _runner(path: Path, format: str) -> Any:
    """A function ``{input name: array} -> [output arrays]`` running the exported model in its own runtime."""
    if format == "torchscript":
        import torch

        module = torch.jit.load(str(path))
        assert all(not p.requires_grad for p in module.parameters())

        def run_torchscript(inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
            out = module(*(torch.as_tensor(v) for v in inputs.values()))  # no torch.no_grad() needed
            return [t.numpy() for t in (out if isinstance(out, tuple) else (out,))]

        return run_torchscript
    if format == "onnx":
        import onnxruntime

        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return lambda inputs: session.run(None, inputs)
    assert format == "saved_model"
    import tensorflow as tf

    loaded = tf.saved_model.load(str(path))
    serving = loaded.signatures["serving_default"]
    names = [output["name"] for output in json.loads(sidecar_path(path).read_text())["outputs"]]

    def run_saved_model(inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        by_call = loaded(*inputs.values())
        by_signature = serving(**{k: tf.constant(v) for k, v in inputs.items()})
        assert sorted(by_call) == sorted(by_signature) == sorted(names)
        for name in names:
            np.testing.assert_array_equal(by_call[name].numpy(), by_signature[name].numpy())
        return [by_call[name].numpy() for name in names]

    return run_saved_model


def _check_actions(agent: Agent, path: Path, format: str) -> None:
    run = _runner(path, format)
    for seed, size in enumerate(BATCH_SIZES):
        states = STATES.sample(size, seed=100 + seed)
        (actions,) = run({"states": states})
        expected = agent.get_actions(states, explore=False)
        assert actions.dtype == expected.dtype and actions.shape == (size,)
        np.testing.assert_array_equal(actions, expected)


def _trained_agent(backend: str, **sections: Any) -> Agent:
    """A small DQN agent after a few updates, so that the export has to carry trained (not initial) weights."""
    agent = small_agent(backend, **sections)
    for seed in range(3):
        agent.update(batch=transitions(8, seed=seed))
    return agent


@pytest.mark.parametrize("format", ["torchscript", "onnx", "saved_model"])
def test_exported_model_acts_like_the_agent(format: str, tmp_path: Path) -> None:
    backend = FORMAT_BACKEND[format]
    _needs_backend(backend)
    if format == "onnx":
        _needs_onnxruntime()
    agent = _trained_agent(backend)
    path = agent.export_model(tmp_path / f"dqn.{format}", format=format)
    assert path == tmp_path / f"dqn.{format}" and path.exists()
    _check_actions(agent, path, format)

    sidecar = json.loads(sidecar_path(path).read_text())
    assert sidecar["format"] == format and sidecar["backend"] == backend and sidecar["model"] == path.name
    assert sidecar["api_methods"] == ["act_greedy"] and sidecar["metadata"]["agent_type"] == "dqn"
    assert sidecar["metadata"]["updates"] == 3
    (states,) = sidecar["inputs"]
    assert states["name"] == "states" and states["shape"] == [None, 4] and states["dtype"] == "float32"
    assert states["dynamic_axes"] == {"0": "batch"}
    assert states["space"] == {"type": "FloatBox", "shape": [4], "dtype": "float32", "batch_rank": True,
                               "time_rank": False, "time_major": False, "low": -1, "high": 1}
    (actions,) = sidecar["outputs"]
    assert actions["name"] == "actions" and actions["shape"] == [None] and actions["dtype"] == "int64"


def test_export_includes_preprocessing_and_dueling_heads(backend: str, tmp_path: Path) -> None:
    """With a preprocessor the exported path is ``preprocess`` then ``act_greedy``: raw states in."""
    agent = _trained_agent(backend, **PREPROCESSED_DUELING)
    path = agent.export_model(tmp_path / "model")  # the backend's default format
    sidecar = json.loads(sidecar_path(path).read_text())
    assert sidecar["format"] == DEFAULT_FORMAT[backend] and sidecar["api_methods"] == ["preprocess", "act_greedy"]
    _check_actions(agent, path, DEFAULT_FORMAT[backend])  # states * 2 is clipped: preprocessing matters


def test_other_agent_types_export_through_the_same_hook(backend: str, tmp_path: Path) -> None:
    """PPO on a continuous action: its root's ``act_greedy`` (the distribution's mean) exports as it is, float
    actions included."""
    ppo_helpers = pytest.importorskip("ppo_helpers")
    agent = ppo_helpers.small_ppo(backend, action_space=FloatBox(-1.0, 1.0, shape=(2,)))
    path = agent.export_model(tmp_path / "ppo")
    run = _runner(path, DEFAULT_FORMAT[backend])
    for size in BATCH_SIZES:
        states = ppo_helpers.STATES.sample(size, seed=size)
        (actions,) = run({"states": states})
        assert actions.shape == (size, 2) and actions.dtype == np.float32
        np.testing.assert_allclose(actions, agent.get_actions(states, explore=False), rtol=1e-5, atol=1e-6)


def test_exported_model_carries_only_the_acting_weights(tmp_path: Path) -> None:
    """The memory, optimizer state and target network stay out of the exported model."""
    torch = pytest.importorskip("torch")
    agent = small_agent("torch")
    module = torch.jit.load(str(agent.export_model(tmp_path / "dqn.pt")))
    names = [name for name, _ in module.named_parameters()] + [name for name, _ in module.named_buffers()]
    assert names and all(name.startswith("policy__") for name in names), names
    exported = {name.replace("__", "/"): p.numpy() for name, p in module.named_parameters()}
    weights = agent.get_weights()
    for name, value in exported.items():
        np.testing.assert_array_equal(value, weights[name])


def test_unsupported_format_raises_a_config_error_listing_the_supported(backend: str, tmp_path: Path) -> None:
    agent = small_agent(backend)
    other = "saved_model" if backend == "torch" else "onnx"
    for wrong in (other, "pickle"):
        with pytest.raises(ConfigError, match="cannot export to this format") as info:
            agent.export_model(tmp_path / "model", format=wrong)
        assert info.value.got == wrong and info.value.argument == "format"
        assert info.value.expected == list(agent.executor.export_formats)
        assert DEFAULT_FORMAT[backend] in str(info.value)
    assert not list(tmp_path.iterdir())  # nothing written


def test_exporting_an_unbuilt_agent_raises_a_build_error(tmp_path: Path) -> None:
    agent = Agent.from_config(small_config(), state_space=STATES, action_space=IntBox(3))
    with pytest.raises(BuildError, match="export_model needs a built agent"):
        agent.export_model(tmp_path / "model")


def test_an_agent_without_an_acting_api_method_raises(tmp_path: Path) -> None:
    agent = small_agent("torch" if importlib.util.find_spec("torch") else "tf")
    agent.acting_api_method = "no_such_method"
    with pytest.raises(BuildError, match="no deterministic acting API method"):
        agent.export_model(tmp_path / "model")


# ----- the executor level: nested input spaces, several outputs -------------------------------------------------
class Scorer(Component):
    """Dict states in, ``(best, scores)`` out: exercises flattening of nested inputs and several outputs."""

    def __init__(self) -> None:
        super().__init__(name="scorer")

    def create_variables(self, input_spaces: dict) -> None:
        self.weights = self.create_variable("weights", (3, 2), initializer="glorot_normal")

    @api
    def score(self, states: Any) -> Any:
        return self._score(states)

    @graph_fn(returns=2)
    def _score(self, states: Any) -> Any:
        ops = self.ops
        features = ops.where(states["mask"], states["obs"], ops.zeros_like(states["obs"]))
        scores = ops.matmul(features, self.weights)
        return ops.argmax(scores, -1), scores

    @api
    def best(self, states: Any) -> Any:
        best, _ = self._score(states)
        return best


NESTED = Dict(obs=FloatBox(shape=(3,)), mask=BoolBox(shape=(3,)), add_batch_rank=True)


@pytest.mark.parametrize("format", ["torchscript", "onnx", "saved_model"])
def test_executor_exports_nested_inputs_and_several_outputs(format: str, tmp_path: Path) -> None:
    backend = FORMAT_BACKEND[format]
    _needs_backend(backend)
    if format == "onnx":
        _needs_onnxruntime()
    executor = build(Scorer(), {"states": NESTED}, backend=backend, seed=1)
    path = executor.export("score", tmp_path / "scorer", format, output_name="out")
    sidecar = json.loads(sidecar_path(path).read_text())
    assert [t["name"] for t in sidecar["inputs"]] == ["states_obs", "states_mask"]
    assert [t["name"] for t in sidecar["outputs"]] == ["out_0", "out_1"]
    assert sidecar["input_spaces"]["states"]["type"] == "Dict"
    run = _runner(path, format)
    for size in (2, 9):
        states = NESTED.sample(size, seed=size)
        best, scores = run({"states_obs": states["obs"], "states_mask": states["mask"]})
        expected_best, expected_scores = executor.execute("score", states)
        np.testing.assert_array_equal(best, expected_best)
        np.testing.assert_allclose(scores, expected_scores, rtol=1e-5, atol=1e-6)


def test_executor_export_checks_the_chain(backend: str, tmp_path: Path) -> None:
    executor = build(Scorer(), {"states": NESTED}, backend=backend, seed=1)
    with pytest.raises(BuildError, match="no such built API method"):
        executor.export("nope", tmp_path / "m")
    with pytest.raises(SpaceError, match="'best' gives what 'score' cannot take"):
        executor.export(["best", "score"], tmp_path / "m")
    with pytest.raises(ConfigError, match="one distinct input name per parameter"):
        executor.export("score", tmp_path / "m", input_names=["a", "b"])


def test_a_trace_that_does_not_hold_at_other_sizes_is_refused(tmp_path: Path) -> None:
    """A running normaliser updates its statistics with the batch size baked into the TorchScript trace: the
    check at a second batch size catches it, and the example runs leave the statistics as they were."""
    pytest.importorskip("torch")
    from rlworkbench.components.preprocessing.mean_std_normalize import MeanStdNormalize

    executor = build(MeanStdNormalize(), {"inputs": FloatBox(shape=(3,), add_batch_rank=True)}, backend="torch",
                     seed=0)
    executor.execute("preprocess", np.arange(12, dtype=np.float32).reshape(4, 3))
    before = executor.get_weights()
    with pytest.raises(BuildError, match="does not reproduce the API method on inputs of other sizes"):
        executor.export("preprocess", tmp_path / "normalize.pt", "torchscript")
    for name, value in executor.get_weights().items():
        np.testing.assert_array_equal(value, before[name])
    assert not (tmp_path / "normalize.pt").exists()
