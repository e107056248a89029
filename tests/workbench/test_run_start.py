"""A Run publishes its record from :meth:`Run.start` on (``promote`` starts it), not from its construction; a local
run's dataflow is an empty table with the dataflow's columns."""

from __future__ import annotations

import time

import pytest

from rlworkbench.execution.dataflow import EDGE_COLUMNS, NODE_COLUMNS
from rlworkbench.workbench import promote
from rlworkbench.workbench.run import Run
from rlworkbench.workbench.run_records import read_records
from rlworkbench.workbench.run_spec import make_spec
from rlworkbench.workbench.targets import get_target
from tests.workbench.run_helpers import small_dqn, wait_until


@pytest.fixture
def records(tmp_path, monkeypatch):
    folder = tmp_path / "records"
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(folder))
    return folder


def test_a_run_made_directly_writes_no_record_until_started(records, tmp_path):
    spec = make_spec(small_dqn(), timesteps=300, logdir=tmp_path / "logs", seed=0)
    run = Run(get_target("local")(spec), spec, target="local")
    try:
        run.wait(120)
        time.sleep(0.3)  # (a heartbeat started by mistake writes its first record at once)
        assert read_records(records) == [] and not run.heartbeat.path.exists()
        assert run.start() is run and run.start() is run  # a second start does nothing
        record = wait_until(lambda: next(iter(read_records(records)), None), 10, "the record after start()")
        assert (record["id"], record["state"]) == (run.id, "finished")
    finally:
        run.close()
        run.heartbeat.close()


def test_promote_returns_a_started_run(records, tmp_path):
    run = promote(small_dqn(), timesteps=300, logdir=tmp_path / "logs", seed=0)
    try:
        wait_until(run.heartbeat.path.exists, 30, "the promoted run's first record")
    finally:
        run.close()


def test_a_local_runs_dataflow_is_an_empty_table_with_the_dataflow_columns(records, tmp_path):
    run = promote(small_dqn(), timesteps=200, logdir=tmp_path / "logs", seed=0)
    try:
        edges, nodes = run.dataflow(), run.dataflow(nodes=True)
    finally:
        run.close()
    assert edges.empty and list(edges.columns) == list(EDGE_COLUMNS)
    assert nodes.empty and list(nodes.columns) == list(NODE_COLUMNS)
