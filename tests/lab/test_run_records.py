"""Run records, the one source of truth the runs panel reads: a run's record from start to finish, stop requests,
orphans (a kernel that died, a heartbeat that stopped), and a runs directory that cannot be written."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time

import pytest

from rlworkbench.errors import ConfigError
from rlworkbench.workbench import promote
from rlworkbench.workbench.run_records import ORPHANED_AFTER, read_records, request_stop
from tests.workbench.run_helpers import small_dqn, wait_until


@pytest.fixture
def runs(tmp_path, monkeypatch):
    folder = tmp_path / "records"
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(folder))
    return folder


def record_of(folder, run):
    return next((record for record in read_records(folder) if record["id"] == run.id), None)


def test_a_runs_record_goes_from_start_to_finish(runs, tmp_path):
    run = promote(small_dqn(), timesteps=1500, logdir=tmp_path / "logs", seed=0)
    first = wait_until(lambda: record_of(runs, run), 30, "the first record")
    assert (first["name"], first["target"], first["total_timesteps"]) == ("dqn", "local", 1500)
    assert first["state"] in ("starting", "running") and first["config"] == small_dqn()
    run.wait(120)
    final = wait_until(lambda: (r := record_of(runs, run)) and r["state"] == "finished" and r, 10, "the final record")
    assert final["timesteps"] == 1500 and final["episodes"] == len(run.metrics)
    assert final["returns"] == pytest.approx(run.metrics["return"].tail(60).tolist())
    assert final["logdir"] == str(run.logdir) and final["checkpoint"].endswith("checkpoints/final")
    assert final["updated"] >= final["started"]
    with pytest.raises(ConfigError, match="not going"):
        request_stop(run.id, runs)


def test_a_stop_request_stops_the_run(runs, tmp_path):
    run = promote(small_dqn(), timesteps=10**7, logdir=tmp_path / "logs", seed=0)
    wait_until(lambda: (r := record_of(runs, run)) and r["timesteps"] > 0, 60, "a running record")
    request_stop(run.id, runs)
    run.execution.join(30)
    assert run.state == "stopped"
    wait_until(lambda: record_of(runs, run)["state"] == "stopped", 10, "the stopped record")
    with pytest.raises(ConfigError, match="no run of this id"):
        request_stop("0123456789ab", runs)


def test_records_of_dead_processes_or_silent_heartbeats_are_orphaned(runs):
    runs.mkdir()
    gone = subprocess.Popen(["true"])
    gone.wait()
    now = time.time()
    base = {"name": "dqn", "target": "local", "started": now, "updated": now, "host": socket.gethostname()}
    records = {"dead": {**base, "pid": gone.pid, "state": "running"},
               "silent": {**base, "pid": 1, "state": "running", "updated": now - ORPHANED_AFTER - 1},
               "alive": {**base, "pid": os.getpid(), "state": "starting"},
               "over": {**base, "pid": gone.pid, "state": "finished"}}
    for name, record in records.items():
        (runs / f"{name}.json").write_text(json.dumps({"id": name, **record}))
    (runs / "torn.json").write_text('{"id": ')
    states = {record["id"]: record["state"] for record in read_records(runs)}
    assert states == {"dead": "orphaned", "silent": "orphaned", "alive": "starting", "over": "finished"}
    with pytest.raises(ConfigError, match="not going"):
        request_stop("dead", runs)


def test_a_runs_directory_that_cannot_be_written_does_not_hurt_the_run(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(blocker / "runs"))
    run = promote(small_dqn(), timesteps=300, logdir=tmp_path / "logs", seed=0).wait(60)
    assert run.state == "finished"
    wait_until(lambda: run.heartbeat.failure is not None, 10, "the heartbeat's failure")
    assert isinstance(run.heartbeat.failure, OSError)


def test_runs_publish_nothing_when_the_runs_directory_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", "off")  # what a cluster job's inner run gets
    run = promote(small_dqn(), timesteps=200, logdir=tmp_path / "logs", seed=0).wait(60)
    assert run.heartbeat.path is None and not run.heartbeat._thread.is_alive() and read_records() == []
    with pytest.raises(ConfigError, match="publish no records"):
        request_stop(run.id)
