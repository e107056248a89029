"""The distribution ops: special functions against NumPy/math closed forms on both backends, and seeded,
correctly distributed gamma samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402

X = np.array([0.3, 0.5, 1.0, 2.5, 7.0, 40.0], np.float32)
U = np.array([-0.999, -0.5, 0.0, 0.25, 0.9], np.float32)


def _lgamma(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.lgamma)(x.astype(np.float64))


def _digamma(x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """ψ = d/dx log Γ, by a central difference of math.lgamma (error ~1e-10)."""
    x = x.astype(np.float64)
    return (_lgamma(x + h) - _lgamma(x - h)) / (2 * h)


def _run(framework: str, name: str, value: np.ndarray) -> np.ndarray:
    if framework == "torch":
        return getattr(torch_ops, name)(torch.as_tensor(value)).numpy()
    return getattr(tf_ops, name)(tf.constant(value)).numpy()


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("name, value, reference", [
    ("lgamma", X, _lgamma(X)),
    ("digamma", X, _digamma(X)),
    ("atanh", U, np.arctanh(U.astype(np.float64))),
])
def test_special_functions_match_closed_forms(framework, name, value, reference):
    result = _run(framework, name, value)
    assert result.dtype == np.float32 and result.shape == value.shape
    np.testing.assert_allclose(result, reference, rtol=2e-5, atol=2e-5)


def test_digamma_recurrence_on_both_backends():
    # ψ(x + 1) = ψ(x) + 1 / x
    for framework in ("torch", "tf"):
        np.testing.assert_allclose(_run(framework, "digamma", X + 1), _run(framework, "digamma", X) + 1 / X,
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_random_gamma_is_seeded_and_has_gamma_moments(framework):
    alpha = np.repeat(np.array([[0.5, 2.0, 9.0]], np.float32), 20000, axis=0)
    if framework == "torch":
        def draw(seed):
            return torch_ops.random_gamma(torch.Generator().manual_seed(seed), torch.as_tensor(alpha)).numpy()
    else:
        def draw(seed):
            return tf_ops.random_gamma(tf.random.Generator.from_seed(seed), tf.constant(alpha)).numpy()
    first, again, other = draw(3), draw(3), draw(4)
    assert first.shape == alpha.shape and first.dtype == np.float32 and np.all(first > 0)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    # Gamma(a, 1): mean a, variance a
    np.testing.assert_allclose(first.mean(axis=0), alpha[0], rtol=0.03)
    np.testing.assert_allclose(first.var(axis=0), alpha[0], rtol=0.06)


def test_random_gamma_advances_the_generator():
    alpha = np.full((4,), 2.0, np.float32)
    generator = tf.random.Generator.from_seed(1)
    assert not np.array_equal(tf_ops.random_gamma(generator, tf.constant(alpha)).numpy(),
                              tf_ops.random_gamma(generator, tf.constant(alpha)).numpy())
    torch_generator = torch.Generator().manual_seed(1)
    assert not np.array_equal(torch_ops.random_gamma(torch_generator, torch.as_tensor(alpha)).numpy(),
                              torch_ops.random_gamma(torch_generator, torch.as_tensor(alpha)).numpy())
