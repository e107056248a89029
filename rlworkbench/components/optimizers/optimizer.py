"""The :class:`Optimizer` base: ``step(loss)`` minimises a scalar loss over another component's variables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rlworkbench.components.helpers.references import ComponentRef, resolve_component
from rlworkbench.core import replication
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, Space


def positive(owner: str, key: str, value: float | None, optional: bool = False) -> float | None:
    """``value`` as a float, checked finite and ``> 0`` (``None`` passes when ``optional``): learning rates and
    clipping thresholds (``inf`` would turn a step into NaNs, or say "no clipping", which ``None`` says)."""
    if value is None and optional:
        return None
    if value is None or not 0 < float(value) < math.inf:
        raise ConfigError("must be a finite number above 0", component=owner, key_path=key, expected="finite, > 0",
                          got=value)
    return float(value)


def fraction(owner: str, key: str, value: float) -> float:
    """``value`` as a float, checked to lie in ``[0, 1)`` (decay rates, momenta)."""
    if not 0.0 <= float(value) < 1.0:
        raise ConfigError("must lie in [0, 1)", component=owner, key_path=key, expected="0 <= value < 1", got=value)
    return float(value)


class Optimizer(Component):
    """Minimises ``loss`` over the trainable variables of ``variables_of``; subclasses write the update rule.

    ``variables_of``: the component(s) to optimise — objects, or paths relative to the optimizer's parent
    (``"policy/network"``). The optimizer is a sibling of the model under a root that computes the loss from the
    model's outputs; the build creates the model's variables before the optimizer's (``reads_variables_of``).

    API: ``step(loss) -> (loss, grad_norm)``. ``loss`` is a scalar float (reduce per-sample losses first). The
    gradients of every variable are clipped element-wise to ``[-clip_grad_value, clip_grad_value]``, then scaled
    to a global norm of at most ``clip_grad_norm`` (each when given), and applied. ``grad_norm`` is the global norm
    of the unclipped gradients. In a data-parallel learner group (:mod:`rlworkbench.core.collective`) the loss and
    the gradients are first averaged over the ranks, so every rank applies the same step. State — the step counter
    ``steps`` and the update rule's slots, named
    ``<slot>/<variable path>`` (``m/policy/dense/kernel``) — is non-trainable variables.
    """

    def __init__(self, learning_rate: float, variables_of: ComponentRef | Sequence[ComponentRef],
                 clip_grad_norm: float | None = None, clip_grad_value: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.learning_rate = positive(self.name, "learning_rate", learning_rate)
        self.clip_grad_norm = positive(self.name, "clip_grad_norm", clip_grad_norm, optional=True)
        self.clip_grad_value = positive(self.name, "clip_grad_value", clip_grad_value, optional=True)
        refs = [variables_of] if isinstance(variables_of, (str, Component)) else list(variables_of)
        if not refs:
            raise ConfigError("an optimizer needs the component(s) whose variables it optimises", component=self.name,
                              key_path="variables_of", expected="a component or a path", got=variables_of)
        self.variables_of = refs

    def targets(self) -> list[Component]:
        """The components whose trainable variables this optimizer changes."""
        targets = [resolve_component(self, ref, "variables_of") for ref in self.variables_of]
        return list({id(t): t for t in targets}.values())

    def reads_variables_of(self) -> list[Component]:
        targets = self.targets()
        copies = [copy for target in targets for copy in self._copies_of(target)]
        return targets + copies  # replicas are built first too: their gradients are this optimizer's

    @staticmethod
    def _copies_of(target: Component) -> list[Component]:
        """The target's replicas in a multi-device build's towers (none on one device)."""
        towers = replication.replicas_of(target)
        return [] if towers is None else towers.copies_of(target)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        loss = input_spaces["loss"]
        if not isinstance(loss, FloatBox) or loss.shape != () or loss.num_extra_ranks:
            raise SpaceError("the loss to minimise must be a scalar float", argument="loss",
                             expected="FloatBox() without batch/time ranks (reduce per-sample losses first)", got=loss)
        anchor = self.parent if self.parent is not None else self
        found: dict[str, object] = {}
        sources: dict[str, list[Any]] = {}  # where each variable's gradient comes from: itself, or its replicas
        for target in self.targets():
            prefix = target.relative_path(anchor) if target is not anchor else ""
            copies = [copy.variables(trainable_only=True) for copy in self._copies_of(target)]
            for name, variable in target.variables(trainable_only=True).items():
                if all(variable is not v for v in found.values()):
                    key = f"{prefix}/{name}" if prefix else name
                    found[key] = variable
                    sources[key] = [replica[name] for replica in copies] or [variable]
        if not found:
            raise ConfigError("no trainable variables to optimise (a component no API method calls has none)",
                              component=self.path, key_path="variables_of",
                              expected="components with trainable variables",
                              got=[t.path for t in self.targets()])
        self.variables_to_optimize = found
        self.variable_list = list(found.values())
        self.gradient_sources = [sources[key] for key in found]
        pairs = [(replica, variable) for group, variable in zip(self.gradient_sources, self.variable_list)
                 if group[0] is not variable for replica in group]  # (replica, the variable it copies)
        self.replicated = bool(pairs)
        self.replica_variables = [replica for replica, _ in pairs]
        self.replica_values = [variable for _, variable in pairs]
        self.steps = self.create_variable("steps", (), dtype="int64", trainable=False)
        self.create_slots()

    def create_slots(self) -> None:
        """Creates the update rule's state with :meth:`slot` (none by default)."""

    def slot(self, slot_name: str) -> list[Tensor]:
        """One zero-initialised, non-trainable variable per optimised variable (same shape, dtype and storage
        layout: the update rules run on fused kernels that walk a variable and its slots as raw memory)."""
        slots = []
        for name, variable in self.variables_to_optimize.items():
            value = self.backend.read(variable)
            slots.append(self.create_variable(f"{slot_name}/{name}", value.shape, dtype=value.dtype.name,
                                              trainable=False, layout=self.backend.layout_of(variable)))
        return slots

    @api
    @graph_fn(returns=2, requires_grad=True, output_spaces=lambda self, loss: (loss, FloatBox(shape=())))
    def step(self, loss: Tensor) -> tuple[Tensor, Tensor]:
        # output spaces are declared so that a build never takes a real step: on PyTorch an in-place update
        # in a sample pass would invalidate the autograd graphs of the next optimizer's pass (several optimizers, SAC)
        grads = self._replica_gradients(loss) if self.replicated else self.ops.gradients(loss, self.variable_list)
        # in a learner group every rank steps with the group's mean loss and gradients (unchanged outside one)
        loss, *grads = self.ops.group_mean([loss, *grads])
        norm = self.ops.global_norm(grads)
        if self.clip_grad_value is not None:
            grads = [self.ops.clip(g, -self.clip_grad_value, self.clip_grad_value) for g in grads]
        if self.clip_grad_norm is not None:  # the norm above is the clipped-by-value grads' norm only without that
            grads = self.ops.clip_by_global_norm(grads, self.clip_grad_norm,
                                                 norm if self.clip_grad_value is None else None)
        step = self.ops.cast(self.steps, "float32") + 1.0  # 1 on the first update

        def apply() -> None:
            self.apply_gradients(grads, step)
            self.ops.assign_add(self.steps, 1)

        # the numerical guard: a loss or gradient that is not finite changes no variable (its metrics say so)
        self.ops.apply_if_finite([loss, norm], apply)
        if self.replicated:  # every tower continues from the weights: updated, or unchanged after a refused step,
            self.ops.assign_all(self.replica_variables, self.replica_values)  # so the copy needs no guard of its own
        return loss, norm

    def _replica_gradients(self, loss: Tensor) -> list[Tensor]:
        """Each variable's gradient as the sum of its replicas' gradients: the loss is a mean over the whole batch,
        so each tower's part already carries its shard's weight, and the sum is the full batch's gradient."""
        flat = self.ops.gradients(loss, [source for group in self.gradient_sources for source in group])
        grads, start = [], 0
        for variable, group in zip(self.variable_list, self.gradient_sources):
            part, start = flat[start:start + len(group)], start + len(group)
            grads.append(part[0] if group[0] is variable else self.ops.add_n_on(part, variable))
        return grads

    def apply_gradients(self, grads: list[Tensor], step: Tensor) -> None:
        """Changes ``self.variable_list`` (and slots) with ``self.ops.assign*``; ``step`` counts from 1."""
        raise NotImplementedError(f"{type(self).__name__} must implement apply_gradients")
