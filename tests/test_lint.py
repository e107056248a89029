"""The style gate: ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade, …) over the package, tests and benchmarks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (it comes with the dev extra)")
    result = subprocess.run([ruff, "check", "rlworkbench", "tests", "bench"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
