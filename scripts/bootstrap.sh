#!/usr/bin/env bash
# Makes .venv ready for the demo and the tests on a fresh machine: graphviz (apt, when root), a venv of $PYTHON
# (default: the first of python3.11, 3.12, 3.13, python3), torch installed on its own first (so pip takes the CPU
# wheel), then the package with all extras at the versions of constraints.txt (the lock).
# Re-runs are cheap: the install is redone only when pyproject.toml or constraints.txt changes.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
  else
    echo "bootstrap: graphviz ('dot') is missing; install it with your package manager" >&2
  fi
fi

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
  done
fi
# PYTHON=python3.12 make test: a .venv made by another interpreter is made again with the one asked for.
if [ -n "${PYTHON:-}" ] && [ -x .venv/bin/python ]; then
  want=$("$python" -c 'import sys; print(sys.version_info[:2])')
  have=$(.venv/bin/python -c 'import sys; print(sys.version_info[:2])')
  [ "$want" = "$have" ] || rm -rf .venv
fi
[ -x .venv/bin/python ] || "$python" -m venv .venv
stamp=".venv/.installed-$(cat pyproject.toml constraints.txt | sha1sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  # torch on its own first, at the locked version, so pip takes the CPU build rather than choosing one
  .venv/bin/python -m pip install -q "$(grep '^torch==' constraints.txt)"
  .venv/bin/python -m pip install -q -c constraints.txt -e ".[all,dev]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
bash scripts/browser_deps.sh
bash scripts/lab_extension.sh
