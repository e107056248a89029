"""Our LSTM against the frameworks' own: ``torch.nn.LSTM`` and Keras' ``LSTM`` with the same weights, over sequences
with resets and from a given initial state, on both of our backends; and torch/TF parity of ``unroll`` with resets.

Our weights go in unchanged: ``weight_ih = kernel.T``, ``weight_hh = recurrent_kernel.T``, ``bias_ih = bias``,
``bias_hh = 0`` for torch (same gate order [i, f, g, o]); ``set_weights([kernel, recurrent_kernel, bias])`` for
Keras. Neither framework knows resets, so they are run two ways: each row split into segments at its reset steps,
the first segment from the initial state and every later one from zeros (outputs and final state); and one step at
a time for the whole batch, the state's reset rows zeroed before their step (the state after every step, for
``unroll``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

from rlworkbench.components.layers import LSTM
from rlworkbench.spaces import BoolBox, FloatBox, Tuple
from rlworkbench.testing import ComponentTest

UNITS, FEATURES, BATCH, TIME = 4, 3, 4, 7
ATOL = 1e-5
STATE = Tuple(FloatBox(shape=(UNITS,)), FloatBox(shape=(UNITS,)), add_batch_rank=True)

# (inputs (1 or more rows, steps, n), h, c) -> (outputs, h, c), batch-major, float32 NumPy
Segment = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def spaces(time_major: bool) -> dict[str, object]:
    ranks = {"add_batch_rank": True, "add_time_rank": True, "time_major": time_major}
    return {"inputs": FloatBox(shape=(FEATURES,), **ranks), "initial_state": STATE, "resets": BoolBox(**ranks)}


@functools.cache
def ours(backend: str, time_major: bool) -> ComponentTest:
    """Our LSTM with random (not initial) biases, so every gate's bias shows in the numbers."""
    pytest.importorskip("tensorflow" if backend == "tf" else "torch")
    test = ComponentTest(LSTM(UNITS), spaces(time_major), backend=backend, seed=3)
    test.set_variable_values({"bias": np.random.default_rng(4).normal(size=4 * UNITS).astype(np.float32)})
    return test


def torch_segment(kernel: np.ndarray, recurrent_kernel: np.ndarray, bias: np.ndarray) -> Segment:
    torch = pytest.importorskip("torch")
    lstm = torch.nn.LSTM(FEATURES, UNITS, batch_first=True)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.from_numpy(kernel.T.copy()))
        lstm.weight_hh_l0.copy_(torch.from_numpy(recurrent_kernel.T.copy()))
        lstm.bias_ih_l0.copy_(torch.from_numpy(bias))
        lstm.bias_hh_l0.zero_()

    def run(x: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with torch.no_grad():
            outputs, (h, c) = lstm(torch.from_numpy(x), (torch.from_numpy(h)[None], torch.from_numpy(c)[None]))
        return outputs.numpy(), h[0].numpy(), c[0].numpy()

    return run


def keras_segment(kernel: np.ndarray, recurrent_kernel: np.ndarray, bias: np.ndarray) -> Segment:
    tf = pytest.importorskip("tensorflow")
    lstm = tf.keras.layers.LSTM(UNITS, return_sequences=True, return_state=True)
    lstm.build((None, None, FEATURES))
    lstm.set_weights([kernel, recurrent_kernel, bias])

    def run(x: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        outputs, h, c = lstm(tf.constant(x), initial_state=[tf.constant(h), tf.constant(c)])
        return outputs.numpy(), h.numpy(), c.numpy()

    return run


FRAMEWORKS = {"torch.nn.LSTM": torch_segment, "keras.layers.LSTM": keras_segment}


def split_at_resets(segment: Segment, x: np.ndarray, h0: np.ndarray, c0: np.ndarray,
                    resets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row by row, a segment per reset (from zeros), the first from the initial state: (outputs, h, c)."""
    outputs, hs, cs = np.zeros((*x.shape[:2], UNITS), np.float32), [], []
    for row in range(x.shape[0]):
        starts = sorted({0, *np.flatnonzero(resets[row])})
        h, c = h0[row:row + 1], c0[row:row + 1]
        for start, end in zip(starts, [*starts[1:], x.shape[1]]):
            if resets[row, start]:
                h, c = np.zeros_like(h), np.zeros_like(c)
            outputs[row, start:end], h, c = segment(x[row:row + 1, start:end], h, c)
        hs.append(h[0])
        cs.append(c[0])
    return outputs, np.stack(hs), np.stack(cs)


def step_by_step(segment: Segment, x: np.ndarray, h: np.ndarray, c: np.ndarray,
                 resets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step at a time for the whole batch, reset rows zeroed first: (outputs, hs, cs) of every step."""
    hs, cs = [], []
    for t in range(x.shape[1]):
        keep = ~resets[:, t, None]
        _, h, c = segment(x[:, t:t + 1], h * keep, c * keep)
        hs.append(h)
        cs.append(c)
    hs, cs = np.stack(hs, 1), np.stack(cs, 1)
    return hs, hs, cs


def inputs(given_state: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Batch-major inputs, initial state (zeros or random) and resets: a row without, one reset at step 0 (the
    initial state is dropped), one with two resets, one at the last step."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(BATCH, TIME, FEATURES)).astype(np.float32)
    h, c = (rng.normal(size=(2, BATCH, UNITS)).astype(np.float32) if given_state
            else np.zeros((2, BATCH, UNITS), np.float32))
    resets = np.zeros((BATCH, TIME), bool)
    resets[1, 0] = resets[2, 2] = resets[2, 5] = resets[3, TIME - 1] = True
    return x, h, c, resets


@pytest.mark.parametrize("given_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
@pytest.mark.parametrize("backend", ["torch", "tf"])
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_our_lstm_equals_the_frameworks_lstm_with_resets(framework, backend, time_major, given_state):
    test = ours(backend, time_major)
    segment = FRAMEWORKS[framework](*test.variable_values("kernel", "recurrent_kernel", "bias"))
    x, h, c, resets = inputs(given_state)

    def layout(value: np.ndarray) -> np.ndarray:
        return np.swapaxes(value, 0, 1) if time_major else value

    outputs, (final_h, final_c) = test.test(("apply_with_state", [layout(x), (h, c), layout(resets)]))
    expected, expected_h, expected_c = split_at_resets(segment, x, h, c, resets)
    np.testing.assert_allclose(layout(outputs), expected, atol=ATOL, rtol=1e-5)
    np.testing.assert_allclose(final_h, expected_h, atol=ATOL, rtol=1e-5)
    np.testing.assert_allclose(final_c, expected_c, atol=ATOL, rtol=1e-5)

    outputs, (hs, cs) = test.test(("unroll", [layout(x), (h, c), layout(resets)]))
    expected, expected_hs, expected_cs = step_by_step(segment, x, h, c, resets)
    np.testing.assert_allclose(layout(outputs), expected, atol=ATOL, rtol=1e-5)
    np.testing.assert_allclose(layout(hs), expected_hs, atol=ATOL, rtol=1e-5)
    np.testing.assert_allclose(layout(cs), expected_cs, atol=ATOL, rtol=1e-5)
    np.testing.assert_allclose(expected_hs[:, -1], expected_h, atol=ATOL)  # the two ways of running resets agree
    np.testing.assert_allclose(expected_cs[:, -1], expected_c, atol=ATOL)

    if not given_state:  # without resets, from zeros: apply
        outputs, (final_h, final_c) = test.test(("apply", layout(x)))
        expected, expected_h, expected_c = segment(x, h, c)
        np.testing.assert_allclose(layout(outputs), expected, atol=ATOL, rtol=1e-5)
        np.testing.assert_allclose((final_h, final_c), (expected_h, expected_c), atol=ATOL, rtol=1e-5)


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
def test_unroll_with_resets_torch_tf_parity(parity, time_major):
    """Our two backends: same variables, output spaces of every API method (``unroll``'s per-step states
    included) and outputs over sampled inputs, random resets among them."""
    pair = parity(lambda: LSTM(UNITS), spaces(time_major))
    assert pair.tf.graph.output_space("unroll")[1] == Tuple(FloatBox(shape=(UNITS,)), FloatBox(shape=(UNITS,)),
                                                            add_batch_rank=True, add_time_rank=True,
                                                            time_major=time_major)
