"""NumPy references for the layer tests: convolution, max pooling (TensorFlow's padding) and an LSTM (with resets)."""

from __future__ import annotations

import math

import numpy as np


def same_padding(size: int, window: int, stride: int) -> tuple[int, int]:
    """TensorFlow's documented "same" padding: output ceil(size / stride), the odd pixel after."""
    total = max((math.ceil(size / stride) - 1) * stride + window - size, 0)
    return total // 2, total - total // 2


def _windows(x: np.ndarray, window: tuple[int, int], strides: tuple[int, int], padding: str, fill: float):
    """Yields (i, j, patch) for every output position of NHWC ``x``; patches are (n, kh, kw, c)."""
    if padding == "same":
        pads = [same_padding(x.shape[1 + a], window[a], strides[a]) for a in (0, 1)]
        x = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)), constant_values=fill)
    out_h = (x.shape[1] - window[0]) // strides[0] + 1
    out_w = (x.shape[2] - window[1]) // strides[1] + 1
    for i in range(out_h):
        for j in range(out_w):
            yield i, j, x[:, i * strides[0]:i * strides[0] + window[0], j * strides[1]:j * strides[1] + window[1]]


def conv2d(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray | None, strides=(1, 1), padding="valid"):
    """Cross-correlation of NHWC ``x`` with a (kh, kw, in, out) kernel, in float64."""
    x, kernel = x.astype(np.float64), kernel.astype(np.float64)
    results = {(i, j): np.tensordot(patch, kernel, axes=([1, 2, 3], [0, 1, 2]))
               for i, j, patch in _windows(x, kernel.shape[:2], strides, padding, 0.0)}
    out_h, out_w = max(i for i, _ in results) + 1, max(j for _, j in results) + 1
    out = np.stack([np.stack([results[(i, j)] for j in range(out_w)], 1) for i in range(out_h)], 1)
    return out if bias is None else out + bias


def max_pool2d(x: np.ndarray, pool_size=(2, 2), strides=(2, 2), padding="valid"):
    results = {(i, j): patch.max(axis=(1, 2)) for i, j, patch in _windows(x, pool_size, strides, padding, -np.inf)}
    out_h, out_w = max(i for i, _ in results) + 1, max(j for _, j in results) + 1
    return np.stack([np.stack([results[(i, j)] for j in range(out_w)], 1) for i in range(out_h)], 1)


def images(fn, x: np.ndarray, extra_ranks: int, *args, **kwargs) -> np.ndarray:
    """``fn`` applied to images with ``extra_ranks`` leading batch/time dims (folded, then unfolded)."""
    leading, image = x.shape[:extra_ranks], x.shape[extra_ranks:]
    out = fn(x.reshape((-1, *image)), *args, **kwargs)
    return out.reshape(leading + out.shape[1:])


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def lstm(x: np.ndarray, h: np.ndarray, c: np.ndarray, kernel, recurrent_kernel, bias, time_major=False,
         resets: np.ndarray | None = None):
    """Keras' LSTM with gates [i, f, g, o]: returns (outputs with x's layout, (h, c) final); ``resets`` (bools
    with x's batch and time ranks) zero a row's state before the steps they mark."""
    outputs, (hs, cs) = lstm_unroll(x, h, c, kernel, recurrent_kernel, bias, time_major, resets)
    last = -1 if time_major else (slice(None), -1)
    return outputs, (hs[last], cs[last])


def lstm_unroll(x: np.ndarray, h: np.ndarray, c: np.ndarray, kernel, recurrent_kernel, bias, time_major=False,
                resets: np.ndarray | None = None):
    """As :func:`lstm`, with the state after every step: (outputs, (hs, cs)), all in x's layout."""
    x = x.astype(np.float64) if time_major else np.swapaxes(x, 0, 1).astype(np.float64)
    if resets is None:  # x is time-major from here on, and so is keep
        keep = np.ones(x.shape[:2] + (1,), bool)
    else:
        keep = ~np.asarray(resets, bool)[..., None] if time_major else ~np.swapaxes(resets, 0, 1)[..., None]
    h, c, hs, cs = h.astype(np.float64), c.astype(np.float64), [], []
    for x_t, keep_t in zip(x, keep):
        h, c = h * keep_t, c * keep_t
        i, f, g, o = np.split(x_t @ kernel + h @ recurrent_kernel + bias, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        hs.append(h)
        cs.append(c)
    hs, cs = np.stack(hs, 0 if time_major else 1), np.stack(cs, 0 if time_major else 1)
    return hs, (hs, cs)
