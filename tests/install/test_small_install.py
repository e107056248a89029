"""A fresh venv with only ``rlworkbench[torch]``, installed from the wheel (not editable, the source tree not on
``sys.path``): it imports, trains DQN and checkpoints, and asking for TF, Ray, the workbench or drawing is one
MissingExtra naming the extra (``small_install_check.py`` runs inside it). torch comes from the lock's pin, which this
project's machines serve from a local file; the other packages from the index (or pip's cache)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from wheel_venvs import fresh_venv

CHECK = Path(__file__).with_name("small_install_check.py")


def test_rlworkbench_torch_alone_trains_and_names_the_missing_extras(built_wheel: Path, tmp_path: Path) -> None:
    python = fresh_venv(tmp_path / "venv", built_wheel, "torch")
    done = subprocess.run([str(python), str(CHECK)], check=False, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "small install: ok" in done.stdout
