"""Operations for probability distributions: special functions and gamma sampling."""

from __future__ import annotations

from typing import TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def lgamma(x: Tensor) -> Tensor:
    """``log |Γ(x)|`` element-wise."""
    return tf.math.lgamma(x)


def digamma(x: Tensor) -> Tensor:
    """``ψ(x) = d/dx log Γ(x)`` element-wise."""
    return tf.math.digamma(x)


def atanh(x: Tensor) -> Tensor:
    """Inverse hyperbolic tangent element-wise (``±inf`` at ``±1``)."""
    return tf.math.atanh(x)


def random_gamma(generator: tf.random.Generator, concentration: Tensor) -> Tensor:
    """One ``Gamma(concentration, rate=1)`` sample per element of ``concentration`` (same shape and dtype),
    differentiable with respect to ``concentration`` (implicit reparameterisation).

    ``tf.random.Generator`` has no gamma sampler: the stateless one runs on a fresh seed drawn from the
    generator, so samples stay reproducible per build seed and advance the generator like the other ops.
    """
    seed = generator.make_seeds(1)[:, 0]
    return tf.random.stateless_gamma(tf.shape(concentration), seed=seed, alpha=concentration,
                                     dtype=concentration.dtype)


__all__ = ["lgamma", "digamma", "atanh", "random_gamma"]
