"""Pieces any component can use: time-dependent parameters (constants and decays over time steps)."""

from rlworkbench.components.common.decays import Decay, ExponentialDecay, LinearDecay, PolynomialDecay
from rlworkbench.components.common.time_dependent_parameter import Constant, TimeDependentParameter

__all__ = ["Constant", "Decay", "ExponentialDecay", "LinearDecay", "PolynomialDecay", "TimeDependentParameter"]
