"""Optimizers: ``step(loss)`` on another component's variables, update rules written once for every backend."""

from rlworkbench.components.optimizers.adam import Adam
from rlworkbench.components.optimizers.optimizer import Optimizer
from rlworkbench.components.optimizers.rmsprop import RMSProp
from rlworkbench.components.optimizers.sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer", "RMSProp"]
