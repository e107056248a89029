"""Conv2D: NumPy convolution for valid/same padding and strides, TF's asymmetric "same", ranks, errors."""

from __future__ import annotations

import functools

import layers_numpy as ref
import numpy as np
import pytest

from rlworkbench.components import from_spec
from rlworkbench.components.layers import Conv2D
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

IMAGE = (7, 6, 2)
RANKS = {
    "none": (None, {}),
    "batch": (3, {"add_batch_rank": True}),
    "batch_time": ((2, 3), {"add_batch_rank": True, "add_time_rank": True}),
    "time_major": ((2, 3), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
}
# (kernel_size, strides, padding): "same" cases include odd total padding on an axis (the extra pixel goes after)
CASES = [(3, 1, "valid"), (3, 2, "valid"), ((3, 2), (2, 1), "valid"), (3, 1, "same"), (3, 2, "same"),
         ((4, 2), 1, "same"), (5, 3, "same")]


@functools.cache
def built(backend: str, kernel_size, strides, padding: str, ranks: str = "batch", activation=None) -> ComponentTest:
    """One build per configuration and backend, shared by the tests below; biases random (not zero)."""
    conv = Conv2D(4, kernel_size, strides=strides, padding=padding, activation=activation)
    test = ComponentTest(conv, {"inputs": FloatBox(shape=IMAGE, **RANKS[ranks][1])}, backend=backend)
    test.set_variable_values({"bias": np.random.default_rng(0).normal(size=4).astype(np.float32)})
    return test


def pairs(value) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else value


@pytest.mark.parametrize("kernel_size, strides, padding", CASES)
def test_conv2d_matches_numpy(backend, kernel_size, strides, padding):
    test = built(backend, kernel_size, strides, padding)
    x = FloatBox(shape=IMAGE, add_batch_rank=True).sample(3, seed=1)
    kernel, bias = test.variable_values("kernel", "bias")
    expected = ref.conv2d(x, kernel, bias, pairs(strides), padding)
    out = test.test(("apply", x), expected_outputs=expected, decimals=4)
    assert out.dtype == np.float32
    assert test.graph.output_space("apply") == FloatBox(shape=expected.shape[1:], add_batch_rank=True)
    if padding == "same":
        assert expected.shape[1:3] == tuple(-(-d // s) for d, s in zip(IMAGE[:2], pairs(strides)))


@pytest.mark.parametrize("ranks", list(RANKS))
def test_conv2d_folds_batch_and_time_ranks(backend, ranks):
    test = built(backend, 3, 2, "same", ranks, activation="relu")
    size, flags = RANKS[ranks]
    space = FloatBox(shape=IMAGE, **flags)
    x = space.sample(size, seed=2)
    kernel, bias = test.variable_values("kernel", "bias")
    expected = np.maximum(ref.images(ref.conv2d, x, space.num_extra_ranks, kernel, bias, (2, 2), "same"), 0.0)
    test.test(("apply", x), expected_outputs=expected, decimals=4)
    assert test.graph.output_space("apply") == FloatBox(shape=(4, 3, 4), **flags)


def test_conv2d_same_padding_puts_the_odd_pixel_after(backend):
    """Width 3, kernel width 2, stride 1: TF pads (0, 1), so out = [x0 + 10 x1, x1 + 10 x2, x2]."""
    kernel = np.array([1.0, 10.0]).reshape(1, 2, 1, 1)
    conv = Conv2D(1, (1, 2), padding="same", use_bias=False, kernel_initializer=kernel)
    test = ComponentTest(conv, {"inputs": FloatBox(shape=(1, 3, 1), add_batch_rank=True)}, backend=backend)
    x = np.array([1.0, 2.0, 3.0], np.float32).reshape(1, 1, 3, 1)
    test.test(("apply", x), expected_outputs=np.array([21.0, 32.0, 3.0]).reshape(1, 1, 3, 1))


def test_conv2d_variables_and_spec(backend):
    conv = from_spec({"type": "conv2d", "filters": 5, "kernel_size": [3, 2], "name": "conv"})
    test = ComponentTest(conv, {"inputs": FloatBox(shape=IMAGE, add_batch_rank=True)}, backend=backend)
    weights = test.variable_values()
    assert list(weights) == ["kernel", "bias"] and weights["kernel"].dtype == np.float32
    assert weights["kernel"].shape == (3, 2, 2, 5) and weights["bias"].shape == (5,) and not weights["bias"].any()
    limit = np.sqrt(6.0 / (3 * 2 * 2 + 3 * 2 * 5))  # glorot with receptive-field fans
    assert np.abs(weights["kernel"]).max() <= limit and np.ptp(weights["kernel"]) > limit / 2


@pytest.mark.parametrize("kwargs, argument", [
    ({"filters": 0, "kernel_size": 3}, "filters"),
    ({"filters": 2, "kernel_size": (3,)}, "kernel_size"),
    ({"filters": 2, "kernel_size": 0}, "kernel_size"),
    ({"filters": 2, "kernel_size": 3, "strides": (1, -1)}, "strides"),
    ({"filters": 2, "kernel_size": 3, "padding": "SAME"}, "padding"),
])
def test_conv2d_config_errors(backend, kwargs, argument):
    with pytest.raises(ConfigError) as info:
        Conv2D(**kwargs, name="c")
    assert (info.value.component, info.value.argument) == ("c", argument) and info.value.got is not None


def test_conv2d_unknown_activation_is_a_config_error(backend):
    with pytest.raises(ConfigError) as info:
        ComponentTest(Conv2D(2, 3, activation="gelu6"), {"inputs": FloatBox(shape=IMAGE, add_batch_rank=True)},
                      backend=backend)
    assert (info.value.component, info.value.argument, info.value.got) == ("conv2d", "activation", "'gelu6'")


@pytest.mark.parametrize("space, message", [
    (IntBox(255, shape=IMAGE, add_batch_rank=True), "float NHWC"),
    (FloatBox(shape=(7, 6), add_batch_rank=True), "float NHWC"),
    (FloatBox(shape=(2, 6, 1), add_batch_rank=True), "smaller than the window"),
    (FloatBox(shape=(7, 6, 0), add_batch_rank=True), "zero-size"),
    (FloatBox(shape=(0, 6, 2), add_batch_rank=True), "zero-size"),
])
def test_conv2d_space_errors_name_the_argument(backend, space, message):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Conv2D(2, 3, name="conv"), {"inputs": space}, backend=backend)
    assert (info.value.component, info.value.argument) == ("conv", "inputs") and message in str(info.value)
    assert info.value.expected is not None and info.value.got is not None


def test_conv2d_rejects_images_of_another_shape(backend):
    test = built(backend, 3, 1, "valid")
    with pytest.raises(SpaceError) as info:
        test.test(("apply", np.zeros((2, 6, 7, 2), np.float32)))
    assert (info.value.api_method, info.value.argument) == ("apply", "inputs")
