"""What flows between the actors of a plan, as typed values instead of report dicts.

- :class:`SampleReport` — what every sampler request returns: who sampled, with which weights, how many env steps,
  the episodes that ended, how long the sampler worked, and (Ape-X) how many transitions it sent to which shard;
- :class:`Fragment` — a report with its batch of ``(num_envs, steps)`` sequences (on-policy plans learn from it);
- :class:`Transitions` — prioritised n-step transitions a sampler sends to a replay shard;
- :class:`ReplayBatch` — a prioritised batch a shard drew for the learner, with the shard that drew it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from rlworkbench.nest import Nested

Batch = Mapping[str, Nested[np.ndarray]]
"""Named arrays (nested for Dict/Tuple spaces) with a leading batch or ``(env, time)`` layout."""


def nbytes(value: object) -> int:
    """Bytes of the arrays in a (nested) value: what crossing a process costs, near enough."""
    if isinstance(value, Mapping):
        return sum(nbytes(item) for item in value.values())
    if isinstance(value, (tuple, list)):
        return sum(nbytes(item) for item in value)
    return int(np.asarray(value).nbytes)


@dataclass(frozen=True)
class EpisodeEnds:
    """The episodes a sampler finished in one request, one entry per episode (env ids are the sampler's own)."""

    env_id: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    length: list[int] = field(default_factory=list)
    terminated: list[bool] = field(default_factory=list)
    truncated: list[bool] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.env_id)

    def rows(self) -> list[tuple[int, float, int, bool, bool]]:
        return list(zip(self.env_id, self.returns, self.length, self.terminated, self.truncated))


@dataclass(frozen=True)
class SampleReport:
    """One sampler request's outcome: ``index`` of the sampler, ``version`` (learner updates) of the weights that
    acted, ``timesteps`` env steps taken, ``episodes`` that ended, ``seconds`` spent sampling; for samplers that
    send to replay, ``records`` transitions sent to ``shard`` (-1: none) and their ``bytes``, and
    ``shard_generation``: the restarts that shard had had when the sampler got its handle (a report for a shard
    replaced since went to the one it replaced)."""

    index: int
    version: int
    timesteps: int
    episodes: EpisodeEnds
    seconds: float = 0.0
    records: int = 0
    shard: int = -1
    bytes: int = 0
    shard_generation: int = 0


@dataclass(frozen=True)
class Fragment:
    """A :class:`SampleReport` with its ``batch``: every key as ``(num_envs, steps, ...)`` sequences."""

    report: SampleReport
    batch: dict[str, Nested[np.ndarray]]

    @cached_property  # read by every operator the value passes: counted once
    def bytes(self) -> int:
        return nbytes(self.batch)


@dataclass(frozen=True)
class Transitions:
    """Prioritised transitions for a replay shard: ``records`` (states, actions, rewards, terminals, next_states,
    batch-major) and one ``priorities`` entry (> 0) per record."""

    records: dict[str, Nested[np.ndarray]]
    priorities: np.ndarray

    def __len__(self) -> int:
        return len(self.priorities)

    @cached_property  # read by every operator the value passes: counted once
    def bytes(self) -> int:
        return nbytes(self.records) + self.priorities.nbytes


@dataclass(frozen=True)
class ReplayBatch:
    """A batch drawn by priority from shard ``shard`` (``actor``: the handle that drew it, which gets the new
    priorities even if it was replaced since): ``records``, their ``indices`` in the shard and ``weights``."""

    shard: int
    actor: Any
    records: dict[str, Nested[np.ndarray]]
    indices: np.ndarray
    weights: np.ndarray

    @cached_property  # read by every operator the value passes: counted once
    def bytes(self) -> int:
        return nbytes(self.records) + self.indices.nbytes + self.weights.nbytes
