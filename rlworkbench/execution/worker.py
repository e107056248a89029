"""The local :class:`Worker`: an agent acting in a Gymnasium vector env, with episode accounting per sub-env.

One vector step is: ``agent.get_actions(states)`` → ``env.step`` (read right for every autoreset mode by
:class:`~rlworkbench.execution.transitions.StepReader`) → ``agent.observe(s, a, r, terminated, s', env_id)``
with exactly the sub-envs' true transitions → bookkeeping → ``agent.update()`` when ``agent.wants_update()``.
The agent is an :class:`~rlworkbench.agents.protocols.ActorLearner` (``get_actions``, ``observe``,
``wants_update``, ``update``, ``reset``); the
worker counts its own timesteps: real env steps summed over the sub-envs (a ``NEXT_STEP`` reset step is none).

A recurrent agent (``wants_episode_starts``) also gets ``episode_starts`` with each ``get_actions``: the rows whose
last step ended an episode (or was a ``NEXT_STEP`` reset step), whose recurrent state must start from zeros.

``observe`` always gets ``env_id``: an int64 array naming the sub-env of each row. It is ``arange(num_envs)``
unless some rows are masked out (the reset steps of ``NEXT_STEP`` envs), so an agent that keeps per-env state
(n-step buffers, recurrent states) can rely on it; ``terminals`` hold *terminated* only, and a truncated row has
``terminals=False`` with ``next_states`` the real final observation.

Metrics come as pandas tables (:attr:`Worker.episodes`, :attr:`Worker.updates`), TensorBoard scalars
(``episode/return``, ``episode/length``, ``update/<metric>`` — a metric with a namespace of its own keeps it:
``observe/skipped`` —, ``throughput/env_steps_per_s``, step axis = the worker's timesteps) when a ``logdir`` is
given — with ``summaries_every=N`` also per-component variable scalars and histograms every ``N`` updates
(:func:`rlworkbench.execution.tensorboard.write_variable_summaries`) — and a ``tqdm.auto`` bar. Another thread may
call :meth:`Worker.snapshot` and :meth:`Worker.stop` while :meth:`Worker.run` is going.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from gymnasium.vector import VectorEnv
from tqdm.auto import tqdm

from rlworkbench.agents.protocols import ActorLearner, is_agent
from rlworkbench.errors import ConfigError, RLWorkbenchError
from rlworkbench.execution.envs import make_vector_env
from rlworkbench.execution.metrics import MetricsBook, MetricsSnapshot
from rlworkbench.execution.progress import Progress
from rlworkbench.execution.tensorboard import EventWriter, write_variable_summaries
from rlworkbench.execution.transitions import Step, StepReader, select_rows

Callback = Callable[["Worker"], bool | None]


class Worker:
    """Runs ``agent`` in the vector env ``env`` and accounts every episode of every sub-env.

    Args:
        agent: an ActorLearner (see the module docstring).
        env: a Gymnasium ``VectorEnv`` (e.g. from :func:`~rlworkbench.execution.make_vector_env`), any autoreset
            mode. The worker does not close it.
        seed: passed to the first ``env.reset``; ``None`` leaves the sub-envs' own seeding alone.
        logdir: directory for TensorBoard event files; ``None`` writes none.
        progress: show a ``tqdm.auto`` progress bar with the recent mean return.
        callback: ``callback(worker)`` every ``callback_every`` timesteps (checkpoints, live views); returning
            ``False`` stops the run.
        log_every: timesteps between throughput scalars (and flush checks).
        summaries_every: updates between variable summaries (per-component scalars, a histogram per variable) in
            the ``logdir`` run, at the worker's timesteps; ``None`` (default) writes none. Needs a built agent
            with a ``root`` component.
        recent_window: how many finished episodes the recent mean return is taken over.
    """

    def __init__(self, agent: ActorLearner, env: VectorEnv, *, seed: int | None = None,
                 logdir: str | Path | None = None, progress: bool = True, callback: Callback | None = None,
                 callback_every: int | None = None, log_every: int = 1000, recent_window: int = 100,
                 summaries_every: int | None = None):
        if (callback is None) != (callback_every is None):
            raise ConfigError("a callback needs its interval and an interval its callback", argument="callback_every",
                              expected="both or neither", got=f"callback={callback!r}, every={callback_every!r}")
        if callback_every is not None and callback_every < 1:
            raise ConfigError("bad callback interval", argument="callback_every", expected="int >= 1",
                              got=callback_every)
        self.agent, self.env, self.seed = agent, env, seed
        self.progress, self.callback, self.callback_every = progress, callback, callback_every
        self.log_every = int(log_every)
        self.num_envs = int(env.num_envs)
        self.timesteps = 0
        self.book = MetricsBook(self.num_envs, recent_window)
        self.summaries_every = summaries_every
        self._write_summaries = self._summary_writer(agent, logdir, summaries_every)
        self.log = EventWriter(logdir) if logdir is not None else None
        self._reader = StepReader(env)
        self._env_ids = np.arange(self.num_envs, dtype=np.int64)
        self._states: Any = None
        self._episode_starts = np.ones(self.num_envs, dtype=bool)  # rows whose next acting step begins an episode
        self._stop = threading.Event()
        self._running = False
        self._start_time: float | None = None
        self._run_seconds = 0.0  # time spent inside run() (throughput excludes idle time between runs)
        self._elapsed_before = 0.0  # wall time of the earlier part of a resumed run
        self._entered: float | None = None  # when the run under way entered run()
        self._next_callback = callback_every or 0
        self._last_log = (0, 0.0)  # (timesteps, run seconds) at the last throughput scalar
        self._next_postfix = 0.0

    # ----- control -------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Resets every sub-env and the agent; unfinished episodes are dropped from the accounting."""
        self._states = self._reader.reset(seed)
        self._episode_starts[:] = True
        self.book.reset_running()
        self.agent.reset()

    def restore_progress(self, progress: Progress) -> None:
        """Goes on from an earlier part of the same run (a resumed run; before the first :meth:`run`): its tables,
        env-step count and wall clock continue those of ``progress``. The agent's own state is restored apart
        (``agent.load``)."""
        if self._running or self._states is not None or self.timesteps:
            raise RLWorkbenchError("restore_progress() comes before a worker's first run")
        self.timesteps = int(progress.timesteps)
        self.book.restore(progress.episodes, progress.updates)
        self._elapsed_before = self._run_seconds = float(progress.wall_time)
        self._last_log = (self.timesteps, self._run_seconds)
        self._next_callback = self.timesteps
        if self.log is not None:
            self.log.restart_at(self.timesteps)  # TensorBoard forgets what a killed part wrote past the checkpoint

    def stop(self) -> None:
        """Asks a running :meth:`run` to stop after its current step (safe from any thread)."""
        self._stop.set()

    @property
    def is_running(self) -> bool:
        return self._running

    def run(self, timesteps: int | None = None, episodes: int | None = None, *, explore: bool = True,
            learn: bool = True) -> pd.DataFrame:
        """Runs ``timesteps`` more env steps or ``episodes`` more finished episodes (exactly one of them).

        A run stops at the first vector step that reaches its target (so with ``K`` sub-envs it may take up to
        ``K - 1`` steps more, or finish several episodes at once), or when :meth:`stop` is called. A later
        ``run`` carries on the same episodes. With ``learn=False`` the agent neither observes nor updates
        (evaluation). Returns the episodes finished in this run.
        """
        target, unit = self._target(timesteps, episodes)
        if self._running:
            raise RLWorkbenchError("this worker is running already (one run at a time; stop() it first)")
        self._stop.clear()
        if self._states is None:
            self._start_time = time.perf_counter()
            self.reset(self.seed)
        first_episode, start_timesteps = self.book.num_episodes, self.timesteps
        bar = tqdm(total=target, unit=unit, disable=not self.progress, dynamic_ncols=True, leave=True)
        self._running = True
        entered = self._entered = time.perf_counter()
        try:
            while not self._stop.is_set():
                done = (self.timesteps - start_timesteps if episodes is None
                        else self.book.num_episodes - first_episode)
                if done >= target:
                    break
                step, real_steps = self._step(explore, learn)
                finished = self._after_step(step, bar) if step.done.any() else 0
                bar.update(real_steps if episodes is None else finished)
                while learn and self.agent.wants_update():  # several envs may owe several updates
                    self._update()
                if self.timesteps >= self._last_log[0] + self.log_every:
                    self._log_throughput(entered)
                if self.callback is not None and self.timesteps >= self._next_callback:
                    self._next_callback = self.timesteps + self.callback_every
                    if self.callback(self) is False:
                        self._stop.set()
        finally:
            self._run_seconds += time.perf_counter() - entered
            self._running = False
            if self.progress and self.book.num_episodes:
                self._set_postfix(bar)
            bar.close()
            if self.log is not None:
                self.log.flush()
        return self.book.episodes().iloc[first_episode:]

    # ----- one step ------------------------------------------------------------------------------------------
    def _step(self, explore: bool, learn: bool) -> tuple[Step, int]:
        states = self._states
        if getattr(self.agent, "wants_episode_starts", False):  # a recurrent agent resets these rows' state
            actions = self.agent.get_actions(states, explore=explore, episode_starts=self._episode_starts)
        else:
            actions = self.agent.get_actions(states, explore=explore)
        step = self._reader.step(actions)
        self._episode_starts = step.done if step.valid is None else step.done | ~step.valid
        real_steps = self.book.add_step(step.rewards, step.valid)
        self.timesteps += real_steps
        if learn:
            valid = step.valid
            if valid is None:
                self.agent.observe(states, actions, step.rewards, step.terminated, step.next_states,
                                   env_id=self._env_ids)
            elif real_steps:
                self.agent.observe(select_rows(states, valid), select_rows(actions, valid), step.rewards[valid],
                                   step.terminated[valid], select_rows(step.next_states, valid),
                                   env_id=self._env_ids[valid])
        self._states = step.observations
        return step, real_steps

    def _after_step(self, step: Step, bar: Any) -> int:
        rows = self.book.end_episodes(step.terminated, step.truncated, self.timesteps, self.elapsed)
        if self.log is not None:
            for row in rows:
                self.log.scalar("episode/return", row[3], self.timesteps)
                self.log.scalar("episode/length", row[4], self.timesteps)
        if self.progress and time.monotonic() >= self._next_postfix:  # formatting costs: at most 4 times a second
            self._next_postfix = time.monotonic() + 0.25
            self._set_postfix(bar)
        return len(rows)

    def _set_postfix(self, bar: Any) -> None:
        bar.set_postfix(episodes=self.book.num_episodes, recent_return=f"{self.book.recent_mean_return:.2f}",
                        refresh=False)

    def _update(self) -> None:
        metrics = self.agent.update() or {}
        row = self.book.add_update(self.timesteps, self.elapsed, metrics)
        if self.log is not None:
            self.log.scalars("update", {k: v for k, v in row.items() if k not in ("update", "timesteps_total",
                                                                                 "wall_time")}, self.timesteps)
        if self._write_summaries is not None and self.book.num_updates % self.summaries_every == 0:
            self._write_summaries(self.agent, self.log, self.timesteps)

    @staticmethod
    def _summary_writer(agent: ActorLearner, logdir: str | Path | None, every: int | None) -> Callable[..., Any] | None:
        """The variable-summary writer when ``summaries_every`` is set (checked, with the agent, up front)."""
        if every is None:
            return None
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ConfigError("bad summary interval", argument="summaries_every", expected="int >= 1 or None",
                              got=repr(every))
        if logdir is None:
            raise ConfigError("variable summaries need a TensorBoard run directory", argument="summaries_every",
                              expected="a logdir", got=None)
        if not is_agent(agent):  # now, not after the first N updates
            raise ConfigError("cannot find the variables of this agent", argument="summaries_every",
                              expected="an agent with a root component", got=type(agent).__name__)
        return write_variable_summaries  # the agent may still be unbuilt here (built on the run's thread)

    def _log_throughput(self, entered: float) -> None:
        seconds = self._run_seconds + (time.perf_counter() - entered)
        last_timesteps, last_seconds = self._last_log
        if self.log is not None and seconds > last_seconds:
            self.log.scalar("throughput/env_steps_per_s", (self.timesteps - last_timesteps) / (seconds - last_seconds),
                            self.timesteps)
            self.log.maybe_flush()
        self._last_log = (self.timesteps, seconds)

    @staticmethod
    def _target(timesteps: int | None, episodes: int | None) -> tuple[int, str]:
        if (timesteps is None) == (episodes is None):
            raise ConfigError("run needs exactly one target", argument="timesteps/episodes",
                              expected="timesteps=N or episodes=N", got=f"timesteps={timesteps}, episodes={episodes}")
        value, unit = (timesteps, "step") if timesteps is not None else (episodes, "episode")
        if not isinstance(value, (int, np.integer)) or value < 0:
            raise ConfigError("bad run target", argument=f"{unit}s", expected="int >= 0", got=repr(value))
        return int(value), unit

    # ----- metrics -------------------------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        """Seconds since the worker's first run started (a resumed run's earlier part included)."""
        return self._elapsed_before + (0.0 if self._start_time is None else time.perf_counter() - self._start_time)

    @property
    def steps_per_second(self) -> float:
        """Env steps per second of run time (time between runs does not count)."""
        seconds = self._run_seconds
        entered = self._entered
        if self._running and entered is not None:  # the run under way counts too (a live view reads it)
            seconds += time.perf_counter() - entered
        return self.timesteps / seconds if seconds > 0 else float("nan")

    @property
    def env_timesteps(self) -> np.ndarray:
        """Real env steps per sub-env."""
        return self.book.env_timesteps.copy()

    @property
    def episodes(self) -> pd.DataFrame:
        """Every finished episode: ``episode, env_id, env_episode, return, length, timesteps_total, wall_time,
        terminated, truncated``."""
        return self.book.episodes()

    @property
    def updates(self) -> pd.DataFrame:
        """Every update: ``update, timesteps_total, wall_time`` and the agent's metrics, one column each."""
        return self.book.updates()

    def snapshot(self) -> MetricsSnapshot:
        """A consistent copy of the metrics so far (safe to call from another thread while running)."""
        return MetricsSnapshot(timesteps=self.timesteps, num_episodes=self.book.num_episodes,
                               num_updates=self.book.num_updates, wall_time=self.elapsed,
                               steps_per_second=self.steps_per_second,
                               recent_mean_return=self.book.recent_mean_return, running=self._running,
                               episodes=self.book.episodes(), updates=self.book.updates())

    def summary(self, last_fraction: float = 0.1) -> dict[str, float | int]:
        """Episodes, mean/max return of the last ``last_fraction`` of episodes, throughput, updates, wall time."""
        returns = self.book.episodes()["return"].to_numpy()
        tail = returns[-max(1, int(np.ceil(len(returns) * last_fraction))):] if len(returns) else returns
        percent = f"{last_fraction:.0%}"
        return {"timesteps": self.timesteps, "episodes": len(returns),
                f"mean_return_last_{percent}": float(tail.mean()) if len(tail) else float("nan"),
                f"max_return_last_{percent}": float(tail.max()) if len(tail) else float("nan"),
                "steps_per_s": self.steps_per_second, "updates": self.book.num_updates,
                "wall_time_s": self._run_seconds}

    # ----- lifetime ------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the TensorBoard writer (the env belongs to the caller)."""
        if self.log is not None:
            self.log.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def evaluate_greedy(agent: ActorLearner, env: Any, episodes: int, seed: int | None = None) -> pd.DataFrame:
    """``agent``'s greedy policy on ``episodes`` episodes of one fresh env of ``env`` (an id or factory), learning
    nothing: the episodes table."""
    vector_env = make_vector_env(env, 1, seed=seed)
    try:
        return Worker(agent, vector_env, progress=False).run(episodes=episodes, explore=False, learn=False)
    finally:
        vector_env.close()
