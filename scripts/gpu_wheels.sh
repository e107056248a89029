#!/usr/bin/env bash
# Downloads, on a machine with a package index, the wheels scripts/gpu_check.sh installs on a GPU machine without
# one (Python 3.12, x86_64 Linux, torch preinstalled): into .gpu-wheels (git-ignored), versions from the lock.
# Carry the folder along with the working tree (the device tool's `carry`).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
grep -v '^torch==' constraints.txt > "${TMPDIR:-/tmp}/gpu-constraints.txt"
"$python" -m pip download -q -d .gpu-wheels --only-binary=:all: --python-version "${GPU_PYTHON:-3.12}" \
  --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 \
  -c "${TMPDIR:-/tmp}/gpu-constraints.txt" gymnasium jsonschema tensorboard "ray[default]" pytest tqdm pandas
du -sh .gpu-wheels
