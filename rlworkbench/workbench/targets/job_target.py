"""A run on a cluster reached through Ray Jobs: ``promote(prototype, to="ray", address="http://head:8265")``.

:meth:`JobExecution.submit` checks the run here
(:func:`~rlworkbench.workbench.cluster.submission.plan_submission`), ships it as a job package and submits
``python -m rlworkbench.workbench.cluster.job <package>`` with ``JobSubmissionClient``; :meth:`JobExecution.attach`
follows a job submitted earlier (after a kernel restart). Either way a
:class:`~rlworkbench.workbench.cluster.follower.LogFollower` reads the job's log from its first line in a daemon
thread: the job's records (:mod:`rlworkbench.workbench.cluster.records`) fill the same metrics book a local run
has, so the ``Run``'s widget, ``metrics``, ``updates``, ``workers`` and ``plot()`` look as they do for a local run;
every other line is kept for :meth:`JobExecution.logs`.

Files: when the job's run directory is visible here (shared storage — always for a head on this machine),
``run.logdir`` is that directory and checkpoints load as usual. Otherwise the followed metrics are mirrored into a
local run directory (:mod:`rlworkbench.workbench.cluster.mirror`) and :attr:`JobExecution.cluster_checkpoint`
says where the checkpoints are on the cluster.

``stop()`` asks Ray to stop the job: the job gets SIGTERM, saves its final checkpoint and exits; after
``stop_grace`` seconds Ray kills it. A job that failed is raised by ``run.wait()`` as the job's own error type
where this side has it (rlworkbench's errors, Python's), else as :class:`~rlworkbench.errors.JobFailed`.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import tempfile
import threading
from collections import deque
from pathlib import Path
from typing import Any

import pandas as pd

from rlworkbench.errors import ClusterError, JobFailed
from rlworkbench.execution.metrics import MetricsBook, MetricsSnapshot
from rlworkbench.workbench.cluster.connection import connect, job_metadata
from rlworkbench.workbench.cluster.follower import LogFollower
from rlworkbench.workbench.cluster.job_package import JOB_FILE
from rlworkbench.workbench.cluster.mirror import MetricsMirror
from rlworkbench.workbench.cluster.records import RAY_STATES, decode_error, parse_line
from rlworkbench.workbench.run_spec import RunSpec
from rlworkbench.workbench.targets.base import FAILED, FINISHED, RUNNING, STARTING, Execution

LOG_LINES = 5000  #: log lines kept for ``logs()``


class JobExecution(Execution):
    """A Ray job followed from here; made by :meth:`submit` or :meth:`attach`."""

    remote = True

    def __init__(self, client: Any, submission_id: str, address: str, spec: RunSpec, run_dir: Path,
                 mirror: bool | None = None):
        super().__init__(run_dir, spec.timesteps)
        self.client, self.submission_id, self.address, self.spec = client, submission_id, address, spec
        self.mirror_setting = mirror
        self.cluster_run_dir: str | None = None  #: the run directory on the cluster (from the job's start record)
        self._cluster_checkpoint: str | None = None  # the newest checkpoint there
        self.shared: bool | None = None  #: whether the cluster's run directory is this machine's (None: not known)
        self.book = MetricsBook(1)
        self._lock = threading.Lock()
        self._ended = False
        self._counters = (0, 0.0, float("nan"))  # timesteps, wall time, steps/s
        self._tables: tuple[pd.DataFrame | None, ...] = (None, None, None)
        self._lines: deque[str] = deque(maxlen=LOG_LINES)
        self._mirror: MetricsMirror | None = None
        self._follower = LogFollower(client, submission_id, self._on_line, self._conclude).start()

    # ----- making one ------------------------------------------------------------------------------------------
    @classmethod
    def submit(cls, spec: RunSpec) -> JobExecution:
        """Checks ``spec``, submits it as a job and follows it."""
        from rlworkbench.workbench.cluster.submission import plan_submission

        plan = plan_submission(spec)
        client = connect(plan.address, plan.auth_token)
        _submit(client, plan)
        return cls(client, plan.submission_id, plan.address, spec, plan.local_run_dir, plan.mirror)

    @classmethod
    def attach(cls, submission_id: str, address: str, auth_token: str | None = None, logdir: str | Path | None = None,
               mirror: bool | None = None) -> JobExecution:
        """Follows the rlworkbench job ``submission_id`` submitted earlier, from its first record."""
        from rlworkbench.workbench.cluster.submission import METADATA_KEY

        client = connect(address, auth_token)
        metadata = job_metadata(client, submission_id, "submission_id", "an id from list_runs(address)")
        if METADATA_KEY not in metadata:
            raise ClusterError("this job was not submitted by rlworkbench", argument="submission_id",
                               expected="an rlworkbench job's id (list_runs)", got=submission_id)
        parent = Path(logdir if logdir is not None else metadata["logdir"])
        spec = RunSpec(name=metadata["name"], config={}, env=metadata["env"], backend=metadata["backend"],
                       timesteps=int(metadata["timesteps"]), logdir=parent, run_name=metadata["run_name"])
        return cls(client, submission_id, address, spec, parent / metadata["run_name"], mirror)

    # ----- the Execution face ----------------------------------------------------------------------------------
    @property
    def checkpoint(self) -> Path | None:
        """The newest checkpoint, where this machine can read it (else None: see :attr:`cluster_checkpoint`)."""
        if self._cluster_checkpoint is None or not self.shared:
            return None
        return Path(self._cluster_checkpoint)

    @property
    def cluster_checkpoint(self) -> str | None:
        """The newest checkpoint's path on the cluster, when this machine cannot read it there."""
        return None if self.shared else self._cluster_checkpoint

    def snapshot(self) -> MetricsSnapshot:
        timesteps, wall_time, speed = self._counters
        book = self.book
        return MetricsSnapshot(timesteps, book.num_episodes, book.num_updates, wall_time, speed,
                               book.recent_mean_return, self._state == RUNNING, book.episodes(), book.updates())

    def workers(self) -> pd.DataFrame | None:
        return self._tables[0]

    def shards(self) -> pd.DataFrame | None:
        return self._tables[1]

    def learners(self) -> pd.DataFrame | None:
        return self._tables[2]

    def logs(self) -> list[str]:
        """The job's own log lines so far (Ray's, the framework's, warnings, tracebacks), records left out."""
        with self._lock:
            return list(self._lines)

    def stop(self) -> None:
        """Asks Ray to stop the job (SIGTERM: it saves its final checkpoint; killed after ``stop_grace`` s)."""
        if not self.done:
            with contextlib.suppress(Exception):  # it ended meanwhile
                self.client.stop_job(self.submission_id)

    def join(self, timeout: float | None = None) -> bool:
        return self._follower.done.wait(timeout)

    def close(self) -> None:
        self._follower.close()
        if self._mirror is not None:
            with contextlib.suppress(Exception):
                self._mirror.log.close()

    # ----- the job's log ---------------------------------------------------------------------------------------
    def _on_line(self, line: str) -> None:
        record = parse_line(line)
        if record is None:
            with self._lock:
                self._lines.append(line)
            return
        handler = getattr(self, f"_on_{record['kind']}", None)
        if handler is not None:
            handler(record)

    def _on_start(self, record: dict[str, Any]) -> None:
        self.cluster_run_dir = record["run_dir"]
        if not self.spec.config:
            self.spec.config = dict(record.get("config") or {})
        own = Path(self.cluster_run_dir)
        self.shared = _written_by(own, self.submission_id)
        if self.shared and not self.mirror_setting:
            self.logdir = own
            return
        run_dir = self.logdir if not self.logdir.exists() else self.logdir.with_name(self.logdir.name + "-mirror")
        self._mirror = MetricsMirror(run_dir, self.spec.config, {
            "address": self.address, "submission_id": self.submission_id, "cluster_run_dir": self.cluster_run_dir})
        self.logdir = run_dir

    def _on_tick(self, record: dict[str, Any]) -> None:
        episodes, updates = record.get("episodes") or [], record.get("updates") or []
        self.book.add_rows(episodes, updates)
        self._counters = (int(record.get("timesteps", 0)), float(record.get("wall_time", 0.0)),
                          _number(record.get("steps_per_second")))
        self._tables = (_frame(record.get("workers")), _frame(record.get("shards")), _frame(record.get("learners")))
        self._note_checkpoint(record.get("checkpoint"))
        if not self._ended and record.get("state") in (STARTING, RUNNING):
            self._state = record["state"]
        if self._mirror is not None:
            self._mirror.add(episodes, updates)

    def _on_end(self, record: dict[str, Any]) -> None:
        self._ended = True
        self._note_checkpoint(record.get("checkpoint"))
        if record.get("error"):
            self._error = decode_error(record["error"], f"{self.submission_id} on {self.address}")
        self._state = FAILED if self._error is not None else record.get("state", FINISHED)

    def _note_checkpoint(self, path: str | None) -> None:
        if path and path != self._cluster_checkpoint:
            self._cluster_checkpoint = path
            if self._mirror is not None:
                self._mirror.note(checkpoint=path)

    def _conclude(self) -> None:
        """The follower is done — the job is over, or no longer followed: the final state from Ray where the job
        wrote no ``end`` record (killed, or crashed before it could), and the mirror's tables."""
        if not self._ended and not self._follower.closed:
            try:
                info = self.client.get_job_info(self.submission_id)
            except Exception as error:
                info, self._error = None, ClusterError(f"lost the job: {error}", argument="submission_id",
                                                       got=self.submission_id)
            if info is not None:
                self._state = RAY_STATES.get(str(info.status.value), FAILED)
                if self._state == FAILED:
                    self._error = JobFailed(f"the job {self.submission_id} failed without a word of its own: "
                                            f"{(info.message or '')[-2000:]}")
            else:
                self._state = FAILED
            self._ended = True
        if self._mirror is not None:
            with contextlib.suppress(Exception):
                self._mirror.note(state=self._state)
                self._mirror.finish(self.book.episodes(), self.book.updates())


def _submit(client: Any, plan: Any) -> None:
    """Writes the job package into a temporary folder, submits the job (Ray uploads the package) and removes it."""
    from rlworkbench.workbench.cluster.job_package import write_job_package
    from rlworkbench.workbench.cluster.submission import entrypoint, job_runtime_env, submit_when_ready

    folder = Path(tempfile.mkdtemp(prefix="rlworkbench-submit-"))
    try:
        package = write_job_package(folder, plan.spec, plan.weights)
        try:
            submit_when_ready(client, entrypoint=entrypoint(plan), submission_id=plan.submission_id,
                              runtime_env=job_runtime_env(plan, package), metadata=plan.metadata)
        except Exception as error:
            raise ClusterError(f"the cluster refused the job: {error}", argument="runtime_env",
                               expected="a job Ray accepts", got=plan.submission_id) from error
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _written_by(run_dir: Path, submission_id: str) -> bool:
    """Whether ``run_dir`` is visible here and is the one job ``submission_id`` writes (its ``job.json``)."""
    try:
        return json.loads((run_dir / JOB_FILE).read_text()).get("submission_id") == submission_id
    except (OSError, ValueError, AttributeError):
        return False


def _frame(rows: Any) -> pd.DataFrame | None:
    return None if rows is None else pd.DataFrame.from_records(rows)


def _number(value: object) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return float("nan")
    return number if math.isfinite(number) else float("nan")
