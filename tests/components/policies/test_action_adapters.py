"""Action adapters: a Dense layer reshaped (and constrained) into distribution parameters, against NumPy, with
batch + time ranks; choosing the adapter for a distribution; errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.distributions import Beta, Categorical, Normal, SquashedNormal
from rlworkbench.components.policies import (
    BernoulliAdapter,
    BetaAdapter,
    CategoricalAdapter,
    NormalAdapter,
    adapter_for,
)
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

INPUTS = FloatBox(shape=(5,), add_batch_rank=True, add_time_rank=True)
RANKS = {"add_batch_rank": True, "add_time_rank": True}


def softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


# adapter, expected parameters from the raw Dense output r of shape (B, T, units), expected parameter space
CASES = {
    "categorical": (lambda: CategoricalAdapter(IntBox(3, shape=(2,))),
                    lambda r: r.reshape(r.shape[:2] + (2, 3)), FloatBox(shape=(2, 3), **RANKS)),
    "bernoulli": (lambda: BernoulliAdapter(BoolBox((2, 2))),
                  lambda r: r.reshape(r.shape[:2] + (2, 2)), FloatBox(shape=(2, 2), **RANKS)),
    "normal": (lambda: NormalAdapter(FloatBox(shape=(2,)), log_std_bounds=(-0.3, 0.2)),
               lambda r: (r[..., :2], np.clip(r[..., 2:], -0.3, 0.2)),
               Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,)), **RANKS)),
    "beta": (lambda: BetaAdapter(FloatBox(-1.0, 1.0, shape=(2,))),
             lambda r: (1 + softplus(r[..., :2]), 1 + softplus(r[..., 2:])),
             Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,)), **RANKS)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_adapter_parameters_match_numpy(backend, case):
    make, expected, space = CASES[case]
    test = ComponentTest(make(), {"inputs": INPUTS}, backend=backend)
    rng = np.random.default_rng(0)
    weights = {name: rng.normal(size=value.shape).astype(np.float32) for name, value in test.variable_values().items()}
    test.set_variable_values(weights)
    x = INPUTS.sample((3, 4), seed=1)
    raw = x @ weights["dense/kernel"] + weights["dense/bias"]
    test.test(("get_parameters", x), expected_outputs=expected(raw), decimals=4)
    assert test.graph.output_space("get_parameters") == space


def test_normal_adapter_clips_log_std_by_default(backend):
    test = ComponentTest(NormalAdapter(FloatBox(shape=())), {"inputs": FloatBox(shape=(2,), add_batch_rank=True)},
                         backend=backend)
    test.set_variable_values({"dense/kernel": np.array([[1.0, 100.0], [0.0, -100.0]], np.float32)})
    mean, log_std = test.test(("get_parameters", np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)))
    np.testing.assert_allclose(mean, [1.0, 0.0])
    np.testing.assert_allclose(log_std, [2.0, -20.0])


@pytest.mark.parametrize("space, distribution, adapter", [
    (IntBox(4), Categorical(), CategoricalAdapter),
    (BoolBox(()), None, BernoulliAdapter),
    (FloatBox(shape=(2,)), Normal(), NormalAdapter),
    (FloatBox(-1.0, 1.0), SquashedNormal(), NormalAdapter),
    (FloatBox(-1.0, 1.0), Beta(), BetaAdapter),
])
def test_adapter_for_matches_the_distribution_parameters(space, distribution, adapter):
    from rlworkbench.components.distributions import distribution_for

    chosen = adapter_for(space, distribution or distribution_for(space), name="head")
    assert type(chosen) is adapter and chosen.name == "head"


@pytest.mark.parametrize("make, match", [
    (lambda: CategoricalAdapter(FloatBox(shape=(2,)), name="head"), "adapts IntBox"),
    (lambda: CategoricalAdapter(IntBox(low=np.array([0, 0]), high=np.array([2, 3]))), "scalar, finite bounds"),
    (lambda: NormalAdapter(FloatBox(shape=(2,)), log_std_bounds=(1.0, -1.0)), "low < high"),
    (lambda: adapter_for(IntBox(3), Normal(), name="head"), "no action adapter"),
])
def test_adapter_config_errors(make, match):
    with pytest.raises(ConfigError, match=match):
        make()
