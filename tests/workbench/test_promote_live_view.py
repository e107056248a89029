"""Runs you can tell apart and act on from the notebook's live view: the config's label (two DQN configs read
differently), a short run id and the notebook that started the run in the view's heading and the record; Stop and
Save figure in the view; the start phase while a run has not stepped; column headers that explain themselves."""

from __future__ import annotations

import json
import time

import pandas as pd

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.workbench import promote
from rlworkbench.workbench.live_tables import tables_html
from rlworkbench.workbench.run_spec import make_spec
from tests.workbench.run_helpers import small_dqn, wait_until


def test_two_dqn_configs_read_differently():
    labels = {make_spec(prototype, env="CartPole-v1").config_label for prototype in (
        "dqn_cartpole", Agent.from_env("CartPole-v1", "dqn_dueling_per_cartpole"), builtin_config("dqn_cartpole"),
        small_dqn(), {**small_dqn(), "discount": 0.9})}
    assert "dqn_cartpole" in labels and "dqn_dueling_per_cartpole" in labels  # an agent of a shipped config
    assert len(labels) == 4  # the shipped dict is the shipped name; two edited dicts differ (dqn #digest)
    assert make_spec(small_dqn(), env="CartPole-v1").config_label == make_spec(small_dqn()).config_label


def test_the_view_says_which_run_and_stops_it(tmp_path, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "notebooks" / "tuning.ipynb"))
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(tmp_path / "records"))
    run = promote(small_dqn(), timesteps=10**7, logdir=tmp_path / "runs", seed=0)
    run.widget(interval=0.2)
    view = run.view
    heading = view.heading.value
    assert f"run {run.id[:6]}" in heading and "tuning.ipynb" in heading and "dqn #" in heading
    assert "CartPole-v1 · local" in heading
    wait_until(run.heartbeat.path.exists, 30, "the run's first record")  # written by the heartbeat's thread
    record = json.loads(run.heartbeat.path.read_text())
    assert record["source"].endswith("notebooks/tuning.ipynb") and record["config_label"] == run.spec.config_label
    assert record["logdir"] == str(run.logdir) and run.logdir.is_absolute()
    wait_until(lambda: run.timesteps > 300, 60, "a few steps")
    assert not view.stop_button.disabled
    view.stop_button.click()  # what a click in the notebook does
    assert view.stop_button.disabled and view.stop_button.description == "Stopping…"
    assert run.execution.join(60) and run.state == "stopped"
    wait_until(lambda: "stopped ·" in view.label.value, 10, "the stopped state in the view")
    assert view.stop_button.disabled

    view.save_button.click()
    png, svg = run.logdir / "curves.png", run.logdir / "curves.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and svg.read_text().lstrip().startswith("<?xml")
    assert str(run.logdir) in view.saved.value and "curves.png" in view.saved.value
    run.close()


def test_a_starting_run_says_what_it_is_busy_with(tmp_path, monkeypatch):
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(tmp_path / "records"))
    run = promote(small_dqn(), timesteps=200, logdir=tmp_path, seed=0)
    run.widget(interval=0.05)
    phases = set()
    while not run.done:
        if run.state == "starting" and "…" in run.view.label.value:
            phases.add(run.view.label.value.split(" · ")[1])
        time.sleep(0.01)
    run.wait()
    assert phases and all(phase.split(" … ")[0] in ("loading torch", "building the agent") for phase in phases)
    assert run.phase is None and "…" not in run.view.label.value


def test_column_headers_explain_themselves():
    frame = pd.DataFrame({"worker": [0], "weights_behind": [3], "env_steps_per_s": [12.5]})
    text = tables_html(frame)
    assert 'title="learner updates the sampler&#x27;s weights are behind"' in text
    assert ">12.50<" in text and ">3<" in text
