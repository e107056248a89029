"""What an agent counts of what it did not learn from: rows ``observe(..., on_bad="skip")`` dropped, and optimizer
steps the numerical guard refused (a loss or gradient norm that was not finite changes no variable).

Both counts are cumulative and go with every update's metrics — :data:`SKIPPED` (``observe/skipped``) and
:data:`REFUSED` (``update/refused``) — so they reach a run's updates table, TensorBoard and live view; checkpoints
keep them. ``update/refused`` counts optimizer steps: one per DQN or IMPALA update, one per PPO minibatch, one per
SAC optimizer (critic, actor, temperature).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from rlworkbench.agents.bad_rows import Faults
from rlworkbench.errors import CheckpointError, SkippedInput

SKIPPED = "observe/skipped"
REFUSED = "update/refused"


@dataclass
class GuardCounts:
    """Rows skipped and steps refused so far, and the kinds of bad row warned about already."""

    skipped_rows: int = 0
    refused_steps: int = 0
    warned: set[str] = field(default_factory=set)

    def skip(self, bad: np.ndarray, faults: Faults) -> None:
        """Counts the ``bad`` rows; a warning for each kind of fault not warned about yet."""
        for kind, error in faults.items():
            if kind not in self.warned:
                self.warned.add(kind)
                warnings.warn(f"observe(on_bad='skip') drops bad rows: {error} (warned once per kind; "
                              f"'{SKIPPED}' in the update metrics counts them)", SkippedInput, stacklevel=3)
        self.skipped_rows += int(np.count_nonzero(bad))

    def step(self, *values: object) -> None:
        """Counts an optimizer step as refused when one of its ``values`` (loss, gradient norm) is not finite."""
        if not all(_finite(value) for value in values):
            self.refused_steps += 1

    def metrics(self) -> dict[str, float]:
        return {SKIPPED: float(self.skipped_rows), REFUSED: float(self.refused_steps)}

    def state(self) -> dict[str, int]:
        return {"skipped_rows": self.skipped_rows, "refused_steps": self.refused_steps}

    @staticmethod
    def checked_state(state: object) -> dict[str, int]:
        """A checkpoint's counts (zeros where it has none: written before they were kept); a CheckpointError for
        anything but integers >= 0 under the two names."""
        state = {"skipped_rows": 0, "refused_steps": 0} if state is None else state
        if not isinstance(state, Mapping) or sorted(state) != ["refused_steps", "skipped_rows"] or not all(
                isinstance(value, int) and not isinstance(value, bool) and value >= 0 for value in state.values()):
            raise CheckpointError("bad guard counts in the checkpoint", key_path="guard_counts",
                                  expected="{skipped_rows: int >= 0, refused_steps: int >= 0}", got=repr(state)[:120])
        return dict(state)

    def load(self, state: Mapping[str, int]) -> None:
        self.skipped_rows, self.refused_steps = state["skipped_rows"], state["refused_steps"]


def _finite(value: object) -> bool:
    """Whether every element of ``value`` (a scalar or an array) is finite; a scalar without a NumPy reduction,
    which costs ~5 µs warm and several times that inside a training loop."""
    array = np.asarray(value)
    return math.isfinite(float(array)) if array.ndim == 0 else bool(np.isfinite(array).all())
