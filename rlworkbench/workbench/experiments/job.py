"""A sweep as one Ray job on a cluster: the Tune driver runs inside the job; the notebook follows its log.

``sweep(..., address="http://head:8265")`` checks everything here, then :func:`submit_job` ships the plan and the
space (as JSON: :func:`~.search_space.encode_space`) in a job package and submits
``python -m rlworkbench.workbench.experiments.job <package>``. :func:`main` (the job) reads them, points the plan
at the cluster's experiment directory and drives Tune on the cluster it runs in, printing every record on its log
as well as into ``records.jsonl``; SIGTERM (``Experiment.stop()``, ``ray job stop``) writes the stop file, so every
trial stops and keeps its final checkpoint. The notebook's :class:`JobSource` reads the job's log from its first
line into the experiment's book — so :func:`attach_job` after a kernel restart sees the whole experiment again.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import signal
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rlworkbench.errors import ClusterError, ConfigError

if TYPE_CHECKING:
    from ray.job_submission import JobSubmissionClient

    from rlworkbench.workbench.cluster.follower import LogFollower
    from rlworkbench.workbench.experiments.plan import ExperimentPlan
    from rlworkbench.workbench.experiments.records import ExperimentBook

SUBMISSION_PREFIX = "rlworkbench-experiment-"
METADATA_KIND = "experiment"  #: the job metadata's ``kind`` for a sweep (a single run's job has none)


def submission_id(name: str) -> str:
    return SUBMISSION_PREFIX + name


def submit_job(plan: ExperimentPlan, space: Mapping[str, object], auth_token: str | None = None,
               runtime_env: Mapping[str, object] | None = None,
               ship_code: bool = True, stop_grace: float = 60.0, cluster_logdir: str | None = None) -> JobSource:
    """Submits the sweep ``plan`` over ``space`` to the cluster at ``plan.options["address"]``; the job's
    :class:`JobSource` (``Experiment.follow`` reads it)."""
    from rlworkbench.workbench.cluster.connection import connect
    from rlworkbench.workbench.cluster.job_package import package_name, write_job_package
    from rlworkbench.workbench.cluster.submission import (
        LOOPBACK_HOSTS,
        METADATA_KEY,
        REMOTE_LOGDIR,
        Submission,
        _version,
        job_runtime_env,
        submit_when_ready,
    )
    from rlworkbench.workbench.experiments.search_space import encode_space

    if plan.scheduler not in (None, "asha", "pbt") or plan.search not in (None, "optuna"):
        raise ConfigError("a sweep on a cluster takes the schedulers and searches by name", argument="scheduler",
                          expected="None/'asha'/'pbt' and None/'optuna'", got=f"{plan.scheduler}, {plan.search}")
    if not (isinstance(stop_grace, (int, float)) and math.isfinite(stop_grace) and stop_grace > 0):
        raise ConfigError("bad stop grace", argument="stop_grace", expected="seconds > 0", got=stop_grace)
    address = str(plan.options["address"])
    from urllib.parse import urlparse

    local_head = urlparse(address).hostname in LOOPBACK_HOSTS
    cluster_parent = cluster_logdir or (str(Path(plan.directory).parent) if local_head else REMOTE_LOGDIR)
    job_id = submission_id(plan.name)
    spec: dict[str, object] = {"submission_id": job_id, "plan": dataclasses.asdict(plan),
                               "space": encode_space(space), "cluster_logdir": cluster_parent}
    submission = Submission(address=address, auth_token=auth_token, submission_id=job_id, target=METADATA_KIND,
                            spec=spec, weights=None, runtime_env=dict(runtime_env or {}), ship_code=ship_code,
                            stop_grace=float(stop_grace), mirror=None, local_run_dir=Path(plan.directory))
    client = connect(address, auth_token)
    metadata = {METADATA_KEY: _version(), "kind": METADATA_KIND, "name": plan.name,
                "plan": json.dumps(dataclasses.asdict(plan), default=str)}
    folder = Path(tempfile.mkdtemp(prefix="rlworkbench-submit-"))
    try:
        package = write_job_package(folder, spec, None)
        environment = job_runtime_env(submission, package)
        environment["env_vars"].update(RLWORKBENCH_EXPERIMENT_JOB="1", RLWORKBENCH_SUBMISSION_ID=job_id)
        try:
            submit_when_ready(client, entrypoint=f"python -m rlworkbench.workbench.experiments.job "
                              f"{package_name(job_id)}", submission_id=job_id, runtime_env=environment,
                              metadata=metadata)
        except Exception as error:
            raise ClusterError(f"the cluster refused the sweep's job: {error}", argument="address",
                               expected="a job Ray accepts", got=job_id) from error
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return JobSource(client, job_id, address)


def find_job(name: str, address: str, auth_token: str | None = None) -> tuple[JobSource, ExperimentPlan]:
    """The job of the experiment ``name`` on the cluster at ``address`` (it runs, or ran): its source, to be
    followed from its first record, and its plan."""
    from rlworkbench.workbench.cluster.connection import connect, job_metadata
    from rlworkbench.workbench.experiments.plan import ExperimentPlan

    client = connect(address, auth_token)
    job_id = submission_id(name)
    metadata = job_metadata(client, job_id, "name", "the job id of an experiment submitted to this cluster")
    if metadata.get("kind") != METADATA_KIND:
        raise ClusterError("this job is not an rlworkbench sweep", argument="name", expected="a sweep's name",
                           got=name)
    return JobSource(client, job_id, address), ExperimentPlan(**json.loads(metadata["plan"]))


def listing_row(client: JobSubmissionClient, job_id: str, metadata: Mapping[str, str]) -> dict[str, object]:
    """``list_runs``' row of a sweep's job: its trials' env steps of their budgets, the best trial's value."""
    from rlworkbench.workbench.experiments.records import ExperimentBook, parse_record

    plan = json.loads(metadata["plan"])
    book = ExperimentBook(plan["paths"], plan["seeds"], plan["budget"], plan["metric"], plan["mode"])
    try:
        text = client.get_job_logs(job_id)
    except Exception:
        text = ""
    for line in text.splitlines():
        record = parse_record(line) if line.startswith("rlworkbench-experiment ") else None
        if record is not None:
            book.apply(record)
    best = book.best_trial()
    return {"submission_id": job_id, "config": metadata.get("name"), "env": plan["settings"].get("env"),
            "target": "sweep", "workers": 0, "timesteps": sum(int(t["timesteps"] or 0) for t in book.trials.values()),
            "total_timesteps": plan["budget"] * max(plan["trials"], len(book.trials)),
            "return": book.trials[best]["last"] if best is not None else float("nan")}


class JobSource:
    """Feeds a sweep job's records to an experiment's book as the job's log grows (see the module docstring)."""

    remote = True

    def __init__(self, client: JobSubmissionClient, job_id: str, address: str):
        self.client, self.submission_id, self.address = client, job_id, address
        self.lines: list[str] = []  #: the job's other log lines (Ray's, Tune's, tracebacks)
        self._book: ExperimentBook | None = None
        self._follower: LogFollower | None = None

    def start(self, book: ExperimentBook) -> JobSource:
        from rlworkbench.workbench.cluster.follower import LogFollower

        self._book = book
        self._follower = LogFollower(self.client, self.submission_id, self._on_line, self._on_end).start()
        return self

    def _on_line(self, line: str) -> None:
        from rlworkbench.workbench.experiments.records import parse_record

        record = parse_record(line) if line.startswith("rlworkbench-experiment ") else None
        if record is None:
            self.lines.append(line)
            del self.lines[:-2000]
        else:
            assert self._book is not None  # start() sets it before the follower runs
            self._book.apply(record)

    def _on_end(self) -> None:
        """The job is over: if its log has no closing record (killed, crashed), the state comes from Ray."""
        assert self._book is not None and self._follower is not None  # start() set both
        if self._book.state not in ("starting", "running") or self._follower.closed:
            return
        try:
            info = self.client.get_job_info(self.submission_id)
            status, message = str(info.status.value), info.message or ""
        except Exception as error:
            status, message = "FAILED", f"lost the job: {error}"
        state = {"SUCCEEDED": "finished", "STOPPED": "stopped"}.get(status, "failed")
        self._book.apply({"kind": "experiment", "state": state,
                          "error": None if state != "failed" else f"the job ended {status}: {message[-500:]}"})

    def read_all(self) -> None:
        """Records arrive by themselves (the follower thread)."""

    def stop(self) -> None:
        """Asks Ray to stop the job (SIGTERM: the trials stop and keep their final checkpoints)."""
        try:
            self.client.stop_job(self.submission_id)
        except Exception as error:
            raise ClusterError(f"cannot stop the job: {error}", argument="name", got=self.submission_id) from error

    def close(self) -> None:
        if self._follower is not None:
            self._follower.close()


# ----- the job itself ---------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """``python -m rlworkbench.workbench.experiments.job <package or spec.json>``; exit status 0, 1 (the driver
    failed) or 2 (bad command line)."""
    from rlworkbench.workbench.cluster.job_package import read_job_package
    from rlworkbench.workbench.experiments.driver import STOP_FILE, drive, make_tuner
    from rlworkbench.workbench.experiments.plan import ExperimentPlan
    from rlworkbench.workbench.experiments.search_space import decode_space

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m rlworkbench.workbench.experiments.job <rlworkbench_job_<id> package | spec.json>",
              file=sys.stderr)
        return 2
    spec, _ = read_job_package(args[0])
    plan = ExperimentPlan(**spec["plan"])
    plan.directory = str(Path(spec["cluster_logdir"]).expanduser().resolve() / plan.name)
    plan.runs_dir = "off"  # the notebook's Experiment stands for the sweep in its runs panel
    plan.options = {**plan.options, "address": None}
    plan.write()
    stop_file = plan.path / STOP_FILE

    def ask_to_stop(*_: object) -> None:
        stop_file.write_text("stop")

    try:
        from rlworkbench.execution.ray.session import ensure_ray

        ensure_ray()
        for signum in (signal.SIGTERM, signal.SIGINT):  # after ray.init, whose own SIGTERM handler exits at once
            signal.signal(signum, ask_to_stop)
        drive(make_tuner(plan, decode_space(spec["space"])), plan)
    except Exception as error:
        print(f"the sweep's driver failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
