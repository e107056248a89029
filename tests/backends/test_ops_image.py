"""Image ops on both backends: ``resize_bilinear`` gives the same pixels on torch and TF (half-pixel centres)."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
@pytest.mark.parametrize("size", [(3, 4), (13, 17), (6, 8), (1, 1)], ids=["down", "up", "same", "one-pixel"])
def test_resize_bilinear_is_the_same_on_both(dtype, size):
    images = (RNG.uniform(0, 255, size=(2, 6, 8, 3))).astype(dtype)
    ours = torch_ops.resize_bilinear(torch.as_tensor(images), *size).numpy()
    theirs = tf_ops.resize_bilinear(tf.constant(images), *size).numpy()
    assert ours.dtype == theirs.dtype == np.float32 and ours.shape == theirs.shape == (2, *size, 3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-4)
    if size == (6, 8):
        np.testing.assert_allclose(ours, images.astype(np.float32), atol=1e-4)  # same size: the image itself
