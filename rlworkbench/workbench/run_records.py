"""The record of a run that JupyterLab's runs panel shows, published by every :class:`~rlworkbench.workbench.run.Run`.

One JSON file per run in the runs directory (``RLWORKBENCH_RUNS_DIR``, default ``~/.rlworkbench/runs``), replaced
atomically by a :class:`Heartbeat` thread every ~2 s while the run goes and once more when it ends;
:func:`run_record` is the one place that says what a record holds. A ``<id>.stop`` file beside a record (written by
:func:`request_stop`, for the panel's Stop button) makes the heartbeat call ``run.stop()``. :func:`read_records`
marks a record whose run is still starting or running but whose process is gone (same host) or whose heartbeat
stopped as ``orphaned`` — a kernel that died does not leave a run that runs for ever. What a record holds, field by
field, is written once in ``run_record.schema.json`` (see :mod:`.run_record_schema`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import socket
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Self

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.targets.base import RUNNING, STARTING, RunState

if TYPE_CHECKING:
    from rlworkbench.workbench.run import Run

HEARTBEAT_SECONDS = 2.0
ORPHANED_AFTER = 20.0  #: seconds without a heartbeat after which a live record counts as orphaned
RETURNS_KEPT = 60  #: the last episode returns a record carries (the panel's sparkline)
RecordState = Literal[RunState, "orphaned"]  #: a record's state: the run's, or orphaned (see :func:`read_records`)
ORPHANED: RecordState = "orphaned"
LIVE_STATES: tuple[RunState, ...] = (STARTING, RUNNING)


OFF = "off"  #: ``RLWORKBENCH_RUNS_DIR=off``: runs publish no record (a cluster job's inner run: its notebook does)


def runs_dir() -> Path | None:
    """``RLWORKBENCH_RUNS_DIR``, else ``~/.rlworkbench/runs``; None when it is ``off``."""
    setting = os.environ.get("RLWORKBENCH_RUNS_DIR")
    if setting == OFF:
        return None
    return Path(setting or Path.home() / ".rlworkbench" / "runs").expanduser()


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def run_record(run: Run, run_id: str, started: float) -> dict[str, object]:
    """What the panel knows of ``run``: identity (config label, source notebook or script), target, state (its
    start phase, and error), counters, recent returns, where (absolute paths: the lab's server has its own
    folder; ``cwd`` is the process's, for records that held relative ones)."""
    snapshot = run.snapshot()
    execution, error = run.execution, run.error
    recent = snapshot.episodes.tail(RETURNS_KEPT)
    returns = recent["return"].tolist()
    return {
        "id": run_id, "name": run.spec.name, "config_label": run.spec.config_label or run.spec.name,
        "source": run.spec.source, "env": run.spec.env_name, "backend": run.spec.backend,
        "target": run.target, "devices": run.devices, "state": run.state, "phase": run.phase,
        "error": None if error is None else f"{type(error).__name__}: {error}",
        "timesteps": snapshot.timesteps, "total_timesteps": run.total_timesteps, "updates": snapshot.num_updates,
        "steps_per_second": _finite(snapshot.steps_per_second), "episodes": snapshot.num_episodes,
        "recent_return": _finite(snapshot.recent_mean_return), "returns": [_finite(value) for value in returns],
        "return_points": [[int(t), _finite(value)] for t, value in zip(recent["timesteps_total"], returns)],
        "logdir": str(Path(run.logdir).absolute()), "cwd": os.getcwd(),
        "checkpoint": None if run.checkpoint is None else str(Path(run.checkpoint).absolute()),
        "config": run.spec.config, "submission_id": getattr(execution, "submission_id", None),
        "address": getattr(execution, "address", None), "host": socket.gethostname(), "pid": os.getpid(),
        "started": started, "updated": time.time(), "labels": run.spec.context.labels,
        "experiment": run.spec.context.labels.get("experiment"),
    }


class Publisher:
    """Writes a record (:meth:`record`) into the runs directory every ``interval`` s from a daemon thread until its
    subject is done (then once more), and acts on a ``<id>.stop`` request beside it (:meth:`stop_requested`)."""

    def __init__(self, record_id: str, directory: Path | None = None, interval: float = HEARTBEAT_SECONDS):
        self.record_id, self.interval, self.started = record_id, float(interval), time.time()
        self.directory = Path(directory) if directory is not None else runs_dir()  # None: publish nothing
        self.failure: BaseException | None = None  #: why records could not be written (the subject goes on)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._main, name=f"rlworkbench-heartbeat-{record_id}", daemon=True)

    def record(self) -> dict[str, object]:
        raise NotImplementedError

    def stop_requested(self) -> None:
        raise NotImplementedError

    def subject_done(self) -> bool:
        raise NotImplementedError

    @property
    def path(self) -> Path | None:
        return None if self.directory is None else self.directory / f"{self.record_id}.json"

    def start(self) -> Self:
        if self.directory is not None:
            self._thread.start()
        return self

    def close(self) -> None:
        """Writes the record once more and stops."""
        self._closed.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5)

    def beat(self) -> None:
        """Writes the record now and acts on a stop request."""
        assert self.directory is not None
        stop_file = self.directory / f"{self.record_id}.stop"
        if stop_file.exists():
            stop_file.unlink(missing_ok=True)
            self.stop_requested()
        record = self.record()
        self.directory.mkdir(parents=True, exist_ok=True)
        temporary = self.directory / f".{self.record_id}.json.tmp"
        temporary.write_text(json.dumps(record, default=str))
        temporary.replace(self.directory / f"{self.record_id}.json")

    def _main(self) -> None:
        while True:
            done = self.subject_done()
            try:
                self.beat()
            except Exception as error:  # a full disk or a read-only home: the subject must not suffer for it
                self.failure = error
            if done:
                return
            if self._wait():
                with contextlib.suppress(Exception):  # closed while live: one last record, as it is now
                    self.beat()
                return

    def _wait(self) -> bool:
        """Sleeps until the next beat — less when the subject ends meanwhile; whether :meth:`close` was called."""
        deadline = time.monotonic() + self.interval
        while time.monotonic() < deadline and not self.subject_done():
            if self._closed.wait(min(0.2, self.interval)):
                return True
        return False


class Heartbeat(Publisher):
    """Publishes ``run``'s record (:func:`run_record`) and stops the run when a stop request appears."""

    def __init__(self, run: Run, directory: Path | None = None, interval: float = HEARTBEAT_SECONDS,
                 run_id: str | None = None):
        super().__init__(run_id or new_run_id(), directory, interval)
        self.run = run

    @property
    def run_id(self) -> str:
        return self.record_id

    def record(self) -> dict[str, object]:
        return run_record(self.run, self.run_id, self.started)

    def stop_requested(self) -> None:
        self.run.execution.stop()

    def subject_done(self) -> bool:
        return self.run.done


def read_records(directory: Path | None = None, now: float | None = None) -> list[dict[str, object]]:
    """Every run record in the runs directory, newest first, live ones whose run is gone marked ``orphaned``."""
    folder = Path(directory) if directory is not None else runs_dir()
    now = time.time() if now is None else now
    records = []
    for path in folder.glob("*.json") if folder is not None and folder.is_dir() else ():
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):  # being replaced right now, or not ours
            continue
        if isinstance(record, dict) and "id" in record:
            if record.get("state") in LIVE_STATES and _orphaned(record, now):
                record["state"] = ORPHANED
            records.append(record)
    return sorted(records, key=lambda record: record.get("started", 0), reverse=True)


def request_stop(run_id: str, directory: Path | None = None) -> dict[str, object]:
    """Asks the run ``run_id`` to stop (its heartbeat acts within ~2 s); returns its record. ConfigError if there
    is no such run or it is not live."""
    folder = Path(directory) if directory is not None else runs_dir()
    if folder is None:
        raise ConfigError("runs publish no records here", argument="RLWORKBENCH_RUNS_DIR", expected="a directory",
                          got=OFF)
    record = next((record for record in read_records(folder) if record["id"] == run_id), None)
    if record is None:
        raise ConfigError("no run of this id", argument="run_id", expected="an id from the runs directory",
                          got=run_id)
    if record["state"] not in LIVE_STATES:
        raise ConfigError("this run is not going", argument="run_id", expected="a starting or running run",
                          got=f"{run_id} ({record['state']})")
    (folder / f"{run_id}.stop").write_text(str(time.time()))
    return record


def record_text(record: Mapping[str, object] | None, key: str) -> str | None:
    """``record[key]`` as text (None when missing or empty)."""
    value = None if record is None else record.get(key)
    return None if value is None or value == "" else str(value)


def record_mapping(record: Mapping[str, object] | None, key: str) -> dict[str, object]:
    """``record[key]`` when it is a mapping (a config, labels), else {}."""
    value = None if record is None else record.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def _orphaned(record: dict[str, object], now: float) -> bool:
    if now - float(record.get("updated", 0)) > ORPHANED_AFTER:
        return True
    if record.get("host") == socket.gethostname():
        return not process_alive(int(record.get("pid", -1)))
    return False


def process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _finite(value: object) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None
