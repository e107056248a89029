"""The tqdm.auto progress bar: shown with the recent mean return, or switched off."""

from __future__ import annotations

from rlworkbench.agents.random_agent import RandomAgent
from rlworkbench.execution import Worker, make_vector_env


def _run(progress: bool, **target: int) -> None:
    env = make_vector_env("CartPole-v1", 2, seed=0)
    Worker(RandomAgent.from_env(env, seed=0), env, progress=progress).run(**target)
    env.close()


def test_progress_bar_shows_steps_and_recent_return(capsys):
    _run(True, timesteps=300)
    err = capsys.readouterr().err
    assert "300/300" in err and "recent_return=" in err and "episodes=" in err


def test_progress_bar_counts_episodes_when_the_target_is_episodes(capsys):
    _run(True, episodes=5)
    assert "episode" in capsys.readouterr().err


def test_progress_bar_can_be_switched_off(capsys):
    _run(False, timesteps=300)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
