"""What happens in an experiment, as a stream of JSON records, and the book that reads them: :class:`ExperimentBook`.

The Tune driver writes one record per event (:class:`Recorder`, a Tune callback) to the experiment's
``records.jsonl`` — and, inside a cluster job, to its log too. The notebook's :class:`~.experiment.Experiment`
rebuilds its tables from that stream wherever it comes from: the file (a sweep on this machine, or one attached
after the notebook that started it is gone) or the job's log (a sweep on a cluster). Kinds:

- ``experiment``: the driver's state — ``running`` (with its ``pid``/``host``), then ``finished``, ``stopped`` or
  ``failed`` (with ``error``);
- ``trial``: a trial started or took new params (PBT) — ``trial``, ``params``;
- ``result``: a trial's result — ``trial``, ``timesteps``, ``return``, ``per_seed`` returns, ``greedy_return``,
  ``episodes``, ``steps_per_second``, ``restarts``, ``wall_time``;
- ``trial_end``: ``trial``, ``state`` (``finished``, ``stopped`` — by a scheduler or a stop — or ``failed``),
  ``error``.
"""

from __future__ import annotations

import json
import math
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

RECORD_PREFIX = "rlworkbench-experiment "  #: marks a record among a job's other log lines
TRIAL_STATES = ("pending", "running", "finished", "stopped", "failed")
LIVE_EXPERIMENT_STATES = ("starting", "running")


def record_line(kind: str, **fields: object) -> str:
    """One record as a JSON line (non-finite numbers as null)."""
    return json.dumps({"kind": kind, "time": time.time(), **{key: _finite(value) for key, value in fields.items()}})


def parse_record(line: str) -> dict[str, object] | None:
    """A record from a ``records.jsonl`` line or a job log line (prefixed); None for any other line."""
    text = line.strip()
    if text.startswith(RECORD_PREFIX):
        text = text[len(RECORD_PREFIX):]
    if not text.startswith("{"):
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) and "kind" in record else None


def _finite(value: object) -> object:
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, dict):
        return {str(key): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


class RecordWriter:
    """Appends records to ``records.jsonl`` (and prints them, prefixed, inside a cluster job). Picklable: Tune
    keeps its callbacks with the experiment's state."""

    def __init__(self, path: str | Path, echo: bool = False):
        self.path, self.echo = str(path), bool(echo)

    def __call__(self, kind: str, **fields: object) -> None:
        line = record_line(kind, **fields)
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(line + "\n")
        if self.echo:
            print(RECORD_PREFIX + line, flush=True)

    def driver_started(self, directory: str, **fields: object) -> None:
        self("experiment", state="running", pid=os.getpid(), host=socket.gethostname(), directory=directory,
             **fields)


class ExperimentBook:
    """The trials, their results and the experiment's state, rebuilt from records (thread-safe)."""

    def __init__(self, paths: list[str], seeds: list[int], budget: int, metric: str = "return", mode: str = "max"):
        self.paths, self.seeds, self.budget, self.metric, self.mode = list(paths), list(seeds), budget, metric, mode
        self.state, self.error, self.driver = "starting", None, {}
        self.trials: dict[str, dict[str, Any]] = {}
        self.points: list[dict[str, Any]] = []
        self.records = 0
        self._lock = threading.Lock()
        self._version = 0

    @property
    def version(self) -> int:
        """Grows with every record applied (views redraw when it moved)."""
        return self._version

    def apply(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._apply(record)
            self.records += 1
            self._version += 1

    def _apply(self, record: dict[str, Any]) -> None:
        kind, now = record.get("kind"), record.get("time", time.time())
        if kind == "experiment":
            self.state, self.error = record.get("state", self.state), record.get("error")
            if record.get("state") in LIVE_EXPERIMENT_STATES:
                self.driver = {key: record.get(key) for key in ("pid", "host", "submission_id", "directory")}
            return
        trial_id = record.get("trial")
        if not isinstance(trial_id, str):
            return
        trial = self.trials.setdefault(trial_id, _new_trial(trial_id, now))
        if kind == "trial":
            trial["params"] = dict(record.get("params") or {})
            trial["state"] = "running" if trial["state"] in ("pending", "finished", "stopped") else trial["state"]
        elif kind == "result":
            self._add_result(trial, record)
        elif kind == "trial_end":
            trial["state"], trial["error"] = record.get("state", "finished"), record.get("error")
            trial["ended"] = now

    def _add_result(self, trial: dict[str, Any], record: dict[str, Any]) -> None:
        trial["state"] = "running" if trial["state"] == "pending" else trial["state"]
        trial["results"] += 1
        timesteps = record.get("timesteps") or 0
        if trial["results"] > 1 and timesteps <= (trial["timesteps"] or 0):  # it went on from an earlier
            self.points = [point for point in self.points  # checkpoint (PBT, a resume): that history is void
                           if point["trial"] != trial["trial"] or (point["timesteps"] or 0) < timesteps]
        for key in ("timesteps", "return", "greedy_return", "episodes", "steps_per_second", "restarts", "wall_time"):
            if key in record:
                trial[key] = record[key]
        value = _number(record.get(self.metric))
        if math.isfinite(value) and (math.isnan(trial["best"]) or _better(value, trial["best"], self.mode)):
            trial["best"] = value
        trial["last"] = value
        for seed, seed_return in (record.get("per_seed") or {}).items():
            trial["seed_returns"][str(seed)] = _number(seed_return)
            self.points.append({"trial": trial["trial"], "seed": int(seed), "timesteps": record.get("timesteps"),
                                "return": _number(seed_return),
                                "greedy_return": _number((record.get("greedy_per_seed") or {}).get(str(seed)))})

    # ----- tables ---------------------------------------------------------------------------------------------------
    def trials_table(self) -> pd.DataFrame:
        """One row per trial: its params (one column per path), state, env steps, last and best value of the
        metric, return, episodes, steps/s, restarts, wall time, error."""
        with self._lock:
            rows = [{"trial": t["trial"], **{path: t["params"].get(path) for path in self.paths},
                     "state": t["state"], "timesteps": t["timesteps"], self.metric: t["last"],
                     f"best_{self.metric}": t["best"], **({"return": t["return"]} if self.metric != "return" else {}),
                     "episodes": t["episodes"], "steps_per_second": t["steps_per_second"],
                     "restarts": t["restarts"], "wall_time": t["wall_time"], "error": t["error"]}
                    for t in self.trials.values()]
        columns = ["trial", *self.paths, "state", "timesteps", self.metric, f"best_{self.metric}",
                   *(["return"] if self.metric != "return" else []), "episodes", "steps_per_second", "restarts",
                   "wall_time", "error"]
        return pd.DataFrame(rows, columns=columns)

    def curves(self) -> pd.DataFrame:
        """Long format: one row per trial x seed x result — ``trial, seed, timesteps, return, greedy_return`` and
        the trial's params."""
        with self._lock:
            params = {trial_id: trial["params"] for trial_id, trial in self.trials.items()}
            rows = [{**point, **{path: params.get(point["trial"], {}).get(path) for path in self.paths}}
                    for point in self.points]
        return pd.DataFrame(rows, columns=["trial", "seed", "timesteps", "return", "greedy_return", *self.paths])

    def best_trial(self) -> str | None:
        """Of the trials that went furthest, the one whose last value of the metric is best (None: no results)."""
        with self._lock:
            scored = [t for t in self.trials.values() if math.isfinite(t["last"])]
            if not scored:
                return None
            furthest = max(t["timesteps"] or 0 for t in scored)
            finalists = [t for t in scored if (t["timesteps"] or 0) >= furthest]
            sign = 1.0 if self.mode == "max" else -1.0
            return max(finalists, key=lambda t: sign * t["last"])["trial"]

    def state_counts(self) -> dict[str, int]:
        with self._lock:
            states = [t["state"] for t in self.trials.values()]
        return {state: states.count(state) for state in TRIAL_STATES if states.count(state)}


def _new_trial(trial_id: str, now: float) -> dict[str, Any]:
    return {"trial": trial_id, "params": {}, "state": "pending", "timesteps": 0, "return": math.nan,
            "greedy_return": math.nan, "episodes": 0, "steps_per_second": math.nan, "restarts": 0,
            "wall_time": 0.0, "last": math.nan, "best": math.nan, "results": 0, "seed_returns": {}, "error": None,
            "started": now, "ended": None}


def _number(value: object) -> float:
    return math.nan if value is None else float(value)


def _better(value: float, than: float, mode: str) -> bool:
    return value > than if mode == "max" else value < than


class FileFollower:
    """Feeds a ``records.jsonl`` to ``on_record`` from its first line, then as it grows, in a daemon thread (every
    ``interval`` s) until :meth:`close` — or at once, without a thread, with :meth:`read_all`."""

    def __init__(self, path: Path, on_record: Callable[[dict[str, Any]], None], interval: float = 0.5):
        self.path, self.on_record, self.interval = Path(path), on_record, float(interval)
        self._offset, self._partial = 0, ""
        self._reading = threading.Lock()  # the follower thread and a waiting caller may read at once
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._main, name=f"rlworkbench-records-{self.path.parent.name}",
                                        daemon=True)

    def start(self) -> FileFollower:
        self._thread.start()
        return self

    def read_all(self) -> FileFollower:
        """Reads what the file holds now (each record once, in order, whichever thread asks)."""
        with self._reading:
            try:
                with open(self.path, encoding="utf-8") as stream:
                    stream.seek(self._offset)
                    text = stream.read()
                    self._offset = stream.tell()
            except FileNotFoundError:
                return self
            lines = (self._partial + text).split("\n")
            self._partial = lines.pop()  # a line being written right now
            for line in lines:
                record = parse_record(line)
                if record is not None:
                    self.on_record(record)
        return self

    def close(self) -> None:
        self._closed.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5)
        self.read_all()

    def _main(self) -> None:
        while not self._closed.is_set():
            self.read_all()
            self._closed.wait(self.interval)
