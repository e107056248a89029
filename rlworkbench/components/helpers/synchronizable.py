"""Target-network updates: copying (or Polyak-averaging) one component's variables into another's."""

from __future__ import annotations

from numbers import Number
from typing import Any

from rlworkbench.components.helpers.references import ComponentRef, resolve_component
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Scalar
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Space


@register("synchronizable")
class Synchronizable(Component):
    """``sync(tau)`` sets every variable of ``target`` to ``tau * source + (1 - tau) * target``: a hard copy for
    ``tau = 1``, a soft (Polyak) update for ``0 < tau < 1``. Non-float variables (counters) are always copied.

    ``source`` and ``target`` are components or paths relative to this component's parent (typically
    ``target = source.copy(name="target_policy")``, all three under one root). Variables are matched by their
    names relative to source and target (all of them, or only trainable ones with ``trainable_only``); differing
    names, shapes or dtypes are a :class:`SpaceError` at build time. ``tau`` is a scalar float input or a Python
    number passed by the calling API method. Returns nothing.
    """

    def __init__(self, source: ComponentRef, target: ComponentRef, trainable_only: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.source, self.target, self.trainable_only = source, target, bool(trainable_only)

    def reads_variables_of(self) -> list[Component]:
        return [resolve_component(self, self.source, "source"), resolve_component(self, self.target, "target")]

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        source, target = self.reads_variables_of()
        if source is target:
            raise ConfigError("source and target are the same component", component=self.path, key_path="target",
                              expected=f"a component other than '{source.path}'", got=target.path)
        theirs, ours = source.variables(self.trainable_only), target.variables(self.trainable_only)
        if not theirs:
            raise ConfigError("the source has no variables to copy (a component no API method calls has none)",
                              component=self.path, key_path="source",
                              got=source.path)
        missing, unknown = sorted(set(theirs) - set(ours)), sorted(set(ours) - set(theirs))
        if missing or unknown:
            raise SpaceError(f"the variables of '{target.path}' differ from those of '{source.path}'",
                             component=self.path, expected=f"the same names: {sorted(theirs)}",
                             got=f"missing in the target {missing}, only in the target {unknown}")
        self.pairs: list[tuple[Any, Any, bool]] = []
        for name, variable in theirs.items():
            have, want = self.backend.read(ours[name]), self.backend.read(variable)
            if (have.shape, have.dtype) != (want.shape, want.dtype):
                raise SpaceError("target variable does not match its source", component=self.path, key_path=name,
                                 expected=f"{want.shape} {want.dtype}", got=f"{have.shape} {have.dtype}")
            self.pairs.append((variable, ours[name], want.dtype.kind == "f"))

    @api
    @graph_fn(returns=0)
    def sync(self, tau: Scalar) -> None:
        hard = isinstance(tau, Number) and tau == 1
        for source, target, is_float in self.pairs:
            self.ops.assign(target, source if hard or not is_float else tau * source + (1.0 - tau) * target)
