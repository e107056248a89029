"""What callers need of an agent, as small protocols (after Acme's ``Actor`` / ``Learner`` / ``VariableSource``).

A worker needs an :class:`Actor` that is also a :class:`Learner` (an :class:`ActorLearner`); a weight broadcast
needs :class:`HasWeights`; a checkpointer :class:`Checkpointing`; the multi-device target :class:`BuildsOnDevices`.
:class:`GraphAgent` is all of them but the last, plus the component tree (``root``) and its ``executor`` — what
drawing, the explorer and TensorBoard summaries need — and :func:`is_agent` is the one test of "is this an agent"
used across the package. The :class:`~rlworkbench.agents.agent.Agent` base satisfies every protocol; any object
with the methods does too (they are structural).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

import numpy as np

from rlworkbench.nest import Nested

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.executor import Executor

# what an agent takes and hands back: numpy arrays, or dicts and tuples of them (one per leaf of its space)
Arrays: TypeAlias = Nested[np.ndarray]
Mask: TypeAlias = np.ndarray | Sequence[bool]
"""One bool per row (e.g. the rows whose episode begins)."""


@runtime_checkable
class Actor(Protocol):
    """Acts: actions for a batch of states (one per env), exploring or not."""

    def get_actions(self, states: Arrays, explore: bool = True) -> Arrays: ...

    def reset(self) -> None:
        """Starts new episodes in every environment (forgets episode-local state)."""


@runtime_checkable
class Learner(Protocol):
    """Learns: takes transitions, says when it wants an update, and updates (returning metrics by name)."""

    def observe(self, states: Arrays, actions: Arrays, rewards: Arrays, terminals: Arrays, next_states: Arrays,
                env_id: Any = None) -> None: ...

    def wants_update(self) -> bool: ...

    def update(self, batch: Mapping[str, Any] | None = None) -> dict[str, float]: ...


@runtime_checkable
class ActorLearner(Actor, Learner, Protocol):
    """What a :class:`~rlworkbench.execution.Worker` runs: acts, takes transitions, updates."""


@runtime_checkable
class HasWeights(Protocol):
    """Its variables as NumPy arrays by scoped name, and back (how weights cross process boundaries)."""

    def get_weights(self, trainable_only: bool = False) -> dict[str, np.ndarray]: ...

    def set_weights(self, weights: Mapping[str, object], strict: bool = True) -> None: ...


@runtime_checkable
class Checkpointing(Protocol):
    """Saves itself into a directory and loads from one."""

    def save(self, directory: str | Path) -> Path: ...

    def load(self, directory: str | Path) -> Any: ...


@runtime_checkable
class BuildsOnDevices(HasWeights, Protocol):
    """Builds (and rebuilds) its graph with the update on replica towers, one per device — what the ``multi_gpu``
    target needs of a prototype: ``build(devices=...)``, the ``devices`` it was built with (``None``: one device,
    or not built), its ``executor`` (``None`` until built) and weights to carry across a rebuild."""

    executor: Executor | None

    @property
    def devices(self) -> list[str] | None: ...

    def build(self, device_map: Mapping[str, str] | None = None, devices: Any = None) -> Any: ...


@runtime_checkable
class GraphAgent(ActorLearner, HasWeights, Checkpointing, Protocol):
    """An agent made of a component graph: every protocol above, plus the root component and its executor
    (``None`` until built)."""

    root: Component
    executor: Executor | None


def is_agent(value: Any) -> bool:
    """Whether ``value`` is an agent in rlworkbench's sense (a :class:`GraphAgent`): drawn, explored and summarised
    as its root component's graph."""
    from rlworkbench.core.component import Component

    return isinstance(value, GraphAgent) and isinstance(getattr(value, "root", None), Component)
