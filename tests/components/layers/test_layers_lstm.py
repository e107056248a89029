"""LSTM: a NumPy LSTM (gates i, f, g, o) over batch- and time-major inputs, carried state, resets, per-step states
(``unroll``), gradients, errors."""

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
from rlworkbench.spaces import BoolBox, FloatBox, Tuple
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


def resets_space(time_major: bool) -> BoolBox:
    return BoolBox(add_batch_rank=True, add_time_rank=True, time_major=time_major)


@functools.cache
def built_with_resets(backend: str, time_major: bool) -> ComponentTest:
    """As :func:`built`, with ``resets`` (so ``apply_with_state`` and ``unroll`` take them)."""
    spaces = {"inputs": sequences(time_major), "initial_state": STATE, "resets": resets_space(time_major)}
    test = ComponentTest(LSTM(UNITS), spaces, backend=backend)
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
    empty = FloatBox(shape=(0,), add_batch_rank=True, add_time_rank=True)
    with pytest.raises(SpaceError, match="zero-size") as info:
        ComponentTest(LSTM(UNITS), {"inputs": empty}, backend=backend, api_methods=["apply"])
    assert (info.value.component, info.value.argument, info.value.got) == ("lstm", "inputs", empty)
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


def layout(batch_major: np.ndarray, time_major: bool) -> np.ndarray:
    """A batch-major value (batch, time, ...) in the layout the build expects."""
    return np.swapaxes(batch_major, 0, 1) if time_major else batch_major


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
def test_lstm_with_resets_matches_numpy(backend, time_major):
    test = built_with_resets(backend, time_major)
    x, state = sequences(time_major).sample((4, 6), seed=8), STATE.sample(4, seed=9)
    resets = resets_space(time_major).sample((4, 6), seed=10)
    assert resets.any() and not resets.all()
    expected = ref.lstm(x, *state, *weights(test), time_major=time_major, resets=resets)
    test.test(("apply_with_state", [x, state, resets]), expected_outputs=expected, decimals=5)
    expected_steps = ref.lstm_unroll(x, *state, *weights(test), time_major=time_major, resets=resets)
    test.test(("unroll", [x, state, resets]), expected_outputs=expected_steps, decimals=5)
    no_resets = np.zeros_like(resets)
    test.test(("apply_with_state", [x, state, no_resets]),
              expected_outputs=ref.lstm(x, *state, *weights(test), time_major=time_major), decimals=5)


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
def test_a_reset_restarts_its_row_from_the_zero_state(backend, time_major):
    """Row 0 reset at step 2 = a fresh run of its steps 2.. from zeros; row 1 (no reset) and row 2 (reset at step 0:
    the initial state is dropped) as without resets / from zeros; the steps before a reset are untouched."""
    test, plain = built_with_resets(backend, time_major), built(backend, time_major)
    plain.set_variable_values(test.variable_values())
    x = sequences(False).sample((3, 5), seed=11)  # batch-major here, laid out per build below
    state = STATE.sample(3, seed=12)
    resets = np.zeros((3, 5), bool)
    resets[0, 2] = resets[2, 0] = True
    outputs, (hs, cs) = test.test(("unroll", [layout(x, time_major), state, layout(resets, time_major)]))
    outputs, hs, cs = (layout(v, time_major) for v in (outputs, hs, cs))  # back to batch-major
    carried, (h_carried, c_carried) = plain.test(("apply_with_state", [layout(x, time_major), state]))
    carried = layout(carried, time_major)
    fresh, (h_fresh, c_fresh) = plain.test(("apply", layout(x[[0], 2:], time_major)))
    np.testing.assert_allclose(outputs[0, :2], carried[0, :2], atol=1e-6)
    np.testing.assert_allclose(outputs[0, 2:], layout(fresh, time_major)[0], atol=1e-6)
    np.testing.assert_allclose((hs[0, -1], cs[0, -1]), (h_fresh[0], c_fresh[0]), atol=1e-6)
    np.testing.assert_allclose(outputs[1], carried[1], atol=1e-6)
    np.testing.assert_allclose((hs[1, -1], cs[1, -1]), (h_carried[1], c_carried[1]), atol=1e-6)
    from_zeros, _ = plain.test(("apply", layout(x[[2]], time_major)))
    np.testing.assert_allclose(outputs[2], layout(from_zeros, time_major)[0], atol=1e-6)


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
def test_unroll_states_are_the_state_after_every_step(backend, time_major):
    test = built_with_resets(backend, time_major)
    x, state = sequences(False).sample((2, 6), seed=13), STATE.sample(2, seed=14)
    resets = np.zeros((2, 6), bool)
    resets[1, 4] = True
    outputs, (hs, cs) = test.test(("unroll", [layout(x, time_major), state, layout(resets, time_major)]))
    final_outputs, (h, c) = test.test(("apply_with_state", [layout(x, time_major), state,
                                                            layout(resets, time_major)]))
    assert outputs.shape == hs.shape == cs.shape == ((6, 2, UNITS) if time_major else (2, 6, UNITS))
    np.testing.assert_array_equal(outputs, final_outputs)
    np.testing.assert_array_equal(hs, outputs)  # h of every step is the output
    outputs, hs, cs = (layout(v, time_major) for v in (outputs, hs, cs))
    np.testing.assert_allclose((hs[:, -1], cs[:, -1]), (h, c), atol=1e-6)
    assert test.graph.output_space("unroll") == (FloatBox(shape=(UNITS,)).with_ranks_of(sequences(time_major)),
                                                 Tuple(FloatBox(shape=(UNITS,)), FloatBox(shape=(UNITS,)),
                                                       add_batch_rank=True, add_time_rank=True,
                                                       time_major=time_major))
    for t in (0, 2, 4):  # going on from step t's state (resets after t kept) gives the rest of the sequence
        rest, (h_rest, c_rest) = test.test(("unroll", [layout(x[:, t + 1:], time_major), (hs[:, t], cs[:, t]),
                                                       layout(resets[:, t + 1:], time_major)]))
        np.testing.assert_allclose(layout(rest, time_major), outputs[:, t + 1:], atol=1e-6)
        np.testing.assert_allclose(layout(h_rest, time_major), hs[:, t + 1:], atol=1e-6)
        np.testing.assert_allclose(layout(c_rest, time_major), cs[:, t + 1:], atol=1e-6)


def test_lstm_resets_space_errors(backend):
    bad = {
        "float": FloatBox(add_batch_rank=True, add_time_rank=True),
        "no time rank": BoolBox(add_batch_rank=True),
        "no batch rank": BoolBox(add_time_rank=True),
        "a shape": BoolBox(shape=(1,), add_batch_rank=True, add_time_rank=True),
        "other major": resets_space(True),
    }
    for why, resets in bad.items():
        with pytest.raises(SpaceError) as info:
            ComponentTest(LSTM(UNITS), {"inputs": sequences(False), "initial_state": STATE, "resets": resets},
                          backend=backend)
        assert (info.value.component, info.value.argument) == ("lstm", "resets"), why
        assert info.value.got == resets and info.value.expected == resets_space(False), why
