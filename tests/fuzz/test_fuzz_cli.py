"""The command line under bad arguments: every user error exits 2 with one message and no traceback, and a failed
``train`` leaves no run directory behind."""

from __future__ import annotations

import json

import pytest

from rlworkbench.agents.config import builtin_config
from rlworkbench.cli import main


def cases(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    nan_config = tmp_path / "nan.json"
    nan_config.write_text('{"type": "dqn", "discount": NaN}')
    deep = tmp_path / "deep.json"
    deep.write_text('{"type": "dqn", "x": ' + "[" * 50_000 + "]" * 50_000 + "}")
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"type": "dqn", "name": "é"}'.encode("latin-1"))
    not_object = tmp_path / "list.json"
    not_object.write_text("[1, 2]")
    bad_units = tmp_path / "units.json"
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 0}]
    bad_units.write_text(json.dumps(config))
    runs = str(tmp_path / "runs")
    train = ["train", "--timesteps", "10", "--no-progress", "--logdir", runs]
    return [
        [*train, "dqn_cartpole", "--seed", "-1"],
        [*train, "dqn_cartpole", "--timesteps", "0"],
        [*train, "no_such_config"],
        [*train, str(nan_config)],
        [*train, str(deep)],
        [*train, str(latin)],
        [*train, str(not_object)],
        [*train, str(bad_units)],
        [*train, "dqn_cartpole", "--env", "Pendulum-v1"],  # DQN needs discrete actions: SpaceError
        [*train, "dqn_cartpole", "--env", "NoSuchEnv-v0"],
        ["train", "dqn_cartpole", "--timesteps", "10", "--no-progress", "--logdir", str(a_file / "runs")],
        ["graph", "dqn_cartpole", "-o", str(a_file / "graph.svg")],
        ["graph", "dqn_cartpole", "-o", str(tmp_path / "graph.gif")],
        ["graph", str(bad_units), "-o", str(tmp_path / "g.svg")],
        ["graph", "dqn_cartpole", "--depth", "-3", "-o", str(tmp_path / "g.svg")],
        ["submit", "dqn_cartpole", "--address", "http://127.0.0.1:1", "--workers", "0"],
        ["submit", "dqn_cartpole", "--address", "ray://nowhere", "--workers", "0"],
        ["runs", "--address", "not-a-url"],
    ]


def test_bad_command_lines_exit_2_with_a_message(tmp_path, capsys, tally):
    for argv in cases(tmp_path):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        err = capsys.readouterr().err
        assert exited.value.code == 2, f"{argv}: exit {exited.value.code}\n{err}"
        assert "Traceback" not in err and "error" in err, f"{argv}: {err}"
        tally["command lines"] += 1
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())  # no half-made run dirs
