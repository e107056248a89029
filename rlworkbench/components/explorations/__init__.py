"""Exploration: epsilon-greedy for discrete actions, Gaussian and Ornstein-Uhlenbeck noise for continuous ones."""

from rlworkbench.components.explorations.epsilon_greedy import EpsilonGreedy
from rlworkbench.components.explorations.gaussian_noise import GaussianNoise
from rlworkbench.components.explorations.ornstein_uhlenbeck_noise import OrnsteinUhlenbeckNoise

__all__ = ["EpsilonGreedy", "GaussianNoise", "OrnsteinUhlenbeckNoise"]
