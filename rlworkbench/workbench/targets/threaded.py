"""What the in-process targets share: an :class:`Execution` whose training runs in a daemon thread of this process.

:class:`ThreadedExecution` keeps the state, the error, the checkpointer, the stop request and the done event, and
starts the thread; a subclass writes :meth:`ThreadedExecution._main` (train, then save ``checkpoints/final``, then
:meth:`ThreadedExecution._finish`). At interpreter exit, runs still going are stopped and given a few seconds to
save their final checkpoint (the exit hook is registered when the first run starts, not on import).
"""

from __future__ import annotations

import abc
import sys
import threading
import time
import traceback
import weakref
from pathlib import Path
from typing import Any

from rlworkbench.errors import CheckpointError, ConfigError
from rlworkbench.execution.progress import HasProgress
from rlworkbench.execution.resume_points import save_resume_point
from rlworkbench.execution.train import Checkpointer
from rlworkbench.workbench.exit_hooks import at_exit_once
from rlworkbench.workbench.run_spec import RunSpec
from rlworkbench.workbench.targets.base import FAILED, FINISHED, STOPPED, Execution

EXIT_GRACE_SECONDS = 10.0
PACKAGE_DIR = str(Path(__file__).resolve().parents[2]) + "/"  #: rlworkbench's own files (a stuck run names them)
_LIVE: weakref.WeakSet[ThreadedExecution] = weakref.WeakSet()


class ThreadedExecution(Execution):
    """A run in a daemon thread named ``rlworkbench-<kind>-<run dir>``; call :meth:`_start` at the end of
    ``__init__``."""

    spec: RunSpec
    agent: Any

    def __init__(self, logdir: Path, total_timesteps: int, checkpointer: Checkpointer):
        super().__init__(logdir, total_timesteps)
        self.checkpointer = checkpointer
        self._stop_asked, self._done = threading.Event(), threading.Event()
        self._phase: tuple[str, float] | None = None  # (what, since when: time.monotonic())

    def _start(self, kind: str) -> None:
        self._thread = threading.Thread(target=self._main, name=f"rlworkbench-{kind}-{self.logdir.name}",
                                        daemon=True)
        _LIVE.add(self)
        at_exit_once(_stop_live_runs)
        self._thread.start()

    @property
    def phase(self) -> str | None:
        phase = self._phase
        if phase is None or self.done:
            return None
        return f"{phase[0]} … {time.monotonic() - phase[1]:.0f} s"

    def activity(self) -> str | None:
        """The phase, and where the run's thread is: the four innermost calls below this package's code (``ray.wait``,
        an env's step, …), then this package's innermost three."""
        frame = sys._current_frames().get(self._thread.ident or -1) if self._thread.is_alive() else None
        if frame is None:
            return None
        stack = traceback.extract_stack(frame)
        inner = max((i for i, entry in enumerate(stack) if entry.filename.startswith(PACKAGE_DIR)), default=-1)
        below = [f"{e.name} ({Path(e.filename).name}:{e.lineno})" for e in reversed(stack[inner + 1:][-4:])]
        ours = [f"{Path(e.filename).name}:{e.lineno} {e.name}" for e in reversed(stack[:inner + 1])
                if e.filename.startswith(PACKAGE_DIR)]
        where = " < ".join(below + ours[:3])
        phase = self.phase
        return f"{phase + '; ' if phase else ''}its thread is in {where}"

    def set_phase(self, what: str | None) -> None:
        """Says what the run's thread is busy with before training (None: training, or done)."""
        self._phase = None if what is None else (what, time.monotonic())

    @abc.abstractmethod
    def _main(self) -> None:
        """The thread's body: ends by calling :meth:`_finish`, whatever happened."""

    def pace(self, timesteps: int) -> bool | None:
        """After a training step: a paced run (``spec.context.pacer``) waits for its next allowance; ``False``
        when a stop was asked meanwhile (the training loop's callback ends the run on it)."""
        pacer = self.spec.context.pacer
        if pacer is not None:
            pacer.hold(timesteps, self._stop_asked.is_set)
        return False if self._stop_asked.is_set() else None

    def save_resume_point(self, directory: Path) -> Path:
        """Writes what resuming this run needs — the agent's checkpoint and the run's progress (tables, env steps,
        clock; see :mod:`rlworkbench.execution.progress`) — into ``directory``. Call it while the run is held by
        its pacer or done: then its agent is still."""
        source = self._progress_source()
        if source is None:
            raise CheckpointError("this run has not started training yet: nothing to save", argument="directory",
                                  expected="a run that has stepped", got=self.state)
        return save_resume_point(self.agent, Path(directory), source)

    def _progress_source(self) -> HasProgress | None:
        """The worker or algorithm whose tables and counters make the run's progress (None before it exists)."""
        return None

    def _finish(self, timesteps: int) -> None:
        """The final state (failed, stopped early or finished) and the done event."""
        self._state = FAILED if self._error else STOPPED if timesteps < self.total_timesteps else FINISHED
        self._done.set()

    # ----- the Execution face ----------------------------------------------------------------------------------
    @property
    def checkpoint(self) -> Path | None:
        return self.checkpointer.last

    def join(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)


def live_runs() -> list[ThreadedExecution]:
    """In-process runs not done yet."""
    return [run for run in list(_LIVE) if not run.done]


def refuse_agent_in_training(agent: object) -> None:
    """A ConfigError if a live in-process run trains ``agent`` (a prototype is trained in place: one run at once)."""
    if agent is not None and any(getattr(run, "agent", None) is agent for run in live_runs()):
        raise ConfigError("this agent is being trained by another run: stop() or wait() for it first",
                          argument="prototype", expected="an agent no live run is training", got=agent)


def _stop_live_runs() -> None:
    """At interpreter exit (registered when the first run starts): stops the live runs, waits for their ends."""
    runs = live_runs()
    for run in runs:
        run.stop()
    for run in runs:
        run.join(EXIT_GRACE_SECONDS)
