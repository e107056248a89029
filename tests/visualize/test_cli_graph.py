"""``rlworkbench graph CONFIG -o graph.svg``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from graph_svg_helpers import clusters

from rlworkbench.cli import main


def test_draws_a_shipped_config_to_svg(tmp_path, capsys):
    output = tmp_path / "out" / "graph.svg"
    main(["graph", "dqn_dueling_per_cartpole", "-o", str(output)])
    labels = [label for label, _ in clusters(output.read_text())]
    assert "memory (PrioritizedReplay)" in labels and "action_adapter (DuelingActionAdapter)" in labels
    assert "graph drawn" in capsys.readouterr().out


def test_options_and_other_formats(tmp_path):
    config = tmp_path / "ppo.json"
    config.write_text(json.dumps({"type": "ppo"}))
    main(["graph", str(config), "-o", str(tmp_path / "g.dot"), "--depth", "0", "--no-devices"])
    source = (tmp_path / "g.dot").read_text()
    assert source.startswith("digraph") and source.count("subgraph cluster_") == 1
    main(["graph", "dqn_cartpole", "-o", str(tmp_path / "g.png"), "--api", "act"])
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv, message", [
    (["graph", "dqn_cartpole", "-o", "g.gif"], "unknown output format"),
    (["graph", "no_such_config", "-o", "g.svg"], "no such config"),
    (["graph", "dqn_cartpole", "--api", "learn", "-o", "g.svg"], "this API method is not in the graph"),
    (["graph", "dqn_cartpole", "--env", "NoSuchEnv-v0", "-o", "g.svg"], "unknown or unusable Gymnasium env"),
    (["graph", "dqn_cartpole", "--env", "Pendulum-v1", "-o", "g.svg"], "action_space"),
])
def test_bad_input_exits_2_with_the_typed_message(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2 and message in capsys.readouterr().err
    assert not (Path(tmp_path) / "g.svg").exists()


def test_the_console_script_runs():
    result = subprocess.run([sys.executable, "-m", "rlworkbench.cli", "graph", "--help"], capture_output=True,
                            text=True, check=True)
    assert "-o OUTPUT" in result.stdout and "--depth" in result.stdout
