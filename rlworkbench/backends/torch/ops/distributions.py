"""Operations for probability distributions: special functions and gamma sampling."""

from __future__ import annotations

import torch

Tensor = torch.Tensor


def lgamma(x: Tensor) -> Tensor:
    """``log |Γ(x)|`` element-wise."""
    return torch.lgamma(x)


def digamma(x: Tensor) -> Tensor:
    """``ψ(x) = d/dx log Γ(x)`` element-wise."""
    return torch.digamma(x)


def atanh(x: Tensor) -> Tensor:
    """Inverse hyperbolic tangent element-wise (``±inf`` at ``±1``)."""
    return torch.atanh(x)


def random_gamma(generator: torch.Generator, concentration: Tensor) -> Tensor:
    """One ``Gamma(concentration, rate=1)`` sample per element of ``concentration`` (same shape and dtype),
    differentiable with respect to ``concentration`` (implicit reparameterisation)."""
    return torch._standard_gamma(concentration, generator=generator)


__all__ = ["lgamma", "digamma", "atanh", "random_gamma"]
