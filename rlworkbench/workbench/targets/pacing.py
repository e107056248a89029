"""A run that trains in steps someone else sets: :class:`Pacer`.

A target's training thread calls :meth:`Pacer.hold` after every step with its env-step count; while that count is
at or past the allowance it waits there. The pacing side — an experiment's trial, which Ray Tune asks for one
result at a time — calls :meth:`Pacer.advance` to move the allowance on and get back once the run is held again
(or done). While a run is held its agent is still, so it can be saved or replaced without a race. :meth:`release`
lets the run go free (its stop, its end).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Pacer:
    """Holds a training thread at env-step milestones (see the module docstring)."""

    def __init__(self, allowed: int = 0):
        self._condition = threading.Condition()
        self._allowed = int(allowed)
        self._held_at: int | None = None
        self._released = False

    @property
    def held_at(self) -> int | None:
        """The env-step count the run is held at now (None: it is not held)."""
        return self._held_at

    def hold(self, timesteps: int, stopping: Callable[[], bool] = lambda: False) -> None:
        """The training thread, after a step: waits while ``timesteps`` is at or past the allowance (until
        :meth:`advance`, :meth:`release` or ``stopping()``)."""
        with self._condition:
            while not self._released and timesteps >= self._allowed and not stopping():
                self._held_at = timesteps
                self._condition.notify_all()
                self._condition.wait(0.2)
            self._held_at = None

    def advance(self, until: int, is_done: Callable[[], bool], timeout: float | None = None) -> bool:
        """Lets the run go on until ``until`` env steps, then waits until it is held again or ``is_done()``;
        whether that happened within ``timeout`` seconds."""
        with self._condition:
            self._allowed = max(self._allowed, int(until))
            self._condition.notify_all()
            return self._wait(lambda: self._held_at is not None and self._held_at >= self._allowed, is_done, timeout)

    def wait_held(self, is_done: Callable[[], bool], timeout: float | None = None) -> bool:
        """Waits until the run is held (or ``is_done()``) without moving the allowance."""
        with self._condition:
            return self._wait(lambda: self._held_at is not None, is_done, timeout)

    def _wait(self, held: Callable[[], bool], is_done: Callable[[], bool], timeout: float | None) -> bool:
        """Waits (the condition held) until ``held()`` or ``is_done()``, polling the latter, which no one signals."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not (held() or is_done()):
            left = 0.2 if deadline is None else min(0.2, deadline - time.monotonic())
            if left <= 0:
                return False
            self._condition.wait(left)
        return True

    def release(self) -> None:
        """Lets the run go free for good."""
        with self._condition:
            self._released = True
            self._condition.notify_all()
