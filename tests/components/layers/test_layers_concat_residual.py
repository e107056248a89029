"""Concat (several inputs along a core axis, bounds kept) and Residual (inputs + layers(inputs)) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import Dense, Flatten, from_spec
from rlworkbench.components.layers import Concat, Residual
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

RANKS = [(4, {"add_batch_rank": True}), ((2, 3), {"add_batch_rank": True, "add_time_rank": True}),
         ((2, 3), {"add_batch_rank": True, "add_time_rank": True, "time_major": True})]
RANK_IDS = ["batch", "batch_time", "time_major"]


@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_concat_last_axis_keeps_ranks_and_bounds(backend, size, ranks):
    spaces = [FloatBox(0.0, 1.0, shape=(2,), **ranks), FloatBox(shape=(3,), **ranks),
              FloatBox(-1.0, 0.0, shape=(1,), **ranks)]
    test = ComponentTest(Concat(), {"inputs": spaces}, backend=backend)
    xs = [space.sample(size, seed=i) for i, space in enumerate(spaces)]
    test.test(("apply", xs), expected_outputs=np.concatenate(xs, axis=-1))
    low, high = [0, 0, -np.inf, -np.inf, -np.inf, -1], [1, 1, np.inf, np.inf, np.inf, 0]
    assert test.graph.output_space("apply") == FloatBox(np.array(low, np.float32), np.array(high, np.float32),
                                                        shape=(6,), **ranks)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_concat_core_axes_count_after_the_ranks(backend, axis):
    core = {0: [(1, 3), (2, 3)], 1: [(2, 1), (2, 4)], -2: [(1, 3), (2, 3)]}[axis]
    spaces = [IntBox(5, shape=shape, add_batch_rank=True, add_time_rank=True) for shape in core]
    test = ComponentTest(Concat(axis=axis), {"inputs": spaces}, backend=backend)
    xs = [space.sample((2, 3), seed=i) for i, space in enumerate(spaces)]
    out = test.test(("apply", xs), expected_outputs=np.concatenate(xs, axis=2 + axis % 2))
    assert out.dtype == np.int64
    assert test.graph.output_space("apply") == IntBox(5, shape=out.shape[2:], add_batch_rank=True, add_time_rank=True)


@pytest.mark.parametrize("second, message", [
    (FloatBox(shape=(3, 2), add_batch_rank=True), "must match"),
    (FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True), "must match"),
    (FloatBox(shape=(3,), dtype="float64", add_batch_rank=True), "must match"),
    (IntBox(3, shape=(3,), add_batch_rank=True), "must match"),
    (Dict(a=FloatBox(shape=(3,)), add_batch_rank=True), "number boxes"),
    (FloatBox(add_batch_rank=True), "number boxes"),
])
def test_concat_errors_name_the_input(backend, second, message):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Concat(name="join"), {"inputs": [FloatBox(shape=(2,), add_batch_rank=True), second]},
                      backend=backend)
    assert (info.value.component, info.value.argument) == ("join", "inputs[1]") and message in str(info.value)
    assert info.value.got == second


@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_residual_adds_the_layers_output(backend, size, ranks):
    space = FloatBox(shape=(4,), **ranks)
    block = from_spec({"type": "residual", "layers": [{"type": "dense", "units": 6, "activation": "tanh"},
                                                      {"type": "dense", "units": 4, "bias_initializer": 0.5}]})
    test = ComponentTest(block, {"inputs": space}, backend=backend)
    w = test.variable_values()
    assert list(w) == ["dense_0/kernel", "dense_0/bias", "dense_1/kernel", "dense_1/bias"]
    x = space.sample(size, seed=1).astype(np.float64)
    expected = x + np.tanh(x @ w["dense_0/kernel"] + w["dense_0/bias"]) @ w["dense_1/kernel"] + w["dense_1/bias"]
    test.test(("apply", x.astype(np.float32)), expected_outputs=expected)
    assert test.graph.output_space("apply") == space


def test_residual_around_an_image_layer_and_flatten_is_refused(backend):
    space = FloatBox(shape=(5, 5, 2), add_batch_rank=True)
    same = Residual([{"type": "conv2d", "filters": 2, "kernel_size": 3, "padding": "same"}])
    test = ComponentTest(same, {"inputs": space}, backend=backend)
    assert test.graph.output_space("apply") == FloatBox(shape=(5, 5, 2), add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(Residual([Flatten()], name="res"), {"inputs": space}, backend=backend)
    assert (info.value.component, info.value.argument) == ("res", "inputs")
    assert info.value.got == FloatBox(shape=(50,), add_batch_rank=True)


def test_residual_rejects_items_that_are_not_layers(backend):
    with pytest.raises(ConfigError) as info:
        Residual([Dense(2), {"type": "container_splitter", "keys": ["a"]}])
    assert (info.value.component, info.value.key_path) == ("residual", "container_splitter_1")
    assert info.value.got == "ContainerSplitter"
