"""The program a cluster job runs, here without a cluster: it reads a job package, trains with a local worker,
writes start / tick / end records that add up to its run directory's tables, stops cleanly when asked (SIGTERM's
path), reports a failing run's error so that the notebook raises the same type, and starts a shipped agent from its
weights."""

from __future__ import annotations

import io
import threading

import numpy as np
import pandas as pd
import pytest

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError, JobFailed
from rlworkbench.execution.envs import make_vector_env
from rlworkbench.workbench.cluster.job import _agent_with_weights, run_job
from rlworkbench.workbench.cluster.job_package import JOB_FILE, read_job_package, write_job_package
from rlworkbench.workbench.cluster.records import decode_error, encode_error, parse_line, record_line
from tests.workbench.run_helpers import small_dqn


def job_spec(tmp_path, **settings):
    defaults = {"env": "CartPole-v1", "backend": "torch", "timesteps": 600, "num_envs": 2, "vector_mode": "sync",
                "seed": 0, "checkpoint_every": None, "summaries_every": None, "threads": 1, "run_name": "the-run"}
    return {"submission_id": "rlworkbench-test", "name": "small_dqn", "config": small_dqn(), "target": "local",
            "settings": {**defaults, **settings}, "options": {}, "logdir": str(tmp_path / "cluster-runs")}


def run_recorded(tmp_path, spec, weights=None, stop_asked=None):
    package = write_job_package(tmp_path / "package", spec, weights)
    out = io.StringIO()
    status = run_job(package / "spec.json", stop_asked or threading.Event(), out=out, tick_seconds=0.2)
    lines = out.getvalue().splitlines()
    records = [parse_line(line) for line in lines]
    assert all(record is not None for record in records), "the job prints nothing but records on its stdout"
    return status, records


def test_the_records_add_up_to_the_run_directory(tmp_path):
    status, records = run_recorded(tmp_path, job_spec(tmp_path))
    assert status == 0
    kinds = [record["kind"] for record in records]
    assert kinds[0] == "start" and kinds[-1] == "end" and set(kinds[1:-1]) == {"tick"}
    start, end = records[0], records[-1]
    run_dir = tmp_path / "cluster-runs" / "the-run"
    assert start["run_dir"] == str(run_dir) and start["config"] == small_dqn() and start["total_timesteps"] == 600
    assert (run_dir / JOB_FILE).exists()
    assert (end["state"], end["timesteps"], end["error"]) == ("finished", 600, None)
    assert end["checkpoint"] == str(run_dir / "checkpoints" / "final")
    episodes = [row for record in records[1:-1] for row in record["episodes"]]
    updates = [row for record in records[1:-1] for row in record["updates"]]
    on_disk = pd.read_csv(run_dir / "episodes.csv")
    assert [row[0] for row in episodes] == on_disk["episode"].tolist()  # each episode once, in order
    assert [row[3] for row in episodes] == on_disk["return"].tolist()
    assert len(updates) == len(pd.read_csv(run_dir / "updates.csv")) > 0
    assert records[-2]["timesteps"] == 600


def test_a_stop_request_ends_the_job_with_a_final_checkpoint(tmp_path):
    asked = threading.Event()
    asked.set()  # SIGTERM's handler sets it; here before the first step
    status, records = run_recorded(tmp_path, job_spec(tmp_path, timesteps=10**7), stop_asked=asked)
    end = records[-1]
    assert status == 0 and end["state"] == "stopped" and end["timesteps"] < 10**7
    assert end["checkpoint"].endswith("checkpoints/final")


def test_a_failing_run_reports_its_error_as_its_own_type(tmp_path):
    status, records = run_recorded(tmp_path, job_spec(tmp_path, env="NoSuchEnv-v0"))
    assert status == 1 and [record["kind"] for record in records] == ["end"]
    error = decode_error(records[0]["error"], "rlworkbench-test")
    assert isinstance(error, ConfigError) and error.argument == "env" and "NoSuchEnv-v0" in str(error)
    assert "unknown Gymnasium env id" in error.__notes__[0] and "Traceback" in error.__notes__[0]


def test_a_shipped_agent_starts_from_its_weights(tmp_path):
    env = make_vector_env("CartPole-v1", 1)
    trained = Agent.from_env(env, small_dqn(), backend="torch", seed=1).build()
    env.close()
    weights = {name: value + 0.5 if value.dtype.kind == "f" else value
               for name, value in trained.get_weights().items() if not name.startswith("memory/")}
    spec = job_spec(tmp_path)
    package = write_job_package(tmp_path / "package", spec, weights)
    read_spec, read_weights = read_job_package(package / "spec.json")
    assert read_spec["weights"] is True and read_weights.keys() == weights.keys()
    agent = _agent_with_weights(spec["config"], spec["settings"], read_weights)
    for name, value in weights.items():
        np.testing.assert_array_equal(agent.get_weights()[name], value)


def test_a_job_package_of_another_format_or_a_missing_one_is_a_config_error(tmp_path):
    package = write_job_package(tmp_path, job_spec(tmp_path), None)
    (package / "spec.json").write_text('{"format": 99}')
    with pytest.raises(ConfigError, match="another rlworkbench version"):
        read_job_package(package / "spec.json")
    with pytest.raises(ConfigError, match="no job package"):
        read_job_package("rlworkbench_job_that_was_never_shipped")


def test_records_and_errors_survive_the_log_line():
    line = record_line("tick", updates=[{"loss": float("nan")}], array=np.arange(3))
    record = parse_line(line)
    assert np.isnan(record["updates"][0]["loss"]) and record["array"] == [0, 1, 2]
    for foreign in ("INFO job_manager.py -- Runtime env is setting up.", "@rlworkbench {torn", "@rlworkbench [1]"):
        assert parse_line(foreign) is None
    built_in = decode_error(encode_error(KeyError("x")), "job")
    assert type(built_in) is KeyError
    class LocalOnly(Exception):
        pass
    unknown = decode_error(encode_error(LocalOnly("its own words")), "job")
    assert isinstance(unknown, JobFailed) and "LocalOnly: its own words" in str(unknown)
    original = ConfigError("bad", argument="a", key_path="b/c", expected=[1, 2], got=3)
    assert str(decode_error(encode_error(original), "job")) == str(original)
