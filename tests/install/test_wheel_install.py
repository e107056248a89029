"""The wheel is all a user needs: installed into a fresh venv (not editable), with ``[torch,jupyter]``, it carries the
prebuilt lab extension and the server extension's switch (``jupyter labextension list`` / ``jupyter server extension
list`` say enabled and OK), its console script and package data work (``rlworkbench --help``, ``python -m
rlworkbench.demo`` finds its shipped configs), and JupyterLab started from that venv shows the runs panel reading
runs from the server extension, in Chromium."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from wheel_venvs import ROOT, fresh_venv

DRIVER = ROOT / "tests" / "browser" / "drive_installed_lab.mjs"
CHECKS = json.loads((ROOT / "tests" / "browser" / "checks.json").read_text())


@pytest.fixture(scope="module")
def installed(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The venv's python and an environment that sees nothing of the repository or of the user's Jupyter."""
    home = tmp_path_factory.mktemp("home")
    python = fresh_venv(home / "venv", built_wheel, "torch,jupyter")
    env = {"PATH": f"{python.parent}:/usr/bin:/bin", "HOME": str(home), "OMP_NUM_THREADS": "1",
           "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_DATA_DIR": str(home / "jupyter-data"), "RLWORKBENCH_RUNS_DIR": str(home / "runs")}
    return python, env


def run(python: Path, env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    done = subprocess.run([str(python.parent / args[0]), *args[1:]], cwd=cwd or python.parents[2], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # without the terminal colours


def test_the_wheel_carries_both_extensions_and_the_package_data(installed) -> None:
    python, env = installed
    site = run(python, env, "python", "-c", "import rlworkbench; print(rlworkbench.__file__)")
    assert "site-packages" in site and str(ROOT) not in site
    labextensions = run(python, env, "jupyter", "labextension", "list")
    line = next((row for row in labextensions.splitlines() if "rlworkbench-lab" in row), "")
    assert "enabled" in line and "OK" in line, labextensions
    servers = run(python, env, "jupyter", "server", "extension", "list")
    assert re.search(r"rlworkbench\.lab\s+enabled", servers), servers
    assert re.search(r"rlworkbench\.lab\s+\S*\s*OK", servers), servers
    assert "usage" in run(python, env, "rlworkbench", "--help").lower()
    demo = run(python, env, "python", "-m", "rlworkbench.demo", "--train-timesteps", "400", cwd=python.parents[2])
    assert "training dqn_cartpole" in demo, demo[-2000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.browser
def test_jupyterlab_from_the_installed_wheel_shows_the_runs_panel(installed, tmp_path: Path) -> None:
    node, chromium = shutil.which("node"), shutil.which("chromium")
    if not node or not chromium or not (DRIVER.parent / "node_modules" / "playwright-core").exists():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("node, chromium or playwright-core missing (scripts/browser_deps.sh installs them)")
        pytest.skip("node, chromium or playwright-core missing")
    python, env = installed
    port, token = free_port(), secrets.token_hex(12)
    (tmp_path / "root").mkdir()
    log = (tmp_path / "lab.log").open("wb")
    lab = subprocess.Popen([str(python.parent / "jupyter"), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
                            f"--port={port}", f"--ServerApp.token={token}", f"--ServerApp.root_dir={tmp_path / 'root'}",
                            "--LabApp.news_url=None"], env=env, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
                break
            except OSError:
                assert lab.poll() is None and time.monotonic() < deadline, (tmp_path / "lab.log").read_text()[-3000:]
                time.sleep(0.5)
        config = {"url": f"http://127.0.0.1:{port}/lab?token={token}", "chromium": chromium,
                  "chromium_args": CHECKS["chromium_args"], "viewport": CHECKS["viewport"], "timeout_ms": 60000,
                  "screenshot": str(ROOT / "test-artifacts" / "browser" / "installed-wheel-lab.png")}
        (tmp_path / "config.json").write_text(json.dumps(config))
        done = subprocess.run([node, str(DRIVER), str(tmp_path / "config.json")], cwd=DRIVER.parent,
                              capture_output=True, text=True, timeout=180, check=False)
        result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {"fatal": done.stderr}
        assert not result.get("fatal"), result
        assert "run(s)" in result["status"], result  # the server extension answered (else "cannot read the runs")
        assert "No runs yet" in result["list"], result
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
        log.close()
