"""The abstract :class:`Space`: what every space knows about batch and time ranks, sampling and checking."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

import numpy as np

from rlworkbench.errors import SpaceError

Size = int | tuple[int, int] | None
RankFlag = bool | int


class Space(abc.ABC):
    """A set of values plus optional batch and time ranks in front of its core shape.

    ``shape`` is the core shape; ``get_shape(with_batch_rank=…, with_time_rank=…)`` adds the ranks the space
    declares (``True`` puts a ``None`` placeholder, an int puts that size). Time-major spaces order them
    ``(time, batch, …)``, all others ``(batch, time, …)``.
    """

    def __init__(self, add_batch_rank: bool = False, add_time_rank: bool = False, time_major: bool = False):
        self.has_batch_rank = bool(add_batch_rank)
        self.has_time_rank = bool(add_time_rank)
        self.time_major = bool(time_major)

    # ----- ranks -------------------------------------------------------------------------------------------
    @property
    def num_extra_ranks(self) -> int:
        return int(self.has_batch_rank) + int(self.has_time_rank)

    def with_batch_rank(self, add_batch_rank: bool = True) -> Space:
        """A copy with the batch rank switched on (or off)."""
        return self._with_ranks(add_batch_rank, self.has_time_rank, self.time_major)

    def with_time_rank(self, add_time_rank: bool = True, time_major: bool | None = None) -> Space:
        """A copy with the time rank switched on (or off), optionally changing ``time_major``."""
        major = self.time_major if time_major is None else time_major
        return self._with_ranks(self.has_batch_rank, add_time_rank, major)

    def with_ranks_of(self, other: Space) -> Space:
        """A copy with ``other``'s batch/time ranks and time-majorness."""
        return self._with_ranks(other.has_batch_rank, other.has_time_rank, other.time_major)

    def strip_ranks(self) -> Space:
        """A copy with neither batch nor time rank."""
        return self._with_ranks(False, False, False)

    def extra_rank_dims(self, with_batch_rank: RankFlag, with_time_rank: RankFlag) -> tuple[int | None, ...]:
        """The leading dimensions ``get_shape`` puts in front of the core shape."""

        def dim(flag: RankFlag, present: bool) -> list[int | None]:
            if not present or flag is False:
                return []
            return [None] if flag is True else [int(flag)]

        batch = dim(with_batch_rank, self.has_batch_rank)
        time = dim(with_time_rank, self.has_time_rank)
        return tuple(time + batch) if self.time_major else tuple(batch + time)

    def size_dims(self, size: Size) -> tuple[int, ...]:
        """Leading dims of a sample: ``None`` → none, ``n`` → ``(n,)``, ``(b, t)`` → ordered by time_major."""
        if size is None:
            return ()
        if isinstance(size, (int, np.integer)):
            return (int(size),)
        batch, time = size
        return (int(time), int(batch)) if self.time_major else (int(batch), int(time))

    # ----- the abstract interface ---------------------------------------------------------------------------
    @abc.abstractmethod
    def _with_ranks(self, batch: bool, time: bool, time_major: bool) -> Space: ...

    @property
    @abc.abstractmethod
    def shape(self) -> Any:
        """Core shape (a tuple; a nested structure of tuples for containers)."""

    @abc.abstractmethod
    def get_shape(self, with_batch_rank: RankFlag = False, with_time_rank: RankFlag = False) -> Any: ...

    @property
    @abc.abstractmethod
    def dtype(self) -> Any: ...

    @property
    @abc.abstractmethod
    def rank(self) -> Any: ...

    @property
    @abc.abstractmethod
    def flat_dim(self) -> int:
        """Number of scalars in one core value."""

    @abc.abstractmethod
    def sample(self, size: Size = None, seed: int | np.random.Generator | None = None) -> Any:
        """Random values: ``size`` None (one core value), an int (batch) or ``(batch, time)``."""

    @abc.abstractmethod
    def zeros(self, size: Size = None) -> Any: ...

    @abc.abstractmethod
    def check(self, value: object, key_path: str = "") -> None:
        """Raises :class:`SpaceError` naming the key path and expected vs got if ``value`` does not fit.

        A value fits with no leading ranks or with exactly the ranks the space declares (any sizes).
        """

    @abc.abstractmethod
    def flatten(self, value: object = None) -> dict[str, object]:
        """``{key_path: leaf space}``, or with ``value`` given, ``{key_path: leaf value}``."""

    @abc.abstractmethod
    def unflatten(self, flat: dict[str, object]) -> Any:
        """Rebuilds a nested value (or nested spaces) of this space's structure from a flat mapping."""

    @abc.abstractmethod
    def map(self, fn: Callable[[Space], Space]) -> Space:
        """A space of the same structure with every leaf replaced by ``fn(leaf)``."""

    @abc.abstractmethod
    def _key(self) -> tuple: ...

    # ----- shared behaviour ---------------------------------------------------------------------------------
    def contains(self, value: object) -> bool:
        try:
            self.check(value)
        except SpaceError:
            return False
        return True

    def __contains__(self, value: object) -> bool:
        return self.contains(value)

    def _rank_key(self) -> tuple:
        return (self.has_batch_rank, self.has_time_rank, self.time_major)

    def _rank_repr(self) -> str:
        flags = [("B", self.has_batch_rank), ("T", self.has_time_rank)]
        if self.time_major:
            flags.reverse()
        return "".join(f"+{name}" for name, on in flags if on)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))


def as_generator(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
