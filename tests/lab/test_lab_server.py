"""rlworkbench's Jupyter Server extension on a real server: the runs list from the runs directory, stop requests that
reach a run in this process, resumes refused for live runs and runs without a checkpoint, TensorBoard for a run, the
component graph of a config file or a run — and every route refused without the server's token."""

from __future__ import annotations

import html
import json
import shutil

import pytest
import requests

from rlworkbench.agents.config import builtin_config
from rlworkbench.workbench import promote
from tests.workbench.run_helpers import small_dqn, wait_until


def listed(lab_server, run):
    reply = lab_server.get("runs")
    assert reply.status_code == 200, reply.text
    return next((record for record in reply.json()["runs"] if record["id"] == run.id), None)


@pytest.mark.parametrize(("method", "path"), [("get", "runs"), ("post", "runs/0123456789ab/stop"),
                                              ("post", "runs/0123456789ab/resume"),
                                              ("post", "runs/0123456789ab/tensorboard"),
                                              ("get", "graph?path=x.json"),
                                              ("get", "compare?runs=0123456789ab,0123456789ac")])
def test_every_route_wants_the_servers_token(lab_server, method, path):
    reply = getattr(requests, method)(lab_server.url(path), timeout=30)
    assert reply.status_code == 403


def test_runs_are_listed_live_and_stopped_from_the_server(lab_server, runs_here):
    logdir = lab_server.root / "runs"
    finished = promote(small_dqn(), timesteps=800, logdir=logdir, seed=0).wait(120)
    record = wait_until(lambda: (r := listed(lab_server, finished)) and r["state"] == "finished" and r, 10, "listed")
    assert record["timesteps"] == 800 and record["logdir_in_root"] == f"runs/{finished.logdir.name}"
    going = promote(small_dqn(), timesteps=10**7, logdir=logdir, seed=1)
    wait_until(lambda: (r := listed(lab_server, going)) and r["timesteps"] > 0, 60, "a running record")
    live = lab_server.post(f"runs/{going.id}/resume")
    assert live.status_code == 409 and "still going" in live.reason  # a live run is not resumed twice
    assert lab_server.post(f"runs/{going.id}/stop").json() == {"id": going.id, "stop_requested": True}
    going.execution.join(30)
    assert going.state == "stopped"
    wait_until(lambda: listed(lab_server, going)["state"] == "stopped", 10, "the stopped record")
    assert lab_server.post(f"runs/{going.id}/stop").status_code == 409  # not going any more
    assert lab_server.post("runs/0123456789ab/stop").status_code == 404
    assert lab_server.post("runs/0123456789ab/resume").status_code == 404
    (finished.logdir / "checkpoints" / "final" / "progress.json").unlink()  # nothing left to go on from
    nothing = lab_server.post(f"runs/{finished.id}/resume")
    assert nothing.status_code == 409 and "CheckpointError" in nothing.reason

    board = lab_server.post(f"runs/{finished.id}/tensorboard")
    assert board.status_code == 200, board.text
    assert requests.get(board.json()["url"] + "data/runs", timeout=30).ok  # TensorBoard answers on 127.0.0.1

    graph = lab_server.get("graph", run=finished.id)  # a run's graph: its config on its env
    assert graph.status_code == 200 and 'id="component-dqn/policy"' in html.unescape(graph.json()["svg"])


def test_the_graph_of_a_config_file(lab_server):
    config = builtin_config("dqn_cartpole")
    (lab_server.root / "configs").mkdir(exist_ok=True)
    (lab_server.root / "configs" / "mine.json").write_text(json.dumps(config))
    reply = lab_server.get("graph", path="configs/mine.json")
    assert reply.status_code == 200, reply.text
    payload = reply.json()
    svg = html.unescape(payload["svg"])  # graphviz writes "-" as &#45;
    assert payload["error"] is None and "update_from_memory" in payload["api_methods"]
    assert svg.startswith("<?xml") and 'id="component-dqn/memory"' in svg
    policy = payload["components"]["dqn/policy"]
    assert policy["class"] == "Policy" and policy["variables"] > 0 and policy["built"]
    assert any(row["api_method"] == "act_greedy" and "i64[B]" in row["outputs"] for row in
               payload["components"]["dqn"]["api"])
    folded = html.unescape(lab_server.get("graph", path="configs/mine.json", depth=0).json()["svg"])
    assert 'id="component-dqn/policy/network"' not in folded and 'id="component-dqn/policy/network"' in svg
    opening = html.unescape(lab_server.get("graph", path="configs/mine.json", depth=1).json()["svg"])  # the viewer's
    assert 'id="component-dqn/policy"' in opening and 'id="component-dqn/policy/network"' not in opening
    assert payload["max_depth"] == max(path.count("/") for path in payload["components"]) >= 2


@pytest.mark.parametrize(("query", "status", "says"), [
    ({"path": "nothing.json"}, 404, "no config file"),
    ({"path": "../outside.json"}, 404, "no config file"),
    ({"path": "broken.json"}, 400, "not valid JSON"),
    ({"path": "bad_config.json"}, 400, "ConfigError"),
    ({}, 400, "give path="),
    ({"run": "0123456789ab"}, 404, "no run"),
])
def test_bad_graph_requests_say_why(lab_server, query, status, says):
    (lab_server.root / "broken.json").write_text("{")
    bad = small_dqn()
    bad["update"]["batch_size"] = 0
    (lab_server.root / "bad_config.json").write_text(json.dumps(bad))
    shutil.copy(lab_server.root / "broken.json", lab_server.root.parent / "outside.json")
    reply = lab_server.get("graph", **query)
    assert reply.status_code == status
    assert says in reply.text or says in reply.reason
    assert str(lab_server.root) not in reply.text  # the server's own paths stay on the server


def test_the_extension_is_installed_and_enabled():
    """What the bootstrap installs into .venv: Jupyter lists the frontend and the server extension as enabled."""
    import subprocess
    import sys

    lab = subprocess.run([sys.executable, "-m", "jupyter", "labextension", "list"], capture_output=True, text=True,
                         timeout=120, check=True)
    assert any("rlworkbench-lab" in line and "enabled" in line and "OK" in line
               for line in (lab.stdout + lab.stderr).splitlines())
    server = subprocess.run([sys.executable, "-m", "jupyter", "server", "extension", "list"], capture_output=True,
                            text=True, timeout=120, check=True)
    assert any("rlworkbench.lab" in line and "enabled" in line for line in (server.stdout + server.stderr).splitlines())


def test_a_configured_clusters_jobs_are_listed_or_its_error_said(ray_head, monkeypatch):
    from rlworkbench.lab.handlers import _cluster_runs

    monkeypatch.setenv("RAY_AUTH_TOKEN", ray_head.auth_token)  # the server finds the token as Ray would
    listed = _cluster_runs(ray_head.address)
    assert listed["error"] is None and isinstance(listed["runs"], list)
    monkeypatch.setenv("RAY_AUTH_TOKEN", "0" * 64)
    refused = _cluster_runs(ray_head.address)
    assert refused["runs"] == [] and "refuses the token" in refused["error"]
