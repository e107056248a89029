#!/usr/bin/env bash
# Makes .venv ready for the demo and the tests on a fresh machine: graphviz (apt, when root), a Python 3.11
# venv, torch installed on its own first (so pip takes the CPU wheel), then the package with all extras.
# Re-runs are cheap: the install is redone only when pyproject.toml changes.
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
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
  done
fi
stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  [ -x .venv/bin/python ] || "$python" -m venv .venv
  .venv/bin/python -m pip install -q torch==2.13.0
  .venv/bin/python -m pip install -q -e ".[all]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
bash scripts/browser_deps.sh
bash scripts/lab_extension.sh
