"""The README's demo: a composed actor built from CartPole's spaces, run whole and as a sub-graph."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from rlworkbench.demo import QActor, run
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest


def test_demo_runs_whole_graph_sub_graph_and_env(capsys):
    seen = run("CartPole-v1", "torch", seed=3, steps=5)
    printed = capsys.readouterr().out
    assert seen["actions"].shape == (8,) and set(seen["actions"].tolist()) <= {0, 1}
    assert seen["q_values"].shape == (8, 2)
    assert np.array_equal(seen["actions"], seen["q_values"].argmax(axis=1))
    assert 1 <= seen["steps"] <= 5
    for path in ("actor", "preprocessor", "clip_0", "network", "dense_2", "selector"):
        assert path in printed
    assert "IntBox((), int64, [0, 2))+B" in printed  # the action space flowed out of the selector


def test_demo_actor_is_a_component_like_any_other():
    space = FloatBox(shape=(3,), add_batch_rank=True)
    test = ComponentTest(QActor(4, hidden=(8,)), input_spaces={"states": space}, seed=1)
    states = space.sample(5, seed=2)
    q_values = test.test(("get_q_values", states))
    test.test(("get_action", states), expected_outputs=q_values.argmax(axis=1))
    assert sorted(test.variable_values()) == ["network/dense_0/bias", "network/dense_0/kernel",
                                               "network/dense_1/bias", "network/dense_1/kernel"]


def test_demo_module_runs_as_a_program():
    result = subprocess.run([sys.executable, "-m", "rlworkbench.demo", "--seed", "1", "--train-timesteps", "0"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "whole graph" in result.stdout and "sub-graph" in result.stdout


def test_demo_trains_dqn_and_reports_progress(tmp_path, capsys):
    from rlworkbench.demo import train_dqn

    result = train_dqn("CartPole-v1", "torch", seed=0, timesteps=8_000, logdir=str(tmp_path))
    printed = capsys.readouterr().out
    assert "mean return: first 10 episodes" in printed and "steps_per_s" in printed
    returns = result.episodes["return"]
    assert returns.tail(10).mean() > 2 * returns.head(10).mean()  # it learned, visibly
    assert (result.run_dir / "checkpoints" / "final" / "agent.json").exists()
