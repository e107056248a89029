"""A small training root for testing optimizers: one step of a model on the mean squared error."""

from __future__ import annotations

from collections.abc import Callable

from rlworkbench.components import Dense
from rlworkbench.components.optimizers import Optimizer
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor


class Regression(Component):
    """A root owning a ``model`` (default ``Dense(2)``) and the optimizer ``make_optimizer(model)`` gives (so its
    ``variables_of`` can be the model object or ``"model"``). API: ``update(x, y)`` takes one step on the MSE and
    returns the optimizer's outputs; ``predict(x)`` runs the model."""

    def __init__(self, make_optimizer: Callable[[Component], Optimizer], model: Component | None = None):
        self.model = model or Dense(2, name="model")
        self.optimizer = make_optimizer(self.model)
        super().__init__(self.optimizer, self.model, name="regression")  # optimizer first: built after the model

    @api
    def update(self, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        return self.optimizer.step(self._mse(self.model.apply(x), y))

    @api
    def predict(self, x: Tensor) -> Tensor:
        return self.model.apply(x)

    @graph_fn
    def _mse(self, predictions: Tensor, targets: Tensor) -> Tensor:
        return self.ops.reduce_mean(self.ops.square(predictions - targets))
