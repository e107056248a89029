"""Time-dependent parameters: each kind against its NumPy formula, scalar and batched steps, specs, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlworkbench.components import from_spec
from rlworkbench.components.common import (
    Constant,
    ExponentialDecay,
    LinearDecay,
    PolynomialDecay,
    TimeDependentParameter,
)
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

STEPS = IntBox(0, 3000, add_batch_rank=True)
EDGES = np.array([0, 99, 100, 101, 550, 999, 1000, 1001, 2999], np.int64)  # around start=100, end=1000


def _fraction(t: np.ndarray) -> np.ndarray:
    return np.clip((t.astype(np.float64) - 100) / 900, 0.0, 1.0)


CASES = {
    "constant": (lambda: Constant(0.3), lambda t: np.full(t.shape, 0.3)),
    "linear": (lambda: LinearDecay(from_value=1.0, to_value=0.1, start_time_step=100, end_time_step=1000),
               lambda t: 1.0 + (0.1 - 1.0) * _fraction(t)),
    "polynomial": (lambda: PolynomialDecay(from_value=2.0, to_value=-1.0, start_time_step=100, end_time_step=1000,
                                           power=3.0),
                   lambda t: -1.0 + 3.0 * (1 - _fraction(t)) ** 3),
    "exponential": (lambda: ExponentialDecay(from_value=1.0, to_value=0.5, start_time_step=100, end_time_step=1000,
                                             num_half_lives=4),
                    lambda t: np.where(t >= 1000, 0.5, 0.5 + 0.5 * 0.5 ** ((np.clip(t, 100, 1000) - 100) / 225.0))),
    "exponential_half_life": (lambda: ExponentialDecay(from_value=0.0, to_value=1.0, start_time_step=100,
                                                       end_time_step=1000, half_life=50),
                              lambda t: np.where(t >= 1000, 1.0, 1.0 - 0.5 ** ((np.clip(t, 100, 1000) - 100) / 50))),
}


@pytest.fixture(scope="module")
def builds():
    cache: dict[tuple[str, str], ComponentTest] = {}

    def get(backend: str, case: str) -> ComponentTest:
        if (backend, case) not in cache:
            cache[(backend, case)] = ComponentTest(CASES[case][0](), {"time_step": STEPS}, backend=backend)
        return cache[(backend, case)]

    return get


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_follow_the_formula(backend, builds, case):
    test = builds(backend, case)
    steps = np.concatenate([EDGES, STEPS.sample(40, seed=1)])
    values = test.test(("get", steps))
    assert values.dtype == np.float32 and values.shape == steps.shape
    np.testing.assert_allclose(values, CASES[case][1](steps), rtol=1e-6, atol=1e-6)
    assert test.graph.output_space("get") == FloatBox(shape=(), add_batch_rank=True)


def test_scalar_step_gives_a_scalar(backend):
    test = ComponentTest(LinearDecay(from_value=1.0, to_value=0.0, end_time_step=10), {"time_step": IntBox()},
                         backend=backend)
    assert test.test(("get", np.int64(4))) == pytest.approx(0.6)
    assert test.graph.output_space("get") == FloatBox(shape=())


def test_large_time_steps_keep_their_precision(backend):
    # float32 steps would round 2e9 + 1 to 2e9: the fraction is computed in float64
    start = 2_000_000_000
    test = ComponentTest(LinearDecay(from_value=0.0, to_value=1.0, start_time_step=start, end_time_step=start + 4),
                         {"time_step": IntBox(add_batch_rank=True)}, backend=backend)
    test.test(("get", np.array([start + 1, start + 3])), expected_outputs=np.array([0.25, 0.75], np.float32))
    late = ComponentTest(LinearDecay(from_value=1.0, to_value=0.0, start_time_step=start, end_time_step=start + 3),
                         {"time_step": IntBox(add_batch_rank=True)}, backend=backend)  # a slope of -1/3
    steps = np.arange(start, start + 4)
    np.testing.assert_array_equal(late.test(("get", steps)), np.float32(1.0 - (steps - start) / 3.0))


@pytest.mark.parametrize("from_value, to_value, start, end", [(1.0, 0.02, 7, 10_007), (0.1, 0.9, 0, 3),
                                                             (-0.3, -0.7, 1_000_000, 1_000_013)])
def test_a_linear_decay_is_exactly_at_its_endpoints_outside_its_window_and_between_them_inside(
        backend, from_value, to_value, start, end):
    test = ComponentTest(LinearDecay(from_value=from_value, to_value=to_value, start_time_step=start,
                                     end_time_step=end), {"time_step": IntBox(add_batch_rank=True)}, backend=backend)
    steps = np.array([0, start - 1, start, end, end + 1, 10 * end + 5], np.int64)
    values = test.test(("get", steps))
    np.testing.assert_array_equal(values[steps <= start], np.float32(from_value))
    np.testing.assert_array_equal(values[steps >= end], np.float32(to_value))
    inside = test.test(("get", np.linspace(start, end, 50).astype(np.int64)))
    assert np.all(np.diff(inside) * np.sign(to_value - from_value) >= 0)  # monotonic, never past an endpoint
    assert min(from_value, to_value) <= inside.min() and inside.max() <= max(from_value, to_value) + 1e-7


def test_from_spec_takes_numbers_dicts_and_components():
    constant = TimeDependentParameter.from_spec(0.5, name="epsilon")
    assert isinstance(constant, Constant) and constant.value == 0.5 and constant.name == "epsilon"
    decay = TimeDependentParameter.from_spec({"type": "polynomial_decay", "power": 1.5, "end_time_step": 7})
    assert isinstance(decay, PolynomialDecay) and decay.power == 1.5 and decay.end == 7.0
    assert decay.name == "parameter"
    named = TimeDependentParameter.from_spec({"type": "linear_decay", "name": "lr"}, name="ignored")
    assert named.name == "lr"
    assert TimeDependentParameter.from_spec(decay) is decay
    assert isinstance(from_spec({"type": "exponential_decay"}), ExponentialDecay)


@pytest.mark.parametrize("spec", ["linear_decay", True, None, {"type": "dense", "units": 3}, [0.1]])
def test_from_spec_rejects_what_is_no_parameter(spec):
    with pytest.raises(ConfigError) as info:
        TimeDependentParameter.from_spec(spec, name="epsilon")
    assert info.value.key_path == "epsilon" and "spec dict" in str(info.value.expected)


@pytest.mark.parametrize("make, key", [
    (lambda: LinearDecay(start_time_step=10, end_time_step=10), "end_time_step"),
    (lambda: PolynomialDecay(power=0.0), "power"),
    (lambda: ExponentialDecay(half_life=-1.0), "half_life"),
    (lambda: LinearDecay(from_value=float("nan")), "from_value"),
    (lambda: Constant("0.1"), "value"),
])
def test_bad_configs_name_the_argument(make, key):
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.key_path == key


@pytest.mark.parametrize("make, endpoints", [
    (lambda: Constant(-3.0), {"": -3.0}),
    (lambda: LinearDecay(from_value=-1.0, to_value=1e30), {"from_value": -1.0, "to_value": 1e30}),
    (lambda: ExponentialDecay(from_value=2.0, to_value=-2.0), {"from_value": 2.0, "to_value": -2.0}),
])
def test_the_decays_are_unbounded_but_finite_and_say_their_endpoints(make, endpoints):
    # a range belongs to the component using a parameter (an epsilon is a probability), not to the decay
    parameter = make()
    assert parameter.endpoints() == endpoints
    parameter.check_range(-math.inf, math.inf, component="c", argument="a", meaning="anything")
    with pytest.raises(ConfigError) as info:
        parameter.check_range(-0.5, 0.5, component="c", argument="a", meaning="small")
    assert (info.value.component, info.value.argument) == ("c", "a")
    assert info.value.key_path in {key or None for key in endpoints}


@pytest.mark.parametrize("key", ["from_value", "to_value"])
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_endpoints_are_refused(key, value):
    with pytest.raises(ConfigError) as info:
        LinearDecay(**{key: value})
    assert info.value.key_path == key


def test_a_parameter_without_endpoints_is_not_range_checked():
    class Custom(TimeDependentParameter):
        def value_at(self, t):
            return t

    Custom().check_range(0.0, 1.0, component="c", argument="a", meaning="a probability")
