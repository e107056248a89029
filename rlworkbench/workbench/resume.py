"""Going on with a run that stopped, failed or lost its process: ``promote(resume=...)`` and ``Run.resume()``.

A run directory says what ran (``run.json``: name, env, backend, seed, target, settings, record id; ``config.json``)
and how far it got (``checkpoints/``: every checkpoint of a promoted run carries the run's progress, see
:mod:`~rlworkbench.execution.resume_points`). :func:`resume_spec` turns that into the spec of the same run again —
same directory, same record id (the runs panel shows one run, live again), the newest complete checkpoint as its
start — with any setting given now taking precedence (``timesteps=`` to extend a finished run). The earlier part's
end is kept in ``run.json``'s ``resumes``: from which checkpoint, and how many env steps its last record had seen
past it (the work the crash cost).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Protocol, runtime_checkable

from rlworkbench.errors import ConfigError
from rlworkbench.execution.progress import read_progress
from rlworkbench.execution.resume_points import newest_resume_point
from rlworkbench.workbench.cluster.connection import is_cluster_address
from rlworkbench.workbench.run_records import LIVE_STATES, ORPHANED, read_records, record_text
from rlworkbench.workbench.run_result import RUN_FILE
from rlworkbench.workbench.run_spec import RunContext, RunSpec, make_spec


@runtime_checkable
class RunHandle(Protocol):
    """What a resume reads of a :class:`~rlworkbench.workbench.run.Run` (named so, not imported: ``Run.resume``
    comes here)."""

    id: str
    logdir: Path
    done: bool
    state: str
    timesteps: int
    heartbeat: object


Record = dict[str, object]  #: a run record as read from the runs directory (see :mod:`.run_records`)
RUN_ID = re.compile(r"[0-9a-f]{12}")
RESUME_LOG = "resume.log"  #: what a resume started in a process of its own prints, in the run directory
_LAUNCHED: list[subprocess.Popen[bytes]] = []  # resumes this process started (reaped as later ones start)


def resume_spec(resume: object, prototype: object = None, to: str | None = None,
                **settings: object) -> tuple[str, RunSpec]:
    """``(target, spec)`` that go on with the run ``resume`` (a :class:`~rlworkbench.workbench.run.Run`, its
    directory, or its record id); see the module docstring. ConfigError if it is still going or its directory
    says nothing; CheckpointError if it has no complete checkpoint."""
    run_dir, record = _run_dir_and_record(resume)
    if record is not None and record.get("submission_id") and is_cluster_address(
            settings.get("address", record.get("address"))):  # a Ray job: a new job goes on with it
        from rlworkbench.workbench.cluster.resume_job import cluster_resume_spec

        return "ray", cluster_resume_spec(record, run_dir, [], settings)
    try:
        description = json.loads((run_dir / RUN_FILE).read_text())
        config = json.loads((run_dir / "config.json").read_text())
    except (OSError, ValueError) as error:
        raise ConfigError("this folder is not a run directory of promote() (run.json and config.json)",
                          argument="resume", expected="a run directory, a Run or a run id",
                          got=f"{run_dir}: {error}") from None
    target = to or description.get("target") or "local"
    given = {**description.get("settings", {}), **settings}
    if "env" not in given:
        raise ConfigError("the run's env was an env factory, which run.json cannot hold: pass env= again",
                          argument="env", expected="a Gymnasium env id or an env factory", got="nothing")
    checkpoint = newest_resume_point(run_dir)
    if prototype is None:
        prototype = config
    else:
        given.pop("backend", None)  # an agent knows its own
    spec = make_spec(prototype, **given)
    spec.name = description.get("name") or spec.name
    spec.source = description.get("source") or spec.source  # the notebook that started it, not the resumer
    run_id = description.get("run_id") or record_text(record, "id")
    saved = read_progress(checkpoint)
    seen = int(record_text(record, "timesteps") or saved.timesteps)
    resumes = [*description.get("resumes", []),
               {"at": time.time(), "checkpoint": checkpoint.name, "timesteps": saved.timesteps,
                "state_before": record_text(record, "state"), "timesteps_lost": max(0, seen - saved.timesteps)}]
    spec.context = RunContext(run_id=run_id, labels=dict(description.get("labels") or {}), run_dir=run_dir,
                              resume_from=checkpoint, target=target, resumes=resumes)
    return target, spec


def _run_dir_and_record(resume: object) -> tuple[Path, Record | None]:
    """The run directory ``resume`` names and its record (None if the runs directory has none); a ConfigError if
    the run is still going."""
    records = read_records()
    record: Record | None
    if isinstance(resume, RunHandle):
        if not resume.done and not getattr(getattr(resume, "execution", None), "remote", False):
            raise ConfigError("this run is still going: stop() it (or wait()) before resuming it",
                              argument="resume", expected="a finished, stopped or failed run", got=resume.state)
        # its record on disk may lag its end by a beat: what the Run says now is what counts (a cluster job's
        # state is the cluster's: asked there)
        execution, spec = getattr(resume, "execution", None), getattr(resume, "spec", None)
        record = {"id": resume.id, "state": resume.state, "timesteps": resume.timesteps, "logdir": str(resume.logdir),
                  "submission_id": getattr(execution, "submission_id", None),
                  "address": getattr(execution, "address", None), "config": getattr(spec, "config", None),
                  "config_label": getattr(spec, "config_label", None), "source": getattr(spec, "source", None)}
        return Path(resume.logdir), record
    elif isinstance(resume, str) and RUN_ID.fullmatch(resume) and not Path(resume).exists():
        record = next((r for r in records if r["id"] == resume), None)
        if record is None or not record.get("logdir"):
            raise ConfigError("no run of this id in the runs directory", argument="resume",
                              expected="a run id, a run directory or a Run", got=resume)
        run_dir = Path(str(record["logdir"]))
    elif isinstance(resume, (str, Path)):
        run_dir = Path(resume).expanduser().absolute()
        record = _record_of(run_dir, records)
    else:
        raise ConfigError("resume= takes a run", argument="resume", expected="a Run, a run directory or a run id",
                          got=type(resume).__name__)
    if not run_dir.is_dir():
        raise ConfigError("the run directory is not here", argument="resume", expected="an existing directory",
                          got=str(run_dir))
    if record is not None and record.get("state") in LIVE_STATES and not record.get("submission_id") \
            and not _ended_here(record, run_dir):
        raise ConfigError("this run is still going (its process publishes its record): stop it first, or wait "
                          "until it ends", argument="resume", expected=f"a finished, stopped, failed or {ORPHANED} run",
                          got=f"{record['id']} ({record['state']})")
    return run_dir, record


def _ended_here(record: Record, run_dir: Path) -> bool:
    """Whether a record that still reads live is of a run of this process that has ended (its last record is a
    beat behind)."""
    from rlworkbench.workbench.targets.threaded import live_runs

    if record.get("pid") != os.getpid() or record.get("host") != socket.gethostname():
        return False
    return not any(Path(run.logdir).absolute() == run_dir for run in live_runs())


def _record_of(run_dir: Path, records: list[Record]) -> Record | None:
    """The newest record whose run directory is ``run_dir``."""
    for record in records:  # newest first
        if record.get("logdir") and Path(str(record["logdir"])).absolute() == run_dir:
            return record
    return None


def resumable(record: Record, run_dir: Path) -> Path:
    """The checkpoint a resume of ``record``'s run would start from — for a cluster job, its run directory on the
    cluster (the new job takes the newest complete checkpoint there). ConfigError if it is live (a cluster job: if
    the cluster says it is pending or running) or an experiment's trial; CheckpointError if it has no checkpoint;
    ClusterError if its cluster does not answer."""
    if record.get("submission_id"):  # its notebook may have let go of it: the cluster knows whether it still runs
        from rlworkbench.workbench.cluster.resume_job import cluster_run_directory

        return cluster_run_directory(record)
    if record.get("state") in LIVE_STATES:
        raise ConfigError("this run is still going", argument="resume",
                          expected=f"a finished, stopped, failed or {ORPHANED} run", got=str(record.get("state")))
    if record.get("experiment"):
        raise ConfigError("an experiment's trial run goes on with its experiment (Experiment.resume())",
                          argument="resume", expected="a run of its own", got=str(record["experiment"]))
    return newest_resume_point(run_dir)


def launch_resume(run_dir: Path, cwd: str | Path | None = None) -> subprocess.Popen[bytes]:
    """Starts ``rlworkbench resume <run_dir>`` in a process of its own (its own session: it outlives the caller,
    a Jupyter server, say), printing into ``<run_dir>/resume.log``; the resumed run publishes the same record."""
    for process in list(_LAUNCHED):
        if process.poll() is not None:  # reaped: no zombie left behind
            _LAUNCHED.remove(process)
    with (Path(run_dir) / RESUME_LOG).open("ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "rlworkbench.cli", "resume", str(run_dir), "--no-progress"],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   cwd=cwd if cwd and Path(cwd).is_dir() else None, start_new_session=True)
    _LAUNCHED.append(process)
    return process
