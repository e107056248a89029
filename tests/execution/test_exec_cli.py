"""``rlworkbench train``: config lookup, the run directory (config, event file, CSV tables, checkpoints), the
summary table, typed errors — and, once rlworkbench.agents provides DQN, a real end-to-end run."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from rlworkbench import cli
from rlworkbench.agents.config import builtin_config, config_name, load_config
from rlworkbench.agents.random_agent import RandomAgent
from rlworkbench.errors import ConfigError
from rlworkbench.execution import train

train_module = importlib.import_module("rlworkbench.execution.train")


@pytest.fixture
def random_agents(monkeypatch):
    """``Agent.from_env`` stands in as the random baseline, so the CLI runs end to end without DQN."""
    seen = {}

    def factory(env, config, *, backend, seed=None):
        seen.update(config=config, backend=backend, seed=seed, num_envs=env.num_envs)
        return RandomAgent.from_env(env, config, seed=seed)

    monkeypatch.setattr(train_module, "agent_from_env", factory)
    return seen


def _run_dir(logdir):
    (run_dir,) = logdir.iterdir()
    return run_dir


def test_cli_train_writes_a_run_directory_and_prints_the_summary(tmp_path, capsys, random_agents):
    config = tmp_path / "my_random.json"
    config.write_text(json.dumps({"type": "random", "note": "baseline"}))
    cli.main(["train", str(config), "--env", "CartPole-v1", "--backend", "tf", "--timesteps", "300",
              "--logdir", str(tmp_path / "runs"), "--num-envs", "2", "--seed", "3", "--checkpoint-every", "100",
              "--no-progress"])
    out, err = capsys.readouterr()
    assert random_agents == {"config": {"type": "random", "note": "baseline"}, "backend": "tf", "seed": 3,
                             "num_envs": 2}
    run_dir = _run_dir(tmp_path / "runs")
    assert run_dir.name.startswith("my_random-CartPole-v1-tf-")
    assert json.loads((run_dir / "config.json").read_text()) == {"type": "random", "note": "baseline"}
    assert list(run_dir.glob("events.out.tfevents.*"))
    checkpoints = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert checkpoints == ["final", "step_100", "step_200", "step_300"]
    assert json.loads((run_dir / "checkpoints" / "final" / "agent.json").read_text())["timesteps"] == 300
    episodes = pd.read_csv(run_dir / "episodes.csv")
    assert len(episodes) > 0 and episodes["env_id"].isin([0, 1]).all()
    assert pd.read_csv(run_dir / "updates.csv").empty
    for column in ("episodes", "mean_return_last_10%", "max_return_last_10%", "steps_per_s", "updates",
                   "wall_time_s"):
        assert column in out
    assert f"run directory: {run_dir}" in out and err == ""


def test_train_returns_the_tables_and_a_summary(tmp_path, random_agents):
    result = train({"type": "random"}, "CartPole-v1", timesteps=200, logdir=tmp_path, num_envs=1, seed=0,
                   progress=False)
    assert result.summary["timesteps"] == 200 and result.summary["episodes"] == len(result.episodes)
    assert result.checkpoint == result.run_dir / "checkpoints" / "final"
    assert "mean_return_last_10%" in result.summary_table()


def test_configs_load_from_a_path_or_by_shipped_name(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"type": "dqn"}')
    assert load_config(path) == {"type": "dqn"} and config_name(path, {"type": "dqn"}) == "c"
    assert load_config({"type": "dqn"}) == {"type": "dqn"} and config_name({"type": "dqn"}, {"type": "dqn"}) == "dqn"
    with pytest.raises(ConfigError, match="no such config") as error:
        load_config("no_such_config_anywhere")
    assert "dqn_cartpole" in error.value.expected
    assert load_config("dqn_cartpole") == builtin_config("dqn_cartpole")
    assert config_name("dqn_cartpole", builtin_config("dqn_cartpole")) == "dqn_cartpole"
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config(path)
    path.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="JSON object"):
        load_config(path)


def test_cli_reports_config_errors_without_a_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", "no_such_config_anywhere", "--logdir", str(tmp_path), "--no-progress"])
    assert exit_info.value.code == 2
    assert "rlworkbench train: error:" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_cli_rejects_bad_numbers():
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["train", "dqn_cartpole", "--timesteps", "0"])


def _train_cli(config: str, backend: str, logdir, timesteps: int) -> subprocess.CompletedProcess:
    # one OpenMP thread: on a 2-core machine torch's 2 intra-op threads make each tiny matmul wait milliseconds
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "rlworkbench.cli", "train", config, "--env", "CartPole-v1",
                           "--backend", backend, "--timesteps", str(timesteps), "--logdir", str(logdir), "--seed", "0",
                           "--num-envs", "2", "--checkpoint-every", "200", "--no-progress"],
                          capture_output=True, text=True, timeout=300, check=False, env=env)


def _check_dqn_run(result: subprocess.CompletedProcess, logdir) -> None:
    assert result.returncode == 0, result.stderr[-3000:]
    assert "mean_return_last_10%" in result.stdout
    run_dir = _run_dir(logdir)
    final = run_dir / "checkpoints" / "final"
    assert final.is_dir() and any(final.iterdir())
    assert (run_dir / "checkpoints" / "step_200").is_dir()
    updates = pd.read_csv(run_dir / "updates.csv")
    assert len(updates) > 0 and len(updates.columns) > 3  # DQN updated and reported its losses
    assert list(run_dir.glob("events.out.tfevents.*"))


def test_cli_trains_the_shipped_dqn_config_on_torch(tmp_path):
    learning_starts = json.loads(json.dumps(builtin_config("dqn_cartpole"))).get(
        "update", {}).get("learning_starts", 0)
    _check_dqn_run(_train_cli("dqn_cartpole", "torch", tmp_path, learning_starts + 100), tmp_path)


def test_cli_trains_dqn_from_a_config_file_on_tf(tmp_path):
    config = json.loads(json.dumps(builtin_config("dqn_cartpole")))
    config["policy"]["network"] = [{"type": "dense", "units": 32, "activation": "relu"}]
    config["update"].update(learning_starts=100, batch_size=16)
    path = tmp_path / "small_dqn.json"
    path.write_text(json.dumps(config))
    logdir = tmp_path / "runs"
    _check_dqn_run(_train_cli(str(path), "tf", logdir, 400), logdir)
    assert _run_dir(logdir).name.startswith("small_dqn-CartPole-v1-tf-")


def test_cli_resume_goes_on_with_a_stopped_run_and_says_why_it_cannot(tmp_path, capsys, monkeypatch):
    from rlworkbench.workbench import promote
    from tests.workbench.run_helpers import small_dqn, wait_until

    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(tmp_path / "records"))
    run = promote(small_dqn(), timesteps=10**6, logdir=tmp_path / "runs", seed=0)
    wait_until(lambda: run.timesteps > 300, 60, "300 env steps")
    run.stop()
    stopped_at = run.timesteps
    cli.main(["resume", str(run.logdir), "--timesteps", str(stopped_at + 400), "--no-progress"])
    out = capsys.readouterr().out
    assert f"resuming run {run.id}" in out and f"run {run.id}: finished at {stopped_at + 400}" in out
    updates = pd.read_csv(run.logdir / "updates.csv")  # (the last update may come a few steps before the end)
    assert stopped_at < updates["timesteps_total"].iloc[-1] <= stopped_at + 400 and updates["update"].is_unique
    final = json.loads((run.logdir / "checkpoints" / "final" / "progress.json").read_text())
    assert final["timesteps"] == stopped_at + 400
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["resume", str(tmp_path / "records")])  # not a run directory
    assert exit_info.value.code == 2 and "rlworkbench resume: error: ConfigError" in capsys.readouterr().err
