"""The ``nn`` operations (conv2d, max_pool2d, scan): same numbers on both backends, TF's "same" padding on torch."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402

RNG = np.random.default_rng(0)

# (image h, w, c), (kernel h, w), strides, padding — odd total "same" padding on some axes
CONVS = [((7, 6, 2), (3, 3), (1, 1), "valid"), ((7, 6, 2), (3, 2), (2, 1), "valid"),
         ((8, 8, 3), (8, 8), (1, 1), "valid"), ((7, 6, 2), (3, 3), (1, 1), "same"),
         ((7, 6, 2), (3, 3), (2, 2), "same"), ((6, 6, 1), (4, 2), (1, 3), "same"),
         ((5, 9, 2), (1, 1), (2, 2), "same"), ((4, 4, 2), (5, 5), (1, 1), "same")]


def _both(name, *args):
    """Runs op ``name`` on torch and on TF with the NumPy ``args`` converted; returns the two results as NumPy."""
    def run(ops, to):
        return getattr(ops, name)(*[to(a) if isinstance(a, np.ndarray) else a for a in args])

    return run(torch_ops, torch.as_tensor).numpy(), run(tf_ops, tf.constant).numpy()


@pytest.mark.parametrize("image, window, strides, padding", CONVS)
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv2d_gives_the_same_numbers(image, window, strides, padding, with_bias):
    x = RNG.normal(size=(3, *image)).astype(np.float32)
    kernel = RNG.normal(size=(*window, image[2], 4)).astype(np.float32)
    bias = RNG.normal(size=4).astype(np.float32) if with_bias else None
    ours, theirs = _both("conv2d", x, kernel, bias, strides, padding)
    size = [-(-d // s) if padding == "same" else (d - k) // s + 1 for d, k, s in zip(image, window, strides)]
    assert ours.shape == theirs.shape == (3, *size, 4)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("image, window, strides, padding", CONVS[:-1])
def test_max_pool2d_gives_the_same_numbers(image, window, strides, padding):
    x = RNG.normal(size=(2, *image)).astype(np.float32) - 3.0  # mostly negative: zero padding would win
    ours, theirs = _both("max_pool2d", x, window, strides, padding)
    np.testing.assert_array_equal(ours, theirs)
    assert (ours < 0).mean() > 0.9


def test_same_padding_is_asymmetric_like_tensorflow():
    """Width 4, kernel 1x2, stride 1: one column of padding, after the image (not before)."""
    x = np.arange(1.0, 5.0, dtype=np.float32).reshape(1, 1, 4, 1)
    kernel = np.array([1.0, 100.0], np.float32).reshape(1, 2, 1, 1)
    for out in _both("conv2d", x, kernel, None, (1, 1), "same"):
        np.testing.assert_array_equal(out.reshape(-1), [201.0, 302.0, 403.0, 4.0])


def _step(carry, x):
    total, decayed = carry
    return total + x, 0.5 * decayed + x * total


def test_scan_carries_nested_state_and_stacks_every_step():
    elems = RNG.normal(size=(5, 2, 3)).astype(np.float32)
    init = (np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32))
    expected, carry = [], init
    for x in elems:
        carry = _step(carry, x)
        expected.append(carry)
    for ops, to in ((torch_ops, torch.as_tensor), (tf_ops, tf.constant)):
        totals, decays = ops.scan(_step, to(elems), tuple(to(v) for v in init))
        np.testing.assert_allclose(np.asarray(totals), np.stack([e[0] for e in expected]), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(decays), np.stack([e[1] for e in expected]), rtol=1e-5)
    single = [np.asarray(ops.scan(lambda c, x: c * x, to(elems), to(np.ones((2, 3), np.float32))))
              for ops, to in ((torch_ops, torch.as_tensor), (tf_ops, tf.constant))]
    np.testing.assert_allclose(single[0], np.cumprod(elems, axis=0), rtol=1e-5)
    np.testing.assert_allclose(single[1], single[0], rtol=1e-5)


def test_scan_runs_over_a_time_length_unknown_while_tracing():
    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def running_sum(elems):
        return tf_ops.scan(lambda c, x: c + x, elems, tf.zeros(tf.shape(elems)[1:]))

    for steps in (1, 4):
        elems = RNG.normal(size=(steps, 2, 3)).astype(np.float32)
        np.testing.assert_allclose(running_sum(elems).numpy(), np.cumsum(elems, 0), rtol=1e-5)
    empty = torch_ops.scan(lambda c, x: c + x, torch.zeros(0, 2, 3), torch.zeros(2, 3))
    assert tuple(empty.shape) == (0, 2, 3)


def test_torch_gradients_of_a_loss_that_depends_on_no_variable_are_zeros():
    """As on TF: a build probe may feed a loss values sampled from spaces, which depend on no variable."""
    variable = torch.nn.Parameter(torch.ones(2, 3))
    grads = torch_ops.gradients(torch.as_tensor(RNG.normal(size=4)).sum(), [variable])
    assert len(grads) == 1 and tuple(grads[0].shape) == (2, 3) and not grads[0].any()


def test_lstm_cell_gives_the_same_numbers_as_the_gate_formula_on_both_backends():
    rng = np.random.default_rng(3)
    x, h, c = (rng.normal(size=shape).astype(np.float32) for shape in ((5, 3), (5, 4), (5, 4)))
    kernel, recurrent, bias = (rng.normal(size=shape).astype(np.float32) for shape in ((3, 16), (4, 16), (16,)))
    z = x @ kernel + h @ recurrent + bias
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c_next = sigmoid(z[:, 4:8]) * c + sigmoid(z[:, :4]) * np.tanh(z[:, 8:12])
    h_next = sigmoid(z[:, 12:]) * np.tanh(c_next)
    for ops, to in ((torch_ops, torch.as_tensor), (tf_ops, tf.convert_to_tensor)):
        got = ops.lstm_cell(to(x), (to(h), to(c)), to(kernel), to(recurrent), to(bias))
        np.testing.assert_allclose(np.asarray(got[0]), h_next, atol=1e-5)
        np.testing.assert_allclose(np.asarray(got[1]), c_next, atol=1e-5)
