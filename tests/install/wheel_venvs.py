"""Builds rlworkbench's wheel once per test session (``pip wheel``, build isolation: hatchling and the lab
extension's build hook, as a user's ``pip install`` would) and makes fresh venvs from it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints.txt"


def build_wheel(out: Path) -> Path:
    """The wheel of the working tree, built into ``out``."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, timeout=900)
    (built,) = out.glob("rlworkbench-*.whl")
    return built


def fresh_venv(where: Path, wheel: Path, extras: str) -> Path:
    """A new venv at ``where`` with torch at the lock's pin first, then ``wheel[extras]`` through the lock; its
    python."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    torch_pin = re.search(r"^torch==\S+", LOCK.read_text(), re.M)
    assert torch_pin, "constraints.txt pins no torch"
    for args in ([torch_pin[0]], ["-c", str(LOCK), f"{wheel}[{extras}]"]):
        subprocess.run([str(python), "-m", "pip", "install", "-q", *args], check=True, timeout=900)
    return python
