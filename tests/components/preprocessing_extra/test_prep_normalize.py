"""Normalize (min-max from space bounds) and MeanStdNormalize (running statistics in variables) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import MeanStdNormalize, Normalize
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

RANKS = [(4, {"add_batch_rank": True}), ((3, 2), {"add_batch_rank": True, "add_time_rank": True}),
         ((3, 2), {"add_batch_rank": True, "add_time_rank": True, "time_major": True})]


@pytest.mark.parametrize("size, ranks", RANKS)
def test_min_max_from_bounds_on_nested_spaces(backend, size, ranks):
    per_element_low, per_element_high = np.array([-1.0, 0.0, 2.0]), np.array([1.0, 4.0, 2.0])  # last: high == low
    space = Dict(pixels=IntBox(0, 256, shape=(2, 2), dtype="uint8"),
                 extra=Tuple(FloatBox(-3.0, 5.0, shape=(2,)), FloatBox(per_element_low, per_element_high),
                             FloatBox(-1.0, 1.0, dtype="float64")), **ranks)
    test = ComponentTest(Normalize(), {"inputs": space}, backend=backend)
    x = space.sample(size, seed=1)
    span = np.where(per_element_high > per_element_low, per_element_high - per_element_low, 1.0)
    expected = {"pixels": x["pixels"] / 255.0,
                "extra": ((x["extra"][0] + 3.0) / 8.0, (x["extra"][1] - per_element_low) / span,
                          (x["extra"][2] + 1.0) / 2.0)}
    out = test.test(("preprocess", x), expected_outputs=expected)
    assert [leaf.dtype for leaf in (out["pixels"], *out["extra"])] == [np.float32] * 3 + [np.float64]
    out_space = test.graph.output_space("preprocess")
    assert out_space == Dict(pixels=FloatBox(0.0, 1.0, shape=(2, 2)),
                             extra=Tuple(FloatBox(0.0, 1.0, shape=(2,)), FloatBox(0.0, 1.0, shape=(3,)),
                                         FloatBox(0.0, 1.0, dtype="float64")), **ranks)
    out_space.check(out)


@pytest.mark.parametrize("leaf", [FloatBox(shape=(2,)), FloatBox(0.0, np.inf), BoolBox((2,))])
def test_min_max_needs_finite_bounds(backend, leaf):
    space = Dict(ok=FloatBox(0.0, 1.0), bad=leaf, add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(Normalize(), {"inputs": space}, backend=backend)
    assert (info.value.component, info.value.key_path, info.value.got) == ("normalize", "bad", leaf.with_batch_rank())


def running_reference(batches: list[np.ndarray], extra: int, epsilon: float = 1e-8) -> list[np.ndarray]:
    """Each batch normalised by the mean/variance of every row seen so far (itself included)."""
    seen, outputs = [], []
    for batch in batches:
        seen.append(batch.reshape(-1, *batch.shape[extra:]).astype(np.float64))
        rows = np.concatenate(seen)
        outputs.append((batch - rows.mean(0)) / np.sqrt(rows.var(0) + epsilon))
    return outputs


@pytest.mark.parametrize("size, ranks", RANKS[:2])
def test_running_mean_std(backend, size, ranks):
    space = Dict(a=FloatBox(-2.0, 6.0, shape=(2,)), b=IntBox(0, 10, shape=(3, 2)), **ranks)
    test = ComponentTest(MeanStdNormalize(), {"inputs": space}, backend=backend)
    batches = [space.sample(size, seed=i) for i in range(3)]
    outputs = [test.test(("preprocess", x)) for x in batches]
    extra = space["a"].num_extra_ranks
    for key in ("a", "b"):
        expected = running_reference([x[key] for x in batches], extra)
        for out, ref in zip(outputs, expected):
            np.testing.assert_allclose(out[key], ref, rtol=1e-4, atol=1e-4, err_msg=key)
    rows = np.concatenate([x["b"].reshape(-1, 3, 2) for x in batches])
    np.testing.assert_allclose(test.variable_values("mean/b"), rows.mean(0), rtol=1e-5)
    np.testing.assert_allclose(test.variable_values("var/b"), rows.var(0), rtol=1e-4)
    assert test.variable_values("count/b") == len(rows)
    assert test.graph.output_space("preprocess") == Dict(a=FloatBox(shape=(2,)), b=FloatBox(shape=(3, 2)), **ranks)


def test_frozen_statistics_and_reset(backend):
    space = FloatBox(shape=(2,), add_batch_rank=True)
    test = ComponentTest(MeanStdNormalize(update=False, epsilon=0.0), {"inputs": space}, backend=backend)
    test.set_variable_values({"mean": np.array([1.0, -1.0], np.float32), "var": np.array([4.0, 0.25], np.float32)})
    x = space.sample(5, seed=3)
    test.test(("preprocess", x), expected_outputs=(x - [1.0, -1.0]) / [2.0, 0.5])
    test.test(("preprocess", x), expected_outputs=(x - [1.0, -1.0]) / [2.0, 0.5])  # unchanged: no update
    assert test.test("reset") is None
    assert test.variable_values("count") == 0 and np.all(test.variable_values("var") == 1.0)
    test.test(("preprocess", x), expected_outputs=x)


def test_mean_std_errors(backend):
    with pytest.raises(ConfigError) as info:
        MeanStdNormalize(epsilon=-1.0)
    assert info.value.key_path == "epsilon"
    with pytest.raises(SpaceError) as info:
        ComponentTest(MeanStdNormalize(), {"inputs": BoolBox((2,), add_batch_rank=True)}, backend=backend)
    assert info.value.argument == "inputs"
