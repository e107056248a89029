"""Normalisation by running mean and standard deviation, kept in variables."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.preprocessing.normalize import float_dtype
from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, NumericBox, Space


@register("mean_std_normalize")
class MeanStdNormalize(Preprocessor):
    """``(x - mean) / sqrt(var + epsilon)`` per element of each leaf's core shape, with running statistics.

    With ``update`` (default), each ``preprocess`` call first folds all its batch/time rows into the running
    ``count``, ``mean`` and (population) ``var`` (Chan et al.'s parallel update, exact for any batch sizes), then
    normalises with the new statistics; with ``update=False`` they stay as they are (e.g. set with
    ``set_weights``). Statistics start at count 0, mean 0, var 1. API: ``preprocess(inputs)``, ``reset()``, which
    restores the initial statistics — unless ``reset_statistics=False``, which keeps them when a stack resets its
    frame stacks at every episode. Inputs: number leaves; outputs unbounded float32 (float64 stays float64).
    """

    def __init__(self, update: bool = True, epsilon: float = 1e-8, reset_statistics: bool = True, **kwargs: Any):
        super().__init__(**kwargs)
        if not float(epsilon) >= 0:
            raise ConfigError("epsilon must be >= 0", component=self.name, key_path="epsilon", expected=">= 0",
                              got=epsilon)
        self.update, self.epsilon, self.reset_statistics = bool(update), float(epsilon), bool(reset_statistics)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.stats: dict[str, tuple[Any, Any, Any]] = {}
        for key, leaf in self.leaf_spaces.items():
            self.output_leaf_space(key, leaf)
            suffix, dtype = f"/{key}" if key else "", float_dtype(leaf).name
            self.stats[key] = (self.create_variable("count" + suffix, (), dtype="float64", trainable=False),
                               self.create_variable("mean" + suffix, leaf.shape, dtype=dtype, trainable=False),
                               self.create_variable("var" + suffix, leaf.shape, dtype=dtype, initializer="ones",
                                                    trainable=False))

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        leaf, (count, mean, var) = self.leaf_spaces[key], self.stats[key]
        dtype = float_dtype(leaf).name
        x = self.ops.cast(x, dtype)
        if self.update:
            rows = self.ops.reshape(x, (-1, *leaf.shape))
            batch_count = self.ops.constant(self.ops.dim(rows, 0), "float64")
            batch_mean = self.ops.reduce_mean(rows, 0)
            batch_var = self.ops.reduce_mean(self.ops.square(rows - batch_mean), 0)
            total = count + batch_count
            weight = self.ops.cast(batch_count / total, dtype)  # the batch's share of all rows seen
            delta = batch_mean - mean
            new_mean = mean + delta * weight
            new_var = var * (1.0 - weight) + batch_var * weight + self.ops.square(delta) * weight * (1.0 - weight)
            self.ops.assign(count, total)
            self.ops.assign(mean, new_mean)
            self.ops.assign(var, new_var)
            mean, var = new_mean, new_var
        return (x - mean) / self.ops.sqrt(var + self.epsilon)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if not isinstance(leaf, NumericBox):
            raise SpaceError("mean/std normalisation needs number leaves", argument="inputs", key_path=key or None,
                             expected="FloatBox or IntBox", got=leaf)
        return FloatBox(shape=leaf.shape, dtype=float_dtype(leaf)).with_ranks_of(leaf)

    @api
    @graph_fn(returns=0)
    def reset(self) -> None:
        if self.reset_statistics:
            for count, mean, var in self.stats.values():
                self.ops.assign(count, 0.0)
                self.ops.assign(mean, 0.0)
                self.ops.assign(var, 1.0)
