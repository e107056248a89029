"""Distributions over action leaves (parameters in, samples / log-probs / entropies / KLs out)."""

from rlworkbench.components.distributions.bernoulli import Bernoulli
from rlworkbench.components.distributions.beta import Beta
from rlworkbench.components.distributions.categorical import Categorical
from rlworkbench.components.distributions.distribution import Distribution
from rlworkbench.components.distributions.normal import Normal
from rlworkbench.components.distributions.selection import distribution_for
from rlworkbench.components.distributions.squashed_normal import SquashedNormal

__all__ = ["Bernoulli", "Beta", "Categorical", "Distribution", "Normal", "SquashedNormal", "distribution_for"]
