#!/usr/bin/env bash
# Builds the JupyterLab extension (extensions/rlworkbench-lab: `npm ci` from its committed lock file, tsc, the
# @jupyter/builder bundle) when its sources changed, and installs it into .venv: the prebuilt frontend under
# share/jupyter/labextensions/rlworkbench-lab, the server extension's switch under
# etc/jupyter/jupyter_server_config.d/. Only the npm registry is used. A current build is not redone.
set -euo pipefail
cd "$(dirname "$0")/.."

ext=extensions/rlworkbench-lab
target=.venv/share/jupyter/labextensions/rlworkbench-lab
if ! command -v npm >/dev/null 2>&1; then
  echo "lab_extension: npm is missing (scripts/browser_deps.sh installs node and npm); extension not built" >&2
  exit 0
fi
sources=$(cat "$ext/package.json" "$ext/package-lock.json" "$ext/tsconfig.json" "$ext"/src/*.ts "$ext"/style/* \
  rlworkbench/workbench/pan_zoom.js rlworkbench/workbench/pan_zoom.d.ts | sha1sum | cut -c1-12)  # + what src imports
if [ ! -f "$target/.built-$sources" ] || [ ! -f "$target/package.json" ]; then
  echo "lab_extension: building $ext"
  .venv/bin/python extensions/lab_build.py  # the wheel's build hook: npm ci from the lock, then the build script
  rm -rf "$target"
  mkdir -p "$(dirname "$target")"
  cp -r "$ext/labextension" "$target"
  touch "$target/.built-$sources"
fi
mkdir -p .venv/etc/jupyter/jupyter_server_config.d
cp "$ext/jupyter-config/rlworkbench.json" .venv/etc/jupyter/jupyter_server_config.d/rlworkbench.json
