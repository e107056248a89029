"""Parity of the extra preprocessors: the stateless ones (ConvertType, GrayScale, ImageResize, Normalize,
Transpose) over batch and time ranks and nested inputs, and the stateful ones (MeanStdNormalize, FrameStack,
DictPreprocessorStack), whose outputs and state variables must agree after the same sequence of
``preprocess``/``reset`` calls."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import (
    ConvertType,
    DictPreprocessorStack,
    FrameStack,
    GrayScale,
    ImageResize,
    MeanStdNormalize,
    Normalize,
    Transpose,
)
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple

PIXELS = IntBox(0, 256, shape=(5, 6, 3), dtype="uint8")


def signed(**ranks):
    return Dict(a=FloatBox(-100.0, 100.0, shape=(2,)), b=Tuple(IntBox(-5, 10, shape=(3,)), BoolBox((2,))),
                c=IntBox(4, dtype="int32"), **ranks)


def unsigned(**ranks):
    return Dict(a=FloatBox(0.0, 255.0, shape=(2,)), b=IntBox(0, 256, shape=(3,), dtype="int32"),
                c=BoolBox((2,)), **ranks)


def images(**ranks):
    return Dict(pixels=PIXELS, colours=FloatBox(-1.0, 1.0, shape=(4, 3, 3)), unbounded=FloatBox(shape=(3, 4, 3)),
                **ranks)


def resizable(**ranks):
    return Dict(pixels=PIXELS, grey=FloatBox(shape=(5, 8)), wide=FloatBox(0.0, 1.0, shape=(4, 4, 2), dtype="float64"),
                **ranks)


def bounded(**ranks):
    low = np.array([-1.0, 0.0, 2.0], np.float32)
    return Dict(pixels=PIXELS, per_element=FloatBox(low, low + np.array([2.0, 0.0, 5.0], np.float32)),
                wide=FloatBox(-3.0, 3.0, shape=(2,), dtype="float64"), ints=IntBox(-4, 4, shape=(2,)), **ranks)


def three_axes(**ranks):
    low = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return Dict(box=FloatBox(low, low + 1.0), ints=IntBox(5, shape=(2, 1, 3)), flags=BoolBox((1, 2, 2)), **ranks)


# name -> (factory, input space given ranks, atol)
STATELESS = {
    **{f"convert_{dtype}": (lambda d=dtype: ConvertType(d), signed, 1e-5)
       for dtype in ("float16", "float32", "float64", "int8", "int32", "int64", "bool")},
    "convert_uint8": (lambda: ConvertType("uint8"), unsigned, 1e-5),
    "grayscale": (GrayScale, images, 1e-4),
    "grayscale_keep_rank": (lambda: GrayScale((0.5, 0.25, 0.25), keep_rank=True), images, 1e-4),
    "image_resize_down": (lambda: ImageResize(3, 4), resizable, 1e-4),
    "image_resize_up": (lambda: ImageResize(9, 11), resizable, 1e-4),
    "normalize": (Normalize, bounded, 1e-5),
    "transpose": (lambda: Transpose((2, 0, 1)), three_axes, 1e-5),
}


@pytest.mark.parametrize("case", list(STATELESS))
def test_stateless_preprocessor(parity, ranks, case):
    make, space, atol = STATELESS[case]
    pair = parity(make, {"inputs": space(**ranks)}, atol=atol)
    assert pair.tf.variable_values() == {}


def run_sequence(pair, space, batch: int, resets: tuple[int, ...] = (2,), steps: int = 4) -> None:
    """``preprocess`` on ``steps`` batches, ``reset`` before the steps in ``resets``; same outputs and state."""
    size = (batch, 2) if space.has_time_rank else batch if space.has_batch_rank else None
    for step in range(steps):
        if step in resets:
            pair.run("reset")
        pair.run("preprocess", space.sample(size, seed=50 + step))
        pair.assert_same_weights()


@pytest.mark.parametrize("update, reset_statistics", [(True, True), (True, False), (False, True)])
def test_mean_std_normalize(parity, ranks, update, reset_statistics):
    space = Dict(a=FloatBox(-3.0, 5.0, shape=(2,)), b=IntBox(0, 10, shape=(2, 2)),
                 c=FloatBox(shape=(3,), dtype="float64"), **ranks)
    pair = parity(lambda: MeanStdNormalize(update=update, reset_statistics=reset_statistics),
                  {"inputs": space}, atol=1e-4)  # sampled calls update the statistics on both
    run_sequence(pair, space, batch=3)
    count, rows = pair.assert_same_weights()["count/a"], 6 if space.has_time_rank else 3  # rows per call
    if not update:
        assert count == 0
    elif reset_statistics:
        assert count == 2 * rows  # the two calls since the reset
    else:
        assert count > 4 * rows  # every call, the sampled ones included


@pytest.mark.parametrize("add_rank, space", [
    (False, IntBox(0, 256, shape=(4, 4, 1), dtype="uint8", add_batch_rank=True)),
    (True, Dict(obs=FloatBox(-1.0, 1.0, shape=(2, 2)), done=BoolBox((3,)), add_batch_rank=True)),
    (False, FloatBox(shape=(3,))),  # single frames, no batch rank
    (True, Dict(obs=FloatBox(-1.0, 1.0, shape=(2,)), done=BoolBox())),
], ids=["image", "dict", "single_frame", "single_dict"])
def test_frame_stack(parity, add_rank, space):
    pair = parity(lambda: FrameStack(3, add_rank=add_rank, batch_size=2), {"inputs": space},
                  batch_sizes=(2,))  # the frames are variables: exactly batch_size rows
    run_sequence(pair, space, batch=2, resets=(1, 3), steps=5)


def test_dict_preprocessor_stack_with_state(parity):
    space = Dict(image=PIXELS, vector=FloatBox(-1.0, 1.0, shape=(3,)), mask=IntBox(2, shape=(2,)),
                 add_batch_rank=True)
    pair = parity(lambda: DictPreprocessorStack({
        "image": [{"type": "grayscale"}, {"type": "normalize"},
                  {"type": "frame_stack", "num_frames": 2, "add_rank": True, "batch_size": 2}],
        "vector": [{"type": "mean_std_normalize"}, {"type": "multiply", "factor": 3.0}],
    }), {"inputs": space}, batch_sizes=(2,), atol=1e-4)
    run_sequence(pair, space, batch=2, resets=(0, 2), steps=4)
    assert sorted(pair.tf.variable_values()) == ["image/frame_stack_2/frames", "image/frame_stack_2/fresh",
                                                 "vector/mean_std_normalize_0/count",
                                                 "vector/mean_std_normalize_0/mean", "vector/mean_std_normalize_0/var"]


def test_dict_preprocessor_stack_over_ranks(parity, ranks):
    space = Dict(a=FloatBox(shape=(2, 3)), b=IntBox(-3, 3, shape=(2,)), c=BoolBox(), **ranks)
    parity(lambda: DictPreprocessorStack({
        "a": [{"type": "transpose", "perm": [1, 0]}, {"type": "clip", "low": -0.5, "high": 0.5}],
        "b": {"type": "convert_type", "dtype": "float32"},
    }), {"inputs": space})
