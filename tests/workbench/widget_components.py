"""Small components for the widget tests.

``Swappable`` routes through its sub-components *by name* (``self.sub_components[...]``), so a
``replace_component`` takes effect at the next build (attributes set in ``__init__`` would still point at the
replaced component)::

    swappable <Swappable>        get_q_values(states) -> head.apply(body.apply(states))
      body <Dense>(8, relu)      get_action(states)   -> selector.select(get_q_values(states))
      head <Dense>(2)
      selector <GreedyActionSelector>
"""

from __future__ import annotations

from typing import Any

from rlworkbench import Component, api, graph_fn
from rlworkbench.components import Dense, GreedyActionSelector
from rlworkbench.spaces import FloatBox

STATES = FloatBox(shape=(4,), add_batch_rank=True)


class Swappable(Component):
    def __init__(self, body: Component | None = None, **kwargs: Any):
        body = body or Dense(8, activation="relu", name="body")
        body.name = "body"
        super().__init__(body, Dense(2, name="head"), GreedyActionSelector(name="selector"), **kwargs)

    @api
    def get_q_values(self, states: Any) -> Any:
        return self.sub_components["head"].apply(self.sub_components["body"].apply(states))

    @api
    def get_action(self, states: Any) -> Any:
        return self.sub_components["selector"].select(self.get_q_values(states))


class Broken(Component):
    """A graph function that fails: its build raises a BuildError naming it."""

    @api
    def apply(self, inputs: Any) -> Any:
        return self._apply(inputs)

    @graph_fn
    def _apply(self, inputs: Any) -> Any:
        raise RuntimeError("this graph function is broken on purpose")
