""":class:`Experiment`: the notebook's handle on a sweep — many runs on Ray Tune, one object.

Made by :func:`~.sweep.sweep` (the Tune driver in a daemon thread here, or in a cluster job) or found again by
:meth:`Experiment.attach` — after a kernel restart too, from the experiment directory (or the cluster job). Its
tables come from the experiment's record stream (:mod:`.records`): :attr:`~Experiment.trials` (one row per
trial), :attr:`~Experiment.results` (one per trial x seed), :attr:`~Experiment.curves` (long format), and
:attr:`~Experiment.best` is the best trial's run — promote it again or ``load_agent()`` it. :meth:`stop` stops every
trial (their final checkpoints are kept), :meth:`resume` goes on after the driver died, and as a cell's value an
experiment is a live widget: a sortable trial table and the trials' curves coloured by a parameter.
"""

from __future__ import annotations

import contextlib
import math
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.exit_hooks import at_exit_once
from rlworkbench.workbench.experiments.plan import ExperimentPlan
from rlworkbench.workbench.experiments.records import LIVE_EXPERIMENT_STATES, ExperimentBook, FileFollower
from rlworkbench.workbench.run_records import process_alive
from rlworkbench.workbench.run_result import RunResult

if TYPE_CHECKING:
    import ipywidgets
    from IPython.display import IFrame
    from ray.tune import Tuner

    from rlworkbench.workbench.experiments.job import JobSource
    from rlworkbench.workbench.experiments.publication import ExperimentHeartbeat
    from rlworkbench.workbench.experiments.view import ExperimentView
    from rlworkbench.workbench.run_tensorboard import TensorBoardServer

EXIT_GRACE_SECONDS = 10.0
ORPHAN_SECONDS = 5.0  #: a record file without a live driver behind it: how long to wait before saying so
_LIVE: dict[str, Experiment] = {}  # experiments whose driver runs in this process, by directory


class Experiment:
    """Many runs of one prototype over a space of its config (see the module docstring)."""

    def __init__(self, plan: ExperimentPlan, source: Any = None):
        self.plan = plan
        self.book = ExperimentBook(plan.paths, plan.seeds, plan.budget, plan.metric, plan.mode)
        self.source = source if source is not None else FileFollower(plan.records_path, self.book.apply)
        self._driver: threading.Thread | None = None
        self._driver_error: BaseException | None = None
        self._view: ExperimentView | None = None
        self._seen_orphan_at: float | None = None
        self.heartbeat: ExperimentHeartbeat | None = None  #: publishes the experiment's record (see :meth:`publish`)
        self._tensorboard: TensorBoardServer | None = None

    # ----- starting and finding ---------------------------------------------------------------------------------
    @classmethod
    def start_here(cls, plan: ExperimentPlan, make_tuner: Callable[[], Tuner]) -> Experiment:
        """Runs the Tune driver in a daemon thread of this process (``make_tuner()`` is called there: Ray may have
        to start first) and follows its records."""
        experiment = cls(plan)
        experiment._run_driver(make_tuner)
        experiment.source.start()
        return experiment.publish()

    @classmethod
    def follow(cls, plan: ExperimentPlan, source: JobSource) -> Experiment:
        """An experiment whose driver runs elsewhere (a cluster job), its records read from ``source``."""
        experiment = cls(plan, source)
        source.start(experiment.book)
        return experiment.publish()

    def publish(self) -> Experiment:
        """Publishes the experiment's record for JupyterLab's runs panel (while it goes, and once at its end)."""
        from rlworkbench.workbench.experiments.publication import ExperimentHeartbeat

        if self.heartbeat is None or not self.heartbeat._thread.is_alive():
            self.heartbeat = ExperimentHeartbeat(self).start()
        return self

    def _run_driver(self, make_tuner: Callable[[], Tuner]) -> None:
        from rlworkbench.workbench.experiments.driver import drive

        def main() -> None:
            try:
                from rlworkbench.execution.ray.session import ensure_ray

                ensure_ray(self.plan.options.get("address"))
                drive(make_tuner(), self.plan)
            except BaseException as error:  # drive() wrote the failed record; anything before it did not
                self._driver_error = error
                if self.book.state in ("starting", "running"):
                    from rlworkbench.workbench.experiments.records import RecordWriter

                    RecordWriter(self.plan.records_path)("experiment", state="failed",
                                                         error=f"{type(error).__name__}: {error}")

        (self.plan.path / "stop").unlink(missing_ok=True)
        self._driver = threading.Thread(target=main, name=f"rlworkbench-experiment-{self.name}", daemon=True)
        _LIVE[str(self.plan.path.resolve())] = self
        at_exit_once(_stop_live_experiments)
        self._driver.start()

    @classmethod
    def attach(cls, name: str | Path, logdir: str | Path = "runs", address: str | None = None,
               auth_token: str | None = None) -> Experiment:
        """The experiment ``name`` (under ``logdir``, or a path to its directory) — the live object if its driver
        runs in this process; else one that reads its records (and follows them while its driver runs elsewhere).
        With ``address``, the cluster job that runs it (``name`` is the experiment's name)."""
        if address is not None:
            from rlworkbench.workbench.experiments.job import find_job

            source, plan = find_job(str(name), address, auth_token=auth_token)
            return cls.follow(plan, source)
        directory = Path(name) if Path(name).is_dir() and (Path(name) / "experiment.json").exists() \
            else Path(logdir) / str(name)
        live = _LIVE.get(str(directory.resolve()))
        if live is not None:
            return live
        experiment = cls(ExperimentPlan.read(directory))
        experiment.source.read_all()
        if experiment.book.state in LIVE_EXPERIMENT_STATES and not experiment._driver_gone():
            experiment.source.start()
        return experiment.publish()

    # ----- state ------------------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def directory(self) -> Path:
        """The experiment directory — on a cluster, where the job writes it (its driver's record says)."""
        return Path(self.book.driver.get("directory") or self.plan.directory)

    def run_dir(self, trial_id: str, seed: int) -> Path:
        """The run directory of ``trial_id``'s run for ``seed``."""
        return self.directory / "trials" / trial_id / f"seed_{seed}"

    @property
    def state(self) -> str:
        """``starting``, ``running``, ``finished``, ``stopped``, ``failed`` — or ``orphaned``: the records say running
        but the driver is gone (its process ended); :meth:`resume` goes on from the trials' checkpoints."""
        state = self.book.state
        if state in LIVE_EXPERIMENT_STATES and self._driver_gone():
            return "orphaned"
        return state

    @property
    def done(self) -> bool:
        return self.state in ("finished", "stopped", "failed", "orphaned")

    @property
    def error(self) -> str | None:
        return self.book.error

    def _driver_gone(self) -> bool:
        if self._driver is not None:
            return not self._driver.is_alive() and self.book.state in LIVE_EXPERIMENT_STATES and \
                self._quiet_for(ORPHAN_SECONDS)
        driver = self.book.driver
        if getattr(self.source, "remote", False):
            return False  # a cluster job: its own state says
        if driver.get("host") not in (None, socket.gethostname()):
            return False
        pid = driver.get("pid")
        return pid is None or not process_alive(int(pid))

    def _quiet_for(self, seconds: float) -> bool:
        """Whether the driver has been gone for ``seconds`` (its last record may still be on its way)."""
        now = time.monotonic()
        if self._seen_orphan_at is None:
            self._seen_orphan_at = now
        return now - self._seen_orphan_at >= seconds

    # ----- tables -----------------------------------------------------------------------------------------------
    @property
    def trials(self) -> pd.DataFrame:
        """One row per trial: params, state, env steps, last and best metric, episodes, steps/s, restarts, wall
        time, error."""
        return self.book.trials_table()

    @property
    def results(self) -> pd.DataFrame:
        """One row per trial x seed: ``trial, seed``, params, ``state``, ``timesteps``, ``return`` (the seed's last
        reported mean of its last ``window`` episodes), ``best_return`` (its best such value), ``logdir``."""
        trials = self.trials.set_index("trial")
        curves = self.curves
        rows = []
        for trial_id in trials.index:
            trial = trials.loc[trial_id]
            for seed in self.plan.seeds:
                points = curves[(curves["trial"] == trial_id) & (curves["seed"] == seed)]
                returns = points["return"].astype(float)
                rows.append({"trial": trial_id, "seed": seed, **{path: trial[path] for path in self.plan.paths},
                             "state": trial["state"], "timesteps": int(points["timesteps"].max()) if len(points)
                             else 0, "return": float(returns.iloc[-1]) if len(returns) else math.nan,
                             "best_return": float(returns.max()) if returns.notna().any() else math.nan,
                             "logdir": str(self.run_dir(trial_id, seed))})
        columns = ["trial", "seed", *self.plan.paths, "state", "timesteps", "return", "best_return", "logdir"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def curves(self) -> pd.DataFrame:
        """Long format, one row per trial x seed x result: ``trial, seed, timesteps, return, greedy_return`` and the
        trial's params."""
        return self.book.curves()

    @property
    def best_trial(self) -> str | None:
        """The id of the best trial (of those that went furthest, the best last value of the metric)."""
        return self.book.best_trial()

    @property
    def best(self) -> RunResult | None:
        """The best trial's best seed run (by its last return), read from its directory: ``promote(best, ...)``
        trains its config again, ``best.load_agent()`` loads its final checkpoint. None before any result."""
        trial_id = self.best_trial
        if trial_id is None:
            return None
        results = self.results
        rows = results[results["trial"] == trial_id]
        seed = int(rows.sort_values("return", ascending=self.plan.mode != "max", na_position="last")["seed"].iloc[0])
        return RunResult(self.run_dir(trial_id, seed))

    def runs(self) -> list[RunResult]:
        """Every trial run that has a directory, read from it (for :func:`~.compare.compare`)."""
        folder = self.directory / "trials"
        return [RunResult(path) for path in sorted(folder.glob("*/seed_*")) if (path / "config.json").exists()]

    # ----- control ----------------------------------------------------------------------------------------------
    def stop(self, wait: bool = True, timeout: float | None = 120.0) -> Experiment:
        """Stops every trial (each saves its final checkpoint; trials not started never start); with ``wait``,
        returns once the driver is done."""
        if getattr(self.source, "remote", False):
            self.source.stop()
        else:
            (self.plan.path / "stop").write_text(str(time.time()))
        if wait:
            self.wait(timeout, raise_on_failure=False)
        return self

    def wait(self, timeout: float | None = None, raise_on_failure: bool = True) -> Experiment:
        """Blocks until the experiment is done; a failed driver's error is raised (a ConfigError for the typed
        ones it could not keep). ``TimeoutError`` after ``timeout`` s."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"the experiment {self.name} is still {self.state} after {timeout} s")
            if self._driver is not None:
                self._driver.join(0.2)
            else:
                time.sleep(0.2)
            with contextlib.suppress(Exception):
                self.source.read_all()
        with contextlib.suppress(Exception):
            self.source.read_all()
        if raise_on_failure and self.state == "failed":
            if self._driver_error is not None:
                raise self._driver_error
            raise ConfigError("the experiment's driver failed", argument="experiment", expected="a finished sweep",
                              got=self.error)
        return self

    def resume(self) -> Experiment:
        """Goes on with a stopped, failed or orphaned experiment from Tune's state: unfinished and failed trials
        resume from their newest checkpoints into the same run directories; finished ones stay."""
        from rlworkbench.workbench.experiments.driver import restore_tuner

        if self.state in LIVE_EXPERIMENT_STATES:
            raise ConfigError("this experiment is still running", argument="experiment",
                              expected="a stopped, failed or orphaned experiment", got=self.state)
        if getattr(self.source, "remote", False):
            raise ConfigError("a cluster experiment resumes on its cluster", argument="experiment",
                              expected="an experiment run on this machine", got="a cluster job")
        self.source.close()
        self.source = FileFollower(self.plan.records_path, self.book.apply)
        self.source.read_all()
        self.book.state = "starting"
        self._seen_orphan_at = None
        self._run_driver(lambda: restore_tuner(self.plan))
        self.source.start()
        return self.publish()

    def tensorboard(self, port: int | None = None, height: int = 800) -> IFrame:
        """TensorBoard on the experiment's directory — every trial's run, named ``trials/<trial>/seed_<s>`` —
        embedded (an ``IPython.display.IFrame``); the server is started once and reused, :meth:`close` stops it."""
        from IPython.display import IFrame

        from rlworkbench.workbench.run_tensorboard import served

        self._tensorboard = served(self._tensorboard, self.directory / "trials", port)
        return IFrame(self._tensorboard.url, width="100%", height=height)

    def close(self) -> None:
        """Stops following (the driver and its trials go on) and the TensorBoard server."""
        if self._tensorboard is not None:
            self._tensorboard.stop()
        self.source.close()
        if self.heartbeat is not None:
            self.heartbeat.close()
        if self._view is not None:
            self._view.close()

    # ----- display ----------------------------------------------------------------------------------------------
    def widget(self, interval: float = 1.0) -> ipywidgets.VBox:
        """The live widget (trial table, curves), refreshed every ``interval`` s (at most 2)."""
        from rlworkbench.workbench.experiments.view import ExperimentView

        if self._view is None:
            self._view = ExperimentView(self, interval=min(interval, 2.0)).start()
        return self._view.widget

    def __repr__(self) -> str:
        counts = ", ".join(f"{state}={count}" for state, count in self.book.state_counts().items())
        best = self.book.trials.get(self.best_trial or "", {}).get("last", math.nan)
        return (f"Experiment({self.name!r}, state={self.state!r}, trials: {counts or 'none yet'}, "
                f"best {self.plan.metric}={best:.2f}, directory='{self.directory}')")

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, object]:
        """In a Jupyter kernel: the live widget; elsewhere: the repr."""
        from rlworkbench.workbench.run import widget_bundle

        return widget_bundle(self)


def _stop_live_experiments() -> None:
    """At interpreter exit (registered when the first driver starts here): asks the live experiments to stop and
    gives their drivers a few seconds to save the trials' final checkpoints."""
    live = [experiment for experiment in _LIVE.values() if experiment.state in LIVE_EXPERIMENT_STATES]
    for experiment in live:
        with contextlib.suppress(Exception):
            (experiment.plan.path / "stop").write_text(str(time.time()))
    for experiment in live:
        if experiment._driver is not None:
            experiment._driver.join(EXIT_GRACE_SECONDS)

