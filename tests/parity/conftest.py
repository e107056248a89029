"""Backend parity: the same component built on torch and on TensorFlow computes the same thing.

``parity(make, input_spaces)`` builds ``make()`` on both backends with *different* seeds and checks, in order:

1. both builds have the same variables (scoped names, shapes, dtypes, trainable flags), and their randomly
   initialised values differ (so equal outputs below come from the copy, not from equal seeds);
2. every record of the component graph — each API call's inputs and outputs, each graph function's outputs, in
   every sub-component — has the same space on both, leaf by leaf (class, dtype, shape, ranks, bounds;
   :mod:`output_spaces`), and so does every root API method's output;
3. after copying the torch weights into the TF build (``get_weights`` → ``set_weights``), the same sampled
   inputs (several batch sizes, time ranks as the spaces declare) give equal outputs: same nesting, container
   types, dtypes and shapes, values within ``atol`` (exactly for ints, bools and strings), each inside the
   output space.

It returns the :class:`Pair` of component tests for extra checks (sub-graph calls, further calls on stateful
components followed by :meth:`Pair.assert_same_weights`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from output_spaces import assert_same_graph_spaces

from rlworkbench import Component
from rlworkbench.spaces import Space
from rlworkbench.testing import ComponentTest
from rlworkbench.testing.compare import nested_leaves

TORCH_SEED, TF_SEED = 1, 2
ATOL = 1e-5
TIME = 3  # length of the time rank in sampled inputs
BATCH_SIZES = (1, 5)

RANKS = {
    "batch": {"add_batch_rank": True},
    "batch_time": {"add_batch_rank": True, "add_time_rank": True},
    "time_major": {"add_batch_rank": True, "add_time_rank": True, "time_major": True},
}


def sample(space: Space, batch: int, seed: int) -> Any:
    """A value of ``space`` with ``batch`` rows and ``TIME`` steps where the space has those ranks."""
    if space.has_batch_rank and space.has_time_rank:
        size: Any = (batch, TIME)
    elif space.has_batch_rank:
        size = batch
    else:
        size = TIME if space.has_time_rank else None
    return space.sample(size, seed=seed)


def assert_same_outputs(actual: Any, expected: Any, atol: float = ATOL, path: str = "") -> None:
    """``actual`` (TF) equals ``expected`` (torch): structure, container types, dtypes, shapes and values."""
    for where, actual_leaf, expected_leaf in nested_leaves(actual, expected, path, strict=True):
        assert isinstance(actual_leaf, np.ndarray) and isinstance(expected_leaf, np.ndarray), \
            f"outputs must come back as NumPy{where}: {type(actual_leaf).__name__} vs {type(expected_leaf).__name__}"
        assert actual_leaf.dtype == expected_leaf.dtype, \
            f"dtypes differ{where}: {actual_leaf.dtype} vs {expected_leaf.dtype}"
        assert actual_leaf.shape == expected_leaf.shape, \
            f"shapes differ{where}: {actual_leaf.shape} vs {expected_leaf.shape}"
        if expected_leaf.dtype.kind in "fc":
            np.testing.assert_allclose(actual_leaf, expected_leaf, atol=atol, rtol=1e-5,
                                       err_msg=f"values differ{where}")
        else:
            np.testing.assert_array_equal(actual_leaf, expected_leaf, err_msg=f"values differ{where}")


@dataclass
class Pair:
    """The torch and TF builds of one component, weights already equal."""

    torch: ComponentTest
    tf: ComponentTest
    atol: float = ATOL

    def run(self, api_name: str, *args: Any, **by_name: Any) -> tuple[Any, Any]:
        """Runs a root API method on both and asserts equal outputs; returns (torch, tf) outputs."""
        expected = self.torch.executor.execute(api_name, *args, **by_name)
        actual = self.tf.executor.execute(api_name, *args, **by_name)
        assert_same_outputs(actual, expected, self.atol)
        return expected, actual

    def run_fused(self, *calls: tuple[str, Any]) -> tuple[list[Any], list[Any]]:
        """``execute(("a", args), ("b", args))`` on both (one fused graph on TF); asserts equal outputs."""
        expected = self.torch.executor.execute(*calls)
        actual = self.tf.executor.execute(*calls)
        assert_same_outputs(actual, expected, self.atol)
        return expected, actual

    def call(self, component: str, api_name: str, *args: Any) -> tuple[Any, Any]:
        """Runs a sub-component's API method (a sub-graph) on both and asserts equal outputs."""
        expected = self.torch.executor.call(component, api_name, *args)
        actual = self.tf.executor.call(component, api_name, *args)
        assert_same_outputs(actual, expected, self.atol)
        return expected, actual

    def assert_same_weights(self, rtol: float = 1e-6, atol: float = 0.0) -> dict[str, np.ndarray]:
        """Every variable (weights and state: counters, slots, buffers) equal on both; returns torch's values."""
        torch_weights, tf_weights = self.torch.variable_values(), self.tf.variable_values()
        assert list(tf_weights) == list(torch_weights), "variable names differ"
        for name, value in torch_weights.items():
            assert tf_weights[name].dtype == value.dtype, name
            np.testing.assert_allclose(tf_weights[name], value, rtol=rtol, atol=atol, err_msg=name)
        return torch_weights


def _assert_same_variables(pair: Pair) -> None:
    torch_root, tf_root = pair.torch.component, pair.tf.component
    torch_weights, tf_weights = pair.torch.variable_values(), pair.tf.variable_values()
    assert list(tf_weights) == list(torch_weights), "variable names differ"
    for name, value in torch_weights.items():
        assert (tf_weights[name].shape, tf_weights[name].dtype) == (value.shape, value.dtype), name
    assert list(tf_root.variables(trainable_only=True)) == list(torch_root.variables(trainable_only=True))
    for name, variable in tf_root.variables().items():  # TF names carry the component scope
        assert variable.name == f"{tf_root.path}/{name}:0"
    random = [n for n, v in torch_weights.items() if v.dtype.kind == "f" and np.unique(v).size > 1]
    if random:
        assert any(not np.array_equal(torch_weights[n], tf_weights[n]) for n in random), \
            "different seeds should give different initial weights"


def _assert_same_output_spaces(pair: Pair) -> None:
    assert_same_graph_spaces(pair.torch.graph, pair.tf.graph)  # every record of the graph, leaf by leaf
    for api_name in pair.torch.graph.root_inputs:
        torch_space = pair.torch.graph.output_space(api_name)
        tf_space = pair.tf.graph.output_space(api_name)
        assert tf_space == torch_space, f"{api_name}: {tf_space!r} vs {torch_space!r}"
        assert repr(tf_space) == repr(torch_space)


def _copy_weights(pair: Pair) -> None:
    weights = pair.torch.executor.get_weights()
    pair.tf.executor.set_weights(weights)
    copied = pair.tf.executor.get_weights()
    assert list(copied) == list(weights)
    for name, value in weights.items():
        np.testing.assert_array_equal(copied[name], value, err_msg=name)


def _run_sampled(pair: Pair, batch_sizes: Iterable[int]) -> None:
    graph = pair.torch.graph
    for api_name, inputs in graph.root_inputs.items():
        out_space = graph.output_space(api_name)
        keyword_only = pair.torch.component.api_methods[api_name].keyword_only
        for batch in batch_sizes:
            values = {name: sample(record.space, batch, seed=100 * batch + i)
                      for i, (name, record) in enumerate(inputs.items())}
            args = [value for name, value in values.items() if name not in keyword_only]
            by_name = {name: value for name, value in values.items() if name in keyword_only}
            expected, actual = pair.run(api_name, *args, **by_name)
            if isinstance(out_space, Space):
                assert out_space.contains(expected), f"{api_name}: torch output not in {out_space!r}"
                assert out_space.contains(actual), f"{api_name}: TF output not in {out_space!r}"


def check_parity(make: Callable[[], Component], input_spaces: Mapping[str, Any],
                 batch_sizes: Iterable[int] = BATCH_SIZES, atol: float = ATOL,
                 api_methods: list[str] | None = None) -> Pair:
    """Builds ``make()`` on both backends and checks variables, output spaces and outputs (module docstring)."""
    pair = Pair(ComponentTest(make(), input_spaces, backend="torch", seed=TORCH_SEED, api_methods=api_methods),
                ComponentTest(make(), input_spaces, backend="tf", seed=TF_SEED, api_methods=api_methods), atol)
    assert (pair.torch.backend, pair.tf.backend) == ("torch", "tf")
    _assert_same_variables(pair)
    _assert_same_output_spaces(pair)
    _copy_weights(pair)
    _run_sampled(pair, batch_sizes)
    return pair


@pytest.fixture
def parity() -> Callable[..., Pair]:
    """``parity(make, input_spaces)`` → :class:`Pair` (see the module docstring)."""
    return check_parity


@pytest.fixture(params=list(RANKS))
def ranks(request: pytest.FixtureRequest) -> dict[str, bool]:
    """Rank flags for a space: batch only, batch + time, batch + time (time-major)."""
    return RANKS[request.param]
