"""Fault injection: a Gymnasium env that raises inside ``step`` — to see that a run survives (or reports) a crashing
simulator, locally or in a sampler actor on Ray.

:class:`FaultyEnv` wraps an env id and raises :class:`EnvCrashed` at its ``fail_after``-th step. With
``once_file`` only the first copy to get there raises — it creates the file — so a restarted sampler runs on;
without it every copy raises, every time. Pickles as its arguments, so a factory crosses to Ray actors::

    factory = functools.partial(FaultyEnv, "CartPole-v1", fail_after=300, once_file=tmp_path / "crashed")
    promote("dqn_cartpole", to="ray", env=factory, workers=2)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import SupportsFloat

import gymnasium


class EnvCrashed(RuntimeError):
    """Raised by :class:`FaultyEnv` on purpose."""


class FaultyEnv(gymnasium.Wrapper):
    """``gymnasium.make(env_id)`` that raises :class:`EnvCrashed` at step ``fail_after`` (see the module
    docstring)."""

    def __init__(self, env_id: str = "CartPole-v1", fail_after: int = 100, once_file: str | Path | None = None):
        super().__init__(gymnasium.make(env_id))
        self.fail_after, self.once_file = int(fail_after), once_file
        self.steps = 0

    def step(self, action: object) -> tuple[object, SupportsFloat, bool, bool, dict[str, object]]:
        self.steps += 1
        if self.steps == self.fail_after and self._claim():
            raise EnvCrashed(f"injected crash at step {self.steps} (pid {os.getpid()})")
        return self.env.step(action)

    def _claim(self) -> bool:
        """Whether this copy is the one to raise: always without ``once_file``, else the first to create it."""
        if self.once_file is None:
            return True
        try:
            with open(self.once_file, "x"):
                return True
        except FileExistsError:
            return False
