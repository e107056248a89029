""":class:`Run`: the notebook's handle on a training run started by ``promote()``, wherever it runs.

A Run wears the same face for every target (it speaks to the target only through
:class:`~rlworkbench.workbench.targets.base.Execution`): live metrics as pandas tables, ``stop()``, ``wait()``,
the run directory, a plot, an embedded TensorBoard, and — as a notebook cell's value — a live widget with a
progress bar, Stop and Save figure, and a plot of returns and losses, headed by which run it is (config, short
id, the notebook that started it) — plain text outside a kernel.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from rlworkbench.errors import CheckpointError, ConfigError
from rlworkbench.workbench.live_plot import show_figures_as_png
from rlworkbench.workbench.run_identity import short_id
from rlworkbench.workbench.run_records import Heartbeat
from rlworkbench.workbench.run_spec import RunSpec
from rlworkbench.workbench.targets.base import RUNNING, STARTING, Execution

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from rlworkbench.execution.metrics import MetricsSnapshot
    from rlworkbench.workbench.live_plot import LiveView
    from rlworkbench.workbench.run_tensorboard import TensorBoardServer


class Run:
    """A training run under way (or over) on a target; made by :func:`~rlworkbench.workbench.promote.promote`.

    Attributes: ``target`` (its name), ``spec`` (the settings), ``logdir`` (the run directory: ``config.json``,
    TensorBoard events, ``episodes.csv``/``updates.csv``, ``checkpoints/``).
    """

    def __init__(self, execution: Execution, spec: RunSpec, target: str):
        self.execution, self.spec, self.target = execution, spec, target
        self._view: LiveView | None = None
        self._tensorboard: TensorBoardServer | None = None
        self._error_noted = False
        #: publishes the run's record for JupyterLab's runs panel, from :meth:`start` on
        self.heartbeat = Heartbeat(self, run_id=spec.context.run_id)
        self._started = False

    def start(self) -> Run:
        """Starts publishing the run's record (its heartbeat) and returns the run; once is enough, later calls do
        nothing. ``promote`` and ``attach`` return started runs; a Run made directly (tests, a job's inner run)
        writes no record until this."""
        if not self._started:
            self._started = True
            self.heartbeat.start()
        return self

    @property
    def id(self) -> str:
        """The run's id in the runs directory (JupyterLab's runs panel)."""
        return self.heartbeat.run_id

    # ----- state -----------------------------------------------------------------------------------------------
    @property
    def logdir(self) -> Path:
        return self.execution.logdir

    @property
    def state(self) -> str:
        """``starting``, ``running``, ``finished``, ``stopped`` or ``failed``."""
        return self.execution.state

    @property
    def phase(self) -> str | None:
        """What a run not yet training is busy with, and how long so far (``starting Ray … 8 s``); else None."""
        return self.execution.phase

    @property
    def headline(self) -> str:
        """Which run this is, in one line: ``config · env · target · run <short id> · <notebook or script>``."""
        parts = [self.spec.config_label or self.spec.name, self.spec.env_name, self.target,
                 f"run {short_id(self.id)}"]
        if self.spec.source:
            parts.append(Path(self.spec.source).name)
        return " · ".join(parts)

    @property
    def is_running(self) -> bool:
        """Whether the run has not ended yet (building counts)."""
        return self.execution.state in (STARTING, RUNNING)

    @property
    def done(self) -> bool:
        return self.execution.done

    @property
    def error(self) -> BaseException | None:
        """What ended a failed run (``wait()`` raises it)."""
        return self.execution.error

    @property
    def total_timesteps(self) -> int:
        return self.execution.total_timesteps

    @property
    def timesteps(self) -> int:
        """Env steps taken so far."""
        return self.execution.snapshot().timesteps

    @property
    def checkpoint(self) -> Path | None:
        """The newest complete checkpoint (``checkpoints/final`` once a run finished or was stopped)."""
        return self.execution.checkpoint

    # ----- metrics ---------------------------------------------------------------------------------------------
    def snapshot(self) -> MetricsSnapshot:
        """A consistent copy of everything measured so far (counters and both tables)."""
        return self.execution.snapshot()

    @property
    def metrics(self) -> pd.DataFrame:
        """Finished episodes so far, one row each (``episode, env_id, return, length, timesteps_total, …``)."""
        return self.execution.snapshot().episodes

    @property
    def updates(self) -> pd.DataFrame:
        """Updates so far: ``update, timesteps_total, wall_time`` and the agent's metrics (losses …)."""
        return self.execution.snapshot().updates

    @property
    def devices(self) -> list[str] | None:
        """The devices of the update's replica towers on a multi-device target (else None)."""
        return self.execution.devices

    @property
    def workers(self) -> pd.DataFrame | None:
        """On Ray: one row per sampler (``worker, env_steps, env_steps_per_s, episodes, restarts, weights_behind,
        last_error``); None for targets without remote workers."""
        return self.execution.workers()

    @property
    def shards(self) -> pd.DataFrame | None:
        """On Ray with Ape-X: one row per replay shard (``shard, records, capacity, fill, restarts, lost``)."""
        return self.execution.shards()

    @property
    def learners(self) -> pd.DataFrame | None:
        """On Ray with a learner group (``learners`` > 1): one row per rank (``rank, node, pid, updates, update_s,
        allreduce_s, restarts``); else None."""
        reader = getattr(self.execution, "learners", None)
        return reader() if callable(reader) else None

    def dataflow(self, nodes: bool = False) -> pd.DataFrame:
        """The distributed plan's dataflow so far: one row per edge (``source, target, carries, items, bytes,
        items_per_s, bytes_per_s, bottleneck``: who sends what to whom, how much, how fast, and whether that edge
        limits the run); ``nodes=True``: one row per actor or operator instead. Empty (same columns) for a target
        without a plan, such as ``local``."""
        reader = getattr(self.execution, "dataflow", None)
        frame = reader(nodes) if callable(reader) else None
        if isinstance(frame, pd.DataFrame):
            return frame
        from rlworkbench.execution.dataflow import EDGE_COLUMNS, NODE_COLUMNS

        return pd.DataFrame(columns=list(NODE_COLUMNS if nodes else EDGE_COLUMNS))

    def logs(self, last: int | None = None) -> list[str]:
        """A cluster job's own log lines (Ray's, warnings, tracebacks; the metric records left out), the ``last``
        ones only if given; [] for runs in this process, which print here."""
        lines = self.execution.logs()
        return lines if last is None else lines[-last:] if last > 0 else []

    @classmethod
    def attach(cls, submission_id: str, address: str, auth_token: str | None = None,
               logdir: str | Path | None = None, mirror: bool | None = None) -> Run:
        """A live Run for the cluster job ``submission_id`` started earlier (say, before a kernel restart): its
        metrics are replayed from the job's first record and followed from there. ``logdir``: where a mirror
        goes if the cluster's run directory is not visible here (default: the submitting notebook's)."""
        from rlworkbench.workbench.targets.job_target import JobExecution

        execution = JobExecution.attach(submission_id, address, auth_token=auth_token, logdir=logdir, mirror=mirror)
        return cls(execution, execution.spec, target="ray").start()

    def plot(self, **options: object) -> Figure:
        """Returns and losses so far as a drawn matplotlib Figure (see ``live_plot.plot_metrics`` for options)."""
        from rlworkbench.workbench.live_plot import plot_metrics

        snapshot = self.execution.snapshot()
        options.setdefault("title", self.logdir.name)
        figure = plot_metrics(snapshot.episodes, snapshot.updates, **options)
        show_figures_as_png()
        return figure

    # ----- control ---------------------------------------------------------------------------------------------
    def stop(self, wait: bool = True) -> Run:
        """Ends the run after its current step; it saves ``checkpoints/final`` and its tables. With ``wait``,
        returns once that is done (a failed run's error is kept for :meth:`wait`, not raised here)."""
        self.execution.stop()
        if wait:
            self.execution.join()
        return self

    def wait(self, timeout: float | None = None) -> Run:
        """Blocks until the run ends and returns it; re-raises the error of a failed run as it was raised (same
        type). ``TimeoutError`` after ``timeout`` seconds (the run goes on; the message says what it is busy
        with)."""
        if not self.execution.join(timeout):
            activity = self.execution.activity()
            raise TimeoutError(f"the run in {self.logdir} is still {self.state} after {timeout} s"
                               + (f"; {activity}" if activity else ""))
        error = self.execution.error
        if error is not None:
            if not self._error_noted:
                error.add_note(f"(raised in the {self.target} training run {self.logdir})")
                self._error_noted = True
            raise error
        return self

    def resume(self, **settings: object) -> Run:
        """A new Run that goes on with this one (stopped, failed or finished) from its newest complete checkpoint:
        same directory, record and settings, unless given again (``timesteps=`` extends it). ``promote(resume=...)``
        does the same for a run directory or id, e.g. after a kernel died."""
        from rlworkbench.workbench.resume import resume_spec
        from rlworkbench.workbench.targets import get_target

        target, spec = resume_spec(self, self.spec.agent, self.target, **settings)
        return Run(get_target(target)(spec), spec, target=target).start()

    def load_agent(self, checkpoint: str | Path | None = None) -> object:
        """An :class:`~rlworkbench.agents.Agent` loaded from ``checkpoint`` (default: the newest), with the
        spaces of the run's env."""
        from rlworkbench.agents import Agent
        from rlworkbench.execution.envs import make_vector_env
        from rlworkbench.spaces import from_gymnasium

        path = checkpoint if checkpoint is not None else self.checkpoint
        remote = self.execution.cluster_checkpoint
        if path is None and remote is not None:
            raise CheckpointError("the newest checkpoint is on the cluster, in storage this machine does not see "
                                  "(copy it here and pass its path)", argument="checkpoint",
                                  expected="a checkpoint readable here", got=remote)
        if path is None:
            raise CheckpointError("this run has no checkpoint yet", argument="checkpoint",
                                  expected=f"a checkpoint under {self.logdir / 'checkpoints'}", got=None)
        env = make_vector_env(self.spec.env, 1)
        try:
            spaces = from_gymnasium(env.single_observation_space), from_gymnasium(env.single_action_space)
        finally:
            env.close()
        return Agent.from_checkpoint(path, state_space=spaces[0], action_space=spaces[1], backend=self.spec.backend)

    # ----- views -----------------------------------------------------------------------------------------------
    def widget(self, interval: float = 1.0) -> object:
        """The live ipywidgets view (progress, status, plot), made once and refreshed every ``interval`` s."""
        from rlworkbench.workbench.live_plot import LiveView

        if self._view is None:
            heading = (f"<b title='{html.escape(self.spec.source or '', quote=True)}'>"
                       f"{html.escape(self.headline)}</b>")
            self._view = LiveView(self, interval=interval, title=self.logdir.name, heading=heading).start()
        return self._view.widget

    @property
    def view(self) -> LiveView | None:
        """The :class:`LiveView` behind :meth:`widget` (``None`` before it was asked for)."""
        return self._view

    def tensorboard(self, port: int | None = None, height: int = 800) -> object:
        """TensorBoard on this run's directory, embedded (an ``IPython.display.IFrame``). Starts the server on a
        free (or the given) port at the first call and reuses it; :meth:`close` stops it."""
        from IPython.display import IFrame

        from rlworkbench.workbench.run_tensorboard import served

        self._tensorboard = served(self._tensorboard, self.logdir, port)
        return IFrame(self._tensorboard.url, width="100%", height=height)

    @property
    def tensorboard_server(self) -> TensorBoardServer | None:
        return self._tensorboard

    def close(self) -> None:
        """Stops the run (waiting for its final checkpoint), the live view and TensorBoard; frees the target."""
        self.stop(wait=True)
        if self._view is not None:
            self._view.refresh()
            self._view.close()
        if self._tensorboard is not None:
            self._tensorboard.stop()
        self.execution.close()

    def detach(self) -> None:
        """Stops following a cluster job from here — the job goes on (``attach`` finds it again); the live view
        keeps its last picture. In-process runs cannot be detached (ConfigError): ``stop()`` or ``wait()``."""
        if not self.execution.remote:
            raise ConfigError("only a run on a cluster goes on without this process", argument="run",
                              expected="a cluster run (promote(..., address='http://...'))", got=self.target)
        if self._view is not None:
            self._view.close()
        self.heartbeat.close()
        self.execution.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ----- display ---------------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        snapshot = self.execution.snapshot()
        recent = snapshot.recent_mean_return
        parts = [f"target={self.target!r}", *([f"devices={self.devices}"] if self.devices else []),
                 f"state={self.state!r}",
                 f"timesteps={snapshot.timesteps}/{self.total_timesteps}", f"episodes={snapshot.num_episodes}",
                 f"recent_return={'n/a' if math.isnan(recent) else f'{recent:.2f}'}", f"logdir='{self.logdir}'"]
        if self.error is not None:
            parts.append(f"error={type(self.error).__name__}: {self.error}")
        return f"Run({', '.join(parts)})"

    def _repr_mimebundle_(self, include: object = None, exclude: Any = None) -> dict[str, object]:
        """In a Jupyter kernel: the live widget; elsewhere: the repr."""
        return widget_bundle(self)


def widget_bundle(subject: Any) -> dict[str, object]:
    """What a live object shows as a cell's value: in a Jupyter kernel its ``widget()`` (its repr as the text
    form), elsewhere its repr."""
    if not _in_kernel():
        return {"text/plain": repr(subject)}
    bundle = dict(subject.widget()._repr_mimebundle_())
    bundle["text/plain"] = repr(subject)
    return bundle


def _in_kernel() -> bool:
    """Whether this runs inside an IPython kernel (which can show widgets)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
