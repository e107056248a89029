"""LSTM: a NumPy LSTM (gates i, f, g, o) over batch- and time-major inputs, carried state, gradients, errors."""

from __future__ import annotations

import functools

import layers_numpy as ref
import numpy as np
import pytest

from rlworkbench import Component, api
from rlworkbench.components import from_spec
from rlworkbench.components.layers import LSTM
from rlworkbench.core.decorators import graph_fn
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, Tuple
from rlworkbench.testing import ComponentTest

UNITS, FEATURES = 3, 4
STATE = Tuple(FloatBox(shape=(UNITS,)), FloatBox(shape=(UNITS,)), add_batch_rank=True)


def sequences(time_major: bool) -> FloatBox:
    return FloatBox(shape=(FEATURES,), add_batch_rank=True, add_time_rank=True, time_major=time_major)


@functools.cache
def built(backend: str, time_major: bool) -> ComponentTest:
    """All three API methods built; random biases so every gate's bias shows in the numbers."""
    test = ComponentTest(LSTM(UNITS), {"inputs": sequences(time_major), "initial_state": STATE}, backend=backend)
    test.set_variable_values({"bias": np.random.default_rng(0).normal(size=4 * UNITS).astype(np.float32)})
    return test


def weights(test: ComponentTest) -> list[np.ndarray]:
    return test.variable_values("kernel", "recurrent_kernel", "bias")


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
def test_lstm_from_zero_state_matches_numpy(backend, time_major):
    test = built(backend, time_major)
    x = sequences(time_major).sample((2, 5), seed=1)
    zeros = np.zeros((2, UNITS))
    expected = ref.lstm(x, zeros, zeros, *weights(test), time_major=time_major)
    outputs, state = test.test(("apply", x), expected_outputs=expected, decimals=5)
    assert outputs.shape == ((5, 2, UNITS) if time_major else (2, 5, UNITS))
    np.testing.assert_array_equal(state[0], outputs[-1] if time_major else outputs[:, -1])
    state_space = Tuple(FloatBox(shape=(UNITS,)), FloatBox(shape=(UNITS,)), add_batch_rank=True)
    assert test.graph.output_space("apply") == (FloatBox(shape=(UNITS,)).with_ranks_of(sequences(time_major)),
                                                state_space)
    assert test.graph.output_space("apply_with_state") == test.graph.output_space("apply")
    assert test.graph.output_space("zero_state") == state_space


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
def test_lstm_from_a_given_state_matches_numpy(backend, time_major):
    test = built(backend, time_major)
    x, state = sequences(time_major).sample((3, 4), seed=2), STATE.sample(3, seed=3)
    expected = ref.lstm(x, *state, *weights(test), time_major=time_major)
    test.test(("apply_with_state", [x, state]), expected_outputs=expected, decimals=5)


def test_lstm_carried_state_continues_the_sequence(backend):
    test = built(backend, False)
    x = sequences(False).sample((2, 6), seed=4)
    whole, final = test.test(("apply", x))
    first, state = test.test(("apply", x[:, :2]))
    rest, state = test.test(("apply_with_state", [x[:, 2:], state]))
    np.testing.assert_allclose(np.concatenate([first, rest], 1), whole, atol=1e-6)
    np.testing.assert_allclose(state, final, atol=1e-6)


def test_lstm_zero_state_has_the_batch_of_the_inputs(backend):
    for time_major, size, batch in ((False, (3, 2), 3), (True, (3, 2), 3)):
        h, c = built(backend, time_major).test(("zero_state", sequences(time_major).sample(size, seed=5)))
        assert h.shape == c.shape == (batch, UNITS) and not h.any() and not c.any()


def test_lstm_variables_and_initializers(backend):
    test = ComponentTest(from_spec({"type": "lstm", "units": 5}), {"inputs": sequences(False)}, backend=backend,
                         api_methods=["apply"])
    kernel, recurrent, bias = weights(test)
    assert (kernel.shape, recurrent.shape, bias.shape) == ((FEATURES, 20), (5, 20), (20,))
    np.testing.assert_array_equal(bias, np.repeat([0.0, 1.0, 0.0, 0.0], 5))  # forget gate starts open
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(5), atol=1e-5)  # orthogonal rows
    assert test.graph.output_space("apply")[0] == FloatBox(shape=(5,), add_batch_rank=True, add_time_rank=True)
    assert test.graph.output_space("apply")[1] == Tuple(FloatBox(shape=(5,)), FloatBox(shape=(5,)),
                                                        add_batch_rank=True)
    plain = ComponentTest(LSTM(2, unit_forget_bias=False), {"inputs": sequences(False)}, backend=backend,
                          api_methods=["apply"])
    assert not plain.variable_values("bias").any()


class _Gradients(Component):
    """A parent that only calls ``apply`` (no state space needed) and differentiates the outputs' sum."""

    def __init__(self) -> None:
        super().__init__(LSTM(UNITS), name="grads")

    @api
    def grads(self, inputs):
        outputs, _ = self.sub_components["lstm"].apply(inputs)
        return self._grads(outputs)

    @graph_fn(returns=3, requires_grad=True)
    def _grads(self, outputs):
        lstm = self.sub_components["lstm"]
        return tuple(self.ops.gradients(self.ops.reduce_sum(outputs), [lstm.kernel, lstm.recurrent_kernel,
                                                                       lstm.bias]))


def test_lstm_gradients_through_time_match_finite_differences(backend):
    test = ComponentTest(_Gradients(), {"inputs": sequences(False)}, backend=backend)
    x = sequences(False).sample((2, 3), seed=6)
    params = [w.astype(np.float64) for w in test.variable_values("lstm/kernel", "lstm/recurrent_kernel", "lstm/bias")]
    zeros = np.zeros((2, UNITS))

    def loss(values):
        return ref.lstm(x, zeros, zeros, *values)[0].sum()

    expected = []
    for index, param in enumerate(params):
        grad = np.zeros_like(param)
        for position in np.ndindex(param.shape):
            shifted = [p.copy() for p in params]
            shifted[index][position] += 1e-6
            up = loss(shifted)
            shifted[index][position] -= 2e-6
            grad[position] = (up - loss(shifted)) / 2e-6
        expected.append(grad)
    test.test(("grads", x), expected_outputs=tuple(expected), decimals=4)


def test_lstm_config_and_space_errors(backend):
    with pytest.raises(ConfigError) as info:
        LSTM(0)
    assert (info.value.component, info.value.argument) == ("lstm", "units")
    for space in (FloatBox(shape=(FEATURES,), add_batch_rank=True), FloatBox(shape=(2, FEATURES), add_batch_rank=True,
                                                                              add_time_rank=True)):
        with pytest.raises(SpaceError) as info:
            ComponentTest(LSTM(UNITS), {"inputs": space}, backend=backend, api_methods=["apply"])
        assert (info.value.component, info.value.argument) == ("lstm", "inputs")
    bad_state = Tuple(FloatBox(shape=(UNITS + 1,)), FloatBox(shape=(UNITS,)), add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(LSTM(UNITS), {"inputs": sequences(False), "initial_state": bad_state}, backend=backend)
    assert (info.value.component, info.value.argument) == ("lstm", "initial_state")
    assert info.value.expected == STATE and info.value.got == bad_state


def test_lstm_rejects_state_values_of_the_wrong_shape(backend):
    test = built(backend, False)
    with pytest.raises(SpaceError) as info:
        test.test(("apply_with_state", [sequences(False).sample((2, 3), seed=7), (np.zeros((2, UNITS)),
                                                                                np.zeros((2, 1)))]))
    assert (info.value.api_method, info.value.argument, info.value.key_path) == ("apply_with_state",
                                                                                  "initial_state", "1")
