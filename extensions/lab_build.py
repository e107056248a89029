"""The wheel's build hook for the JupyterLab extension (hatch-jupyter-builder's ``build-function``).

A standard wheel or sdist build runs ``npm ci`` from the committed lock (only the npm registry is used) and the
extension's ``build`` script (tsc, then @jupyter/builder) into ``extensions/rlworkbench-lab/labextension``, which
``pyproject.toml`` maps to ``share/jupyter/labextensions/rlworkbench-lab`` in the wheel. An editable install (the
bootstrap's) builds nothing here: ``scripts/lab_extension.sh`` runs this file as a script (the same build) and
installs the result into ``.venv``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXTENSION = Path(__file__).resolve().parent / "rlworkbench-lab"


def build(target_name: str, version: str) -> None:
    """Builds the extension's prebuilt frontend for ``target_name`` ("wheel" or "sdist")."""
    if version == "editable":
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("building rlworkbench's JupyterLab extension needs node >= 20 and npm on PATH")
    for stale in ("lib", "labextension", "tsconfig.tsbuildinfo"):
        path = EXTENSION / stale
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    # the build script calls the `jupyter-builder` command of the build environment (a build requirement)
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=EXTENSION, check=True, env=env)
    subprocess.run([npm, "run", "build", "--silent"], cwd=EXTENSION, check=True, env=env)


if __name__ == "__main__":
    build("wheel", "standard")
