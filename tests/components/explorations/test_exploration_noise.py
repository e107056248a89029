"""GaussianNoise and OrnsteinUhlenbeckNoise: noise statistics, the OU recursion against its closed form, state
in variables (reset, per-row processes), clipping to bounds, container actions, errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.explorations import GaussianNoise, OrnsteinUhlenbeckNoise
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

STEP = IntBox(0, 1000)
UNBOUNDED = FloatBox(shape=(3,), add_batch_rank=True)
BOUNDED = FloatBox(-1.0, 1.0, shape=(3,), add_batch_rank=True)


def test_gaussian_noise_statistics_and_decay(backend):
    stddev = {"type": "linear_decay", "from_value": 0.5, "to_value": 0.0, "end_time_step": 100}
    test = ComponentTest(GaussianNoise(stddev=stddev), {"actions": UNBOUNDED, "time_step": STEP}, backend=backend)
    actions = UNBOUNDED.sample(4000, seed=1)
    noise = test.test(("get_action", [actions, 0])) - actions
    assert abs(noise.mean()) < 0.02 and noise.std() == pytest.approx(0.5, rel=0.03)
    np.testing.assert_allclose((test.test(("get_action", [actions, 50])) - actions).std(), 0.25, rtol=0.05)
    np.testing.assert_array_equal(test.test(("get_action", [actions, 100])), actions)
    assert test.graph.output_space("get_action") == UNBOUNDED


def test_gaussian_noise_clips_float_leaves_and_passes_the_others(backend):
    space = Dict(aim=FloatBox(-1.0, 1.0, shape=(2,)), move=IntBox(3), add_batch_rank=True)
    test = ComponentTest(GaussianNoise(stddev=3.0), {"actions": space, "time_step": STEP}, backend=backend)
    actions = space.sample(500, seed=2)
    noisy = test.test(("get_action", [actions, 0]))
    assert space.contains(noisy) and np.mean(np.abs(noisy["aim"]) == 1.0) > 0.5
    np.testing.assert_array_equal(noisy["move"], actions["move"])
    assert test.graph.output_space("get_action") == space


def test_ou_recursion_without_noise_decays_to_mu(backend):
    test = ComponentTest(OrnsteinUhlenbeckNoise(theta=0.2, sigma=0.0, mu=0.5, dt=0.5),
                         {"actions": UNBOUNDED, "time_step": STEP}, backend=backend)
    np.testing.assert_array_equal(test.variable_values("state"), np.full(3, 0.5, np.float32))
    start = np.array([2.0, -1.0, 0.5], np.float32)
    test.set_variable_values({"state": start})
    actions = UNBOUNDED.sample(4, seed=3)
    for k in range(1, 4):
        expected = 0.5 + (start - 0.5) * (1 - 0.2 * 0.5) ** k  # x_k of the recursion, closed form
        test.test(("get_action", [actions, 0]), expected_outputs=actions + expected, decimals=5)
        np.testing.assert_allclose(test.variable_values("state"), expected, rtol=1e-5)
    assert test.test("reset") is None
    np.testing.assert_array_equal(test.variable_values("state"), np.full(3, 0.5, np.float32))


def test_ou_increments_are_scaled_normal_noise_per_row(backend):
    test = ComponentTest(OrnsteinUhlenbeckNoise(theta=0.15, sigma=0.3, dt=0.25, batch_size=2000),
                         {"actions": UNBOUNDED, "time_step": STEP}, backend=backend)
    zeros = np.zeros((2000, 3), np.float32)
    first = test.test(("get_action", [zeros, 0]))
    second = test.test(("get_action", [zeros, 0]))
    np.testing.assert_allclose(test.variable_values("state"), second)
    increments = (second - first - 0.15 * 0.25 * (0.0 - first)) / (0.3 * 0.5)
    assert abs(increments.mean()) < 0.03 and increments.std() == pytest.approx(1.0, rel=0.03)
    keep = 1 - 0.15 * 0.25  # x2 = keep * x1 + new noise of x1's scale: corr(x1, x2) = keep / sqrt(keep**2 + 1)
    assert np.corrcoef(first.ravel(), second.ravel())[0, 1] == pytest.approx(keep / np.sqrt(keep**2 + 1), abs=0.03)


def test_ou_noise_is_clipped_to_the_bounds(backend):
    test = ComponentTest(OrnsteinUhlenbeckNoise(sigma=5.0), {"actions": BOUNDED, "time_step": STEP},
                         backend=backend)
    noisy = test.test(("get_action", [BOUNDED.sample(200, seed=4), 3]))
    assert BOUNDED.contains(noisy) and np.all(noisy == noisy[0])  # one process shared by the rows: same noise
    assert test.graph.output_space("get_action") == BOUNDED


@pytest.mark.parametrize("actions, action_space", [
    (IntBox(3, add_batch_rank=True), None),
    (Dict(a=FloatBox(shape=(2,)), add_batch_rank=True), None),
    (UNBOUNDED, FloatBox(shape=(2,))),
])
def test_ou_needs_one_float_action(backend, actions, action_space):
    with pytest.raises(SpaceError) as info:
        ComponentTest(OrnsteinUhlenbeckNoise(action_space=action_space), {"actions": actions, "time_step": STEP},
                      backend=backend)
    assert info.value.argument == "actions" and info.value.component == "ornstein_uhlenbeck_noise"


def test_gaussian_noise_actions_must_fit_the_action_space(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(GaussianNoise(action_space=FloatBox(-1.0, 1.0, shape=(2,))),
                      {"actions": UNBOUNDED, "time_step": STEP}, backend=backend)
    assert info.value.argument == "actions"


@pytest.mark.parametrize("make, argument, key", [
    (lambda scale: GaussianNoise(stddev=scale), "stddev", None),
    (lambda scale: GaussianNoise(stddev={"type": "linear_decay", "from_value": 0.5, "to_value": scale}), "stddev",
     "to_value"),
    (lambda scale: OrnsteinUhlenbeckNoise(sigma=scale), "sigma", None),
    (lambda scale: OrnsteinUhlenbeckNoise(sigma={"type": "exponential_decay", "from_value": scale}), "sigma",
     "from_value"),
])
def test_noise_scales_are_not_negative(make, argument, key):
    with pytest.raises(ConfigError) as info:
        make(-0.1)
    assert (info.value.argument, info.value.key_path, info.value.got) == (argument, key, -0.1)
    assert info.value.expected == f"{key or argument} >= 0"
    make(0.0)  # no noise is fine, and there is no upper bound
    make(1e6)
