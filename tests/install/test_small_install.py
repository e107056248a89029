"""A fresh venv with only ``rlworkbench[torch]``, installed from a wheel built here (not editable, the source tree
not on ``sys.path``): it imports, trains DQN and checkpoints, and asking for TF, Ray, the workbench or drawing is one
MissingExtra naming the extra (``small_install_check.py`` runs inside it). torch comes from the lock's pin, which
this project's machines serve from a local file; the other packages from the index (or pip's cache)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = Path(__file__).with_name("small_install_check.py")


def pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "-q", *args], check=True, timeout=900)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(ROOT)], check=True, timeout=600)
    (built,) = out.glob("rlworkbench-*.whl")
    return built


def test_rlworkbench_torch_alone_trains_and_names_the_missing_extras(wheel: Path, tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    torch_pin = re.search(r"^torch==\S+", (ROOT / "constraints.txt").read_text(), re.M)
    assert torch_pin
    pip(python, torch_pin[0])
    pip(python, "-c", str(ROOT / "constraints.txt"), f"{wheel}[torch]")
    done = subprocess.run([str(python), str(CHECK)], check=False, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "small install: ok" in done.stdout
