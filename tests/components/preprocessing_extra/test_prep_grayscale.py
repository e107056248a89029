"""GrayScale: weighted channel sums against NumPy, rank kept or dropped, bounds, nested and ranked inputs."""

from __future__ import annotations

import numpy as np
import pytest
from prep_numpy import GREY_WEIGHTS

from rlworkbench.components import GrayScale, from_spec
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest


@pytest.mark.parametrize("keep_rank", [False, True])
def test_rgb_pixels_to_grey(backend, keep_rank):
    space = IntBox(0, 256, shape=(4, 5, 3), dtype="uint8", add_batch_rank=True, add_time_rank=True)
    test = ComponentTest(GrayScale(keep_rank=keep_rank), {"inputs": space}, backend=backend)
    x = space.sample((2, 3), seed=1)
    expected = (x.astype(np.float64) * GREY_WEIGHTS).sum(-1)
    out = test.test(("preprocess", x), expected_outputs=expected[..., None] if keep_rank else expected, decimals=3)
    assert out.dtype == np.float32
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox(0.0, 255.0, shape=(4, 5, 1) if keep_rank else (4, 5), add_batch_rank=True,
                                 add_time_rank=True)
    white = np.full((1, 1, 4, 5, 3), 255, np.uint8)
    out_space.check(test.test(("preprocess", white)))  # rounding never leaves the bounds


def test_custom_weights_on_a_dict_with_unbounded_leaves(backend):
    weights = [0.5, -1.0]
    space = Dict(a=FloatBox(-1.0, 2.0, shape=(3, 2)), b=FloatBox(shape=(2,), dtype="float64"), add_batch_rank=True)
    test = ComponentTest(from_spec({"type": "grayscale", "weights": weights}), {"inputs": space}, backend=backend)
    x = space.sample(4, seed=2)
    test.test(("preprocess", x), expected_outputs={k: (v * weights).sum(-1) for k, v in x.items()})
    # a: 0.5 * [-1, 2] + -1 * [-1, 2] spans [-0.5 - 2, 1 + 1]; b is unbounded and stays float64
    assert test.graph.output_space("preprocess") == Dict(a=FloatBox(-2.5, 2.0, shape=(3,)),
                                                         b=FloatBox(dtype="float64"), add_batch_rank=True)
    assert test.component.name == "grayscale"


def test_errors(backend):
    with pytest.raises(ConfigError) as info:
        GrayScale(weights=[])
    assert info.value.key_path == "weights"
    space = Dict(rgb=FloatBox(shape=(2, 3)), rgba=FloatBox(shape=(2, 4)), add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(GrayScale(), {"inputs": space}, backend=backend)
    assert info.value.key_path == "rgba" and "(..., 3)" in str(info.value.expected)
