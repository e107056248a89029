"""ImageResize: bilinear with half-pixel centres against NumPy, torch equal to TF, ranks and bounds kept."""

from __future__ import annotations

import numpy as np
import pytest
from prep_numpy import bilinear_resize

from rlworkbench.components import ImageResize
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

PIXELS = IntBox(0, 256, shape=(7, 9, 3), dtype="uint8")


@pytest.mark.parametrize("height, width", [(4, 5), (11, 13), (7, 3)], ids=["down", "up", "mixed"])
def test_resize_matches_numpy_and_keeps_bounds(backend, height, width):
    space = PIXELS.with_batch_rank()
    test = ComponentTest(ImageResize(height, width), {"inputs": space}, backend=backend)
    x = space.sample(3, seed=height)
    out = test.test(("preprocess", x), expected_outputs=bilinear_resize(x, height, width), decimals=3)
    assert out.dtype == np.float32
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox(0.0, 255.0, shape=(height, width, 3), add_batch_rank=True)
    out_space.check(out)


def test_batch_time_ranks_and_grey_images_in_a_dict(backend):
    space = Dict(rgb=FloatBox(-1.0, 1.0, shape=(6, 6, 2)), grey=FloatBox(shape=(5, 8)), add_batch_rank=True,
                 add_time_rank=True, time_major=True)
    test = ComponentTest(ImageResize(3, 4), {"inputs": space}, backend=backend)
    x = space.sample((2, 3), seed=5)  # time-major: (3, 2, ...)
    rgb = bilinear_resize(x["rgb"].reshape(6, 6, 6, 2), 3, 4).reshape(3, 2, 3, 4, 2)
    grey = bilinear_resize(x["grey"].reshape(6, 5, 8, 1), 3, 4).reshape(3, 2, 3, 4)
    test.test(("preprocess", x), expected_outputs={"rgb": rgb, "grey": grey}, decimals=5)
    ranks = {"add_batch_rank": True, "add_time_rank": True, "time_major": True}
    assert test.graph.output_space("preprocess") == Dict(rgb=FloatBox(-1.0, 1.0, shape=(3, 4, 2)),
                                                         grey=FloatBox(shape=(3, 4)), **ranks)


def test_torch_and_tf_give_the_same_pixels(backend):
    """Each run builds both backends; ``backend`` picks the image kind (uint8 pixels or floats)."""
    space = (PIXELS if backend == "torch" else FloatBox(shape=(7, 9, 3))).with_batch_rank()
    x = space.sample(2, seed=9)
    outs = [ComponentTest(ImageResize(5, 6), {"inputs": space}, backend=name).test(("preprocess", x))
            for name in ("torch", "tf")]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-4)


def test_errors(backend):
    with pytest.raises(ConfigError) as info:
        ImageResize(0, 4)
    assert info.value.key_path == "height/width"
    space = Dict(ok=PIXELS, flat=FloatBox(shape=(4,)), add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(ImageResize(2, 2), {"inputs": space}, backend=backend)
    assert (info.value.key_path, info.value.argument) == ("flat", "inputs")
