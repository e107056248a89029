"""Parity of the preprocessors on boxes and nested Dict/Tuple inputs, over batch and time ranks."""

from __future__ import annotations

import pytest

from rlworkbench.components import Clip, Divide, Flatten, Multiply, OneHot, Reshape
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple


def numbers(**ranks):
    return Dict(a=FloatBox(-3.0, 3.0, shape=(2,)), b=Tuple(IntBox(-5, 10, shape=(3,)), FloatBox(shape=(2, 2))),
                c=IntBox(4, dtype="int32"), **ranks)


def six_elements(**ranks):
    return Dict(a=FloatBox(shape=(6,)), b=Tuple(IntBox(4, shape=(2, 3)), BoolBox((3, 2))), **ranks)


def mixed(**ranks):
    return Dict(image=FloatBox(0.0, 1.0, shape=(2, 2, 2)), category=IntBox(3, shape=(2,)), flag=BoolBox((2,)),
                more=Tuple(IntBox(5)), **ranks)


def categories(**ranks):
    return Dict(a=IntBox(3), b=Tuple(IntBox(2, 6, shape=(2,)), IntBox(4, dtype="int32")), **ranks)


CASES = {
    "clip": (lambda: Clip(-1.5, 2.5), numbers),
    "clip_box": (lambda: Clip(0.0, 0.5), lambda **r: FloatBox(shape=(3,), **r)),
    "multiply": (lambda: Multiply(2.5), numbers),
    "multiply_negative": (lambda: Multiply(-0.5), numbers),
    "divide": (lambda: Divide(4.0), numbers),
    "reshape": (lambda: Reshape((3, 2)), six_elements),
    "flatten": (Flatten, mixed),
    "flatten_keeps_categories": (lambda: Flatten(flatten_categories=False), mixed),
    "one_hot": (OneHot, categories),
    "one_hot_box": (OneHot, lambda **r: IntBox(-2, 3, shape=(2,), **r)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_preprocessor(parity, ranks, case):
    make, space = CASES[case]
    pair = parity(make, {"inputs": space(**ranks)})
    assert pair.tf.variable_values() == {}
