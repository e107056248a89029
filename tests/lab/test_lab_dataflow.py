"""The Dataflow routes on a real Jupyter server: a run whose directory holds a dataflow.json is listed by
``dataflows`` and drawn by ``dataflow?run=<id or run directory>`` (every actor, the bottleneck, fresh figures after the
file is rewritten); a run without one, a folder that is no run's and a request without the token are refused."""

from __future__ import annotations

import html

import pytest
import requests

from rlworkbench.workbench import promote
from tests.visualize.dataflow_helpers import apex_snapshot
from tests.workbench.run_helpers import small_dqn, wait_until

ACTORS = ("sampler 0", "sampler 1", "shard 0", "shard 1", "queue", "learner")


@pytest.mark.parametrize("route", ["dataflow?run=0123456789ab", "dataflows"])
def test_the_dataflow_routes_want_the_servers_token(lab_server, route):
    assert requests.get(lab_server.url(route), timeout=30).status_code == 403


def test_a_runs_dataflow_is_listed_and_drawn(lab_server, runs_here):
    run = promote(small_dqn(), timesteps=200, logdir=lab_server.root / "runs", seed=0).wait(120)
    wait_until(lambda: any(record["id"] == run.id and record["state"] == "finished"
                           for record in lab_server.get("runs").json()["runs"]), 30, "the run's last record")
    assert run.id not in lab_server.get("dataflows").json()["runs"]
    missing = lab_server.get("dataflow", run=run.id)
    assert missing.status_code == 404 and "no dataflow.json" in missing.reason

    apex_snapshot().write(run.logdir)
    assert run.id in lab_server.get("dataflows").json()["runs"]
    for name in (run.id, str(run.logdir)):
        reply = lab_server.get("dataflow", run=name)
        assert reply.status_code == 200, reply.reason
        body = reply.json()
        svg = html.unescape(body["svg"])
        assert body["run"] == run.id and body["state"] == "finished" and body["plan"] == "apex"
        assert all(actor in svg for actor in ACTORS) and "dataflow-bottleneck" in svg
        assert [node["node"] for node in body["nodes"]] == list(ACTORS)
        assert (body["bottleneck"]["source"], body["bottleneck"]["target"]) == ("queue", "learner")
        assert sum(edge["bottleneck"] for edge in body["edges"]) == 1

    apex_snapshot(scale=3.0, wall_time=20.0).write(run.logdir)  # the run wrote new figures
    body = lab_server.get("dataflow", run=run.id).json()
    assert body["wall_time"] == 20.0 and "3.6k/s · 1.4 MB/s" in body["svg"]

    elsewhere = lab_server.get("dataflow", run=str(lab_server.root))  # a folder, but no run's
    assert elsewhere.status_code == 404 and "no run" in elsewhere.reason
    assert lab_server.get("dataflow").status_code == 400
    run.close()
