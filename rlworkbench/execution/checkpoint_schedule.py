"""When a run saves a checkpoint: :class:`CheckpointSchedule`, every N env steps, N updates or N seconds.

``checkpoint_every`` takes an int (env steps, as always) or a string with its unit — ``"20000 timesteps"``,
``"500 updates"``, ``"60 s"`` (also ``"60s"``, ``"2 min"``) — or a mapping ``{"updates": 500}``. Anything else is a
ConfigError naming ``checkpoint_every`` with the forms it takes. A resumed run's schedule goes on from where the
checkpoint left it (:meth:`CheckpointSchedule.resume_at`), so its checkpoints fall where the first part's would have.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from rlworkbench.errors import ConfigError

Unit = Literal["timesteps", "updates", "seconds"]
FORMS = "an int >= 1 (env steps), '<N> timesteps', '<N> updates', '<N> s' / '<N> min', or {'updates': N}"
_ALIASES: dict[str, tuple[Unit, float]] = {
    "timesteps": ("timesteps", 1), "timestep": ("timesteps", 1), "steps": ("timesteps", 1),
    "updates": ("updates", 1), "update": ("updates", 1),
    "s": ("seconds", 1), "sec": ("seconds", 1), "seconds": ("seconds", 1), "second": ("seconds", 1),
    "min": ("seconds", 60), "minutes": ("seconds", 60), "minute": ("seconds", 60)}


@dataclass
class CheckpointSchedule:
    """Every ``amount`` of ``unit``; :meth:`due` says whether a checkpoint is due now and moves the next one."""

    amount: float
    unit: Unit = "timesteps"
    _next: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self._next = self.amount if self.unit != "seconds" else time.monotonic() + self.amount

    @classmethod
    def parse(cls, value: object) -> CheckpointSchedule | None:
        """A schedule from a ``checkpoint_every`` setting (None: never); ConfigError for anything else."""
        if value is None or isinstance(value, CheckpointSchedule):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return cls._checked(float(value), "timesteps", value)
        if isinstance(value, Mapping) and len(value) == 1:
            (unit, amount), = value.items()
            if isinstance(unit, str) and unit in _ALIASES and isinstance(amount, (int, float, np.number)) \
                    and not isinstance(amount, bool):
                name, scale = _ALIASES[unit]
                return cls._checked(float(amount) * scale, name, value)
        if isinstance(value, str):
            match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*", value.lower())
            if match and match.group(2) in _ALIASES:
                name, scale = _ALIASES[match.group(2)]
                return cls._checked(float(match.group(1)) * scale, name, value)
        raise ConfigError("bad checkpoint schedule", argument="checkpoint_every", expected=FORMS, got=repr(value))

    @classmethod
    def _checked(cls, amount: float, unit: Unit, given: object) -> CheckpointSchedule:
        if not amount > 0 or (unit != "seconds" and amount != int(amount)):
            raise ConfigError("bad checkpoint schedule", argument="checkpoint_every",
                              expected=f"a whole number of {unit} >= 1" if unit != "seconds" else "seconds > 0",
                              got=repr(given))
        return cls(amount, unit)

    def _position(self, timesteps: int, updates: int) -> float:
        return {"timesteps": float(timesteps), "updates": float(updates)}.get(self.unit, time.monotonic())

    def due(self, timesteps: int, updates: int) -> bool:
        """Whether a checkpoint is due at this many env steps and updates (or now); if so, the next one is
        scheduled ``amount`` later."""
        position = self._position(timesteps, updates)
        if position < self._next:
            return False
        self._next = position + self.amount
        return True

    def resume_at(self, timesteps: int, updates: int) -> None:
        """A run resumed at ``timesteps``/``updates``: the next checkpoint at the next multiple of ``amount`` (for
        seconds: ``amount`` from now)."""
        if self.unit == "seconds":
            self._next = time.monotonic() + self.amount
        else:
            self._next = (self._position(timesteps, updates) // self.amount + 1) * self.amount

    def describe(self) -> str:
        """``"every 500 updates"``: for records and messages."""
        amount = int(self.amount) if self.amount == int(self.amount) else self.amount
        return f"every {amount} {'s' if self.unit == 'seconds' else self.unit}"
