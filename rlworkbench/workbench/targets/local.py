"""The ``"local"`` target: a :class:`~rlworkbench.execution.Worker` in a daemon thread of this process.

Everything that can fail fast happens in the caller's thread before :class:`LocalExecution` returns: settings,
the config (validated when the unbuilt agent is made), the env and its spaces against the agent's, the run
directory (laid out as by ``rlworkbench train``). The thread then caps the backend's threads, builds the agent
if it is not built, runs the worker, and saves ``checkpoints/final`` and the CSV tables. Its errors are kept
and re-raised by ``Run.wait``. A prototype agent is trained in place: do not act with it while the run goes.

Threads are process-wide: ``threads=1`` caps the framework's intra-op threads for the notebook too. At
interpreter exit, runs still going are stopped and given a few seconds to save their final checkpoint (see
:mod:`.threaded`).
"""

from __future__ import annotations

import contextlib
from typing import Any

from rlworkbench.agents.protocols import ActorLearner
from rlworkbench.core.backend import get_backend
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.execution.envs import make_vector_env
from rlworkbench.execution.metrics import MetricsSnapshot
from rlworkbench.execution.progress import read_progress
from rlworkbench.execution.train import Checkpointer, write_tables
from rlworkbench.execution.worker import Worker
from rlworkbench.workbench.run_spec import SETTINGS, RunSpec
from rlworkbench.workbench.targets.base import RUNNING
from rlworkbench.workbench.targets.threaded import ThreadedExecution, refuse_agent_in_training


class LocalExecution(ThreadedExecution):
    """Trains ``spec`` in a background thread of this process; see the module docstring."""

    def __init__(self, spec: RunSpec):
        if spec.options:
            raise ConfigError("unknown settings for the local target", argument=", ".join(sorted(spec.options)),
                              expected=list(SETTINGS), got=sorted(spec.options))
        refuse_agent_in_training(spec.agent)
        self.spec = spec
        env = make_vector_env(spec.env, spec.num_envs, spec.vector_mode, spec.seed)
        try:
            agent = spec.agent if spec.agent is not None else _unbuilt_agent(env, spec)
            check_spaces(agent, env)
            run_dir = spec.new_run_dir()
            checkpointer = Checkpointer(agent, run_dir / "checkpoints", spec.checkpoint_every,
                                        progress=self._progress_source)
            self.worker = Worker(agent, env, seed=spec.seed, logdir=run_dir, progress=spec.progress,
                                 callback=self._after_step, callback_every=1, summaries_every=spec.summaries_every)
        except BaseException:
            env.close()
            raise
        super().__init__(run_dir, spec.timesteps, checkpointer)
        self.agent = agent
        self._start("run")

    # ----- the Execution face ----------------------------------------------------------------------------------
    def snapshot(self) -> MetricsSnapshot:
        return self.worker.snapshot()

    def stop(self) -> None:
        self._stop_asked.set()
        self.worker.stop()

    def _progress_source(self) -> Worker:
        return self.worker

    # ----- the thread ----------------------------------------------------------------------------------------
    def _prepare_agent(self) -> None:
        """Builds the agent if it is not built (in the run's thread: a build takes a while)."""
        if _needs_build(self.agent):
            self.agent.build()

    def _restore(self) -> None:
        """A resumed run (``context.resume_from``): the agent and the worker's tables go on from the checkpoint."""
        checkpoint = self.spec.context.resume_from
        if checkpoint is not None:
            self.agent.load(checkpoint)
            self.worker.restore_progress(read_progress(checkpoint))
            self.checkpointer.resume_at(self.worker.timesteps, int(getattr(self.agent, "updates", 0)))

    def _after_step(self, worker: Worker) -> bool | None:
        """The worker's callback after every step: a stop asked before ``worker.run`` began still stops it; a
        paced run waits here for its next allowance."""
        if self._stop_asked.is_set():
            return False
        self.checkpointer(worker)
        return self.pace(worker.timesteps)

    def _main(self) -> None:
        try:
            self.set_phase(f"loading {self.spec.backend}")
            if self.spec.threads is not None:
                get_backend(self.spec.backend).limit_threads(self.spec.threads)
            self.set_phase("building the agent")
            self._prepare_agent()
            self._restore()
            self.set_phase(None)
            if not self._stop_asked.is_set():
                self._state = RUNNING
                self.worker.run(timesteps=max(0, self.spec.timesteps - self.worker.timesteps))
            self.checkpointer.save("final")
            write_tables(self.worker, self.logdir)
        except BaseException as error:
            self._error = error
            with contextlib.suppress(Exception):  # the tables of a failed run, as far as they go
                write_tables(self.worker, self.logdir)
        finally:
            with contextlib.suppress(Exception):
                self.worker.close()
            with contextlib.suppress(Exception):
                self.worker.env.close()
            self._finish(self.worker.timesteps)


def _unbuilt_agent(env: Any, spec: RunSpec) -> Any:
    """``Agent.from_env`` without the build: the config is validated here, the (slow) build runs in the thread."""
    from rlworkbench.agents import Agent

    return Agent.from_env(env, spec.config, backend=spec.backend, seed=spec.seed)


def _needs_build(agent: ActorLearner) -> bool:
    return callable(getattr(agent, "build", None)) and getattr(agent, "executor", True) is None


def check_spaces(agent: ActorLearner, env: Any) -> None:
    """An agent's state and action spaces must be the env's (checked when the agent has them)."""
    from rlworkbench.spaces import Space, from_gymnasium

    for attribute, env_attribute in (("state_space", "single_observation_space"),
                                     ("action_space", "single_action_space")):
        own = getattr(agent, attribute, None)
        if isinstance(own, Space):
            env_space = from_gymnasium(getattr(env, env_attribute)).strip_ranks()
            if own.strip_ranks() != env_space:
                raise SpaceError(f"the agent's {attribute} is not the env's", argument="env", key_path=attribute,
                                 expected=own, got=env_space)
