"""Neural-network operations: 2-D convolution and max pooling on NHWC images, an LSTM step, a scan over time.

Images are ``(batch, height, width, channels)`` and kernels ``(kh, kw, in, out)`` as on TensorFlow, so weights
copy between backends unchanged; PyTorch's NCHW primitives are wrapped with transposes. ``"same"`` padding
follows TensorFlow exactly: ``out = ceil(in / stride)`` and the odd pixel of padding goes after (bottom/right).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F

from rlworkbench import nest

Tensor = torch.Tensor


def _same_padding(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """TensorFlow's "same" padding of one spatial axis: (before, after), the larger half after."""
    total = max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _padded_nchw(x: Tensor, window: tuple[int, int], strides: tuple[int, int], padding: str,
                 value: float = 0.0) -> Tensor:
    """``x`` (NHWC) as NCHW, padded on the spatial axes as TensorFlow's ``padding`` would."""
    x = x.permute(0, 3, 1, 2)
    if padding == "same":
        top, bottom = _same_padding(x.shape[2], window[0], strides[0])
        left, right = _same_padding(x.shape[3], window[1], strides[1])
        if top or bottom or left or right:
            x = F.pad(x, (left, right, top, bottom), value=value)
    return x


def conv2d(x: Tensor, kernel: Tensor, bias: Tensor | None, strides: Sequence[int] = (1, 1),
           padding: str = "valid") -> Tensor:
    """2-D convolution (cross-correlation) of NHWC ``x`` with a ``(kh, kw, in, out)`` kernel, plus ``bias``.

    ``padding`` is ``"valid"`` (no padding) or ``"same"`` (TensorFlow's: output size ``ceil(in / stride)``).
    """
    strides = (int(strides[0]), int(strides[1]))
    nchw = _padded_nchw(x, (kernel.shape[0], kernel.shape[1]), strides, padding)
    out = F.conv2d(nchw, kernel.permute(3, 2, 0, 1), bias, stride=strides)
    return out.permute(0, 2, 3, 1)


def max_pool2d(x: Tensor, pool_size: Sequence[int], strides: Sequence[int], padding: str = "valid") -> Tensor:
    """Max pooling of NHWC ``x`` over ``pool_size`` windows; ``"same"`` pads as TensorFlow (padding never wins)."""
    window, strides = (int(pool_size[0]), int(pool_size[1])), (int(strides[0]), int(strides[1]))
    nchw = _padded_nchw(x, window, strides, padding, value=-math.inf)
    return F.max_pool2d(nchw, window, strides).permute(0, 2, 3, 1)


def lstm_cell(x: Tensor, state: tuple[Tensor, Tensor], kernel: Tensor, recurrent_kernel: Tensor,
              bias: Tensor) -> tuple[Tensor, Tensor]:
    """One LSTM step with PyTorch's fused cell (same gate order as ours: kernels transposed, one bias)."""
    h, c = torch.lstm_cell(x, (state[0], state[1]), kernel.t(), recurrent_kernel.t(), bias, None)
    return h, c


def scan(fn: Callable[[Any, Tensor], Any], elems: Tensor, initializer: Any) -> Any:
    """``tf.scan``: ``carry = fn(carry, elems[t])`` for every ``t`` of axis 0, from ``initializer``; returns
    every step's carry stacked on a new axis 0 (nested like ``initializer``)."""
    carry, steps = initializer, []
    for elem in torch.unbind(elems, 0):
        carry = fn(carry, elem)
        steps.append(carry)
    if not steps:
        return nest.map_structure(lambda leaf: leaf.new_zeros((0, *leaf.shape)), initializer)
    if type(initializer) is tuple and all(isinstance(leaf, Tensor) for leaf in initializer):  # the usual (h, c)
        return tuple(torch.stack(leaves, 0) for leaves in zip(*steps))
    return nest.map_structure(lambda *leaves: torch.stack(leaves, 0), *steps)


__all__ = ["conv2d", "lstm_cell", "max_pool2d", "scan"]
