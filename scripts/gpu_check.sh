#!/usr/bin/env bash
# The GPU check: one command, <= 8 minutes, on a bare CUDA machine with no network where Python 3.12 and torch are
# preinstalled. It makes .gpu-venv (seeing the system's torch), installs what is missing from wheels carried along
# (.gpu-wheels, made beforehand by scripts/gpu_wheels.sh on a machine with an index; pip --no-index), then runs:
#   1. cuda_tests    the CUDA tests: towers on cuda:0 x2 (and cuda:0, cuda:1 with two GPUs), device maps, placement
#   2. multi_device  bench.multi_device --devices-kind cuda (towers on cuda:i)
#   3. gpu_update    bench.gpu_update --device cuda:0: update and act vs hand-written PyTorch at batch 64 and 1024,
#                    device syncs per dueling DQN + PER update
#   4. gpu_apex      bench.gpu_apex --device cuda:0: a short Ape-X run with the learner on the GPU
#   5. learner_group bench.learner_group --devices-kind cuda --ranks 1: a learner rank on its own GPU (its group
#                    formed with NCCL) against the learner in the driver — the smoke of the multi-GPU path
# and writes datasets/benchmarks/gpu.csv and gpu_report.md (bench.gpu_report). A failing step is reported, not fatal.
#
# scripts/gpu_check.sh --dry-run   lists the steps and imports everything they would run, with this machine's
#                                  python (PYTHON, default .venv/bin/python), installing nothing: it must pass on CPU.
set -uo pipefail
cd "$(dirname "$0")/.."

dry=0
[ "${1:-}" = "--dry-run" ] && dry=1
wheels=${GPU_WHEELS:-.gpu-wheels}
results=${GPU_RESULTS:-test-artifacts/gpu}
export RAY_USAGE_STATS_ENABLED=0 RAY_AUTH_MODE=${RAY_AUTH_MODE:-disabled} OMP_NUM_THREADS=1 PYTHONPATH="$PWD"

steps=(
  "cuda_tests|240|-m pytest -q -p no:cacheprovider -o addopts= tests/strategies/test_multi_device_cuda.py tests/core/test_device_maps.py --junitxml=$results/cuda_tests.xml"
  "multi_device|90|-m bench.multi_device --devices-kind cuda --towers 1 --batches 64 1024 --repeats 5 --out $results/multi_device.csv"
  "gpu_update|90|-m bench.gpu_update --device cuda:0 --repeats 7 --out $results/gpu_update.csv"
  "gpu_apex|120|-m bench.gpu_apex --device cuda:0 --timesteps 20000 --out $results/gpu_apex.csv"
  "learner_group|120|-m bench.learner_group --devices-kind cuda --ranks 1 --configs ppo_cartpole --repeats 3 --round-s 0.5 --no-pong --out $results/learner_group.csv"
)
modules="torch numpy pandas gymnasium jsonschema tensorboard ray pytest rlworkbench rlworkbench.agents rlworkbench.execution rlworkbench.execution.ray bench.multi_device bench.gpu_update bench.gpu_apex bench.learner_group bench.gpu_report"

if [ "$dry" = 1 ]; then
  python=${PYTHON:-.venv/bin/python}
  echo "gpu_check --dry-run with $("$python" --version 2>&1) ($python)"
  for step in "${steps[@]}"; do
    IFS='|' read -r name limit args <<<"$step"
    echo "step $name (<= ${limit} s): python $args"
  done
  "$python" - "$modules" <<'PY' || exit 1
import importlib, sys
for name in sys.argv[1].split():
    importlib.import_module(name)
    print(f"import {name}: ok")
PY
  "$python" -m pytest -q -p no:cacheprovider -o addopts= --collect-only tests/strategies/test_multi_device_cuda.py \
    tests/core/test_device_maps.py | tail -1 || exit 1
  # the benchmarks' own code on the CPU, as small as it goes
  "$python" -m bench.gpu_update --device cpu --repeats 1 --calls 2 --batches 64 --quiet \
    --out "${TMPDIR:-/tmp}/gpu_update_dry.csv" || exit 1
  echo "gpu_check --dry-run: ok"
  exit 0
fi

python=${PYTHON:-python3}
if [ ! -x .gpu-venv/bin/python ]; then
  "$python" -m venv --system-site-packages .gpu-venv || exit 1
fi
python=.gpu-venv/bin/python
missing=$("$python" - <<'PY'
import importlib.util
wanted = {"gymnasium": "gymnasium", "jsonschema": "jsonschema", "tensorboard": "tensorboard", "ray": "ray[default]",
          "pytest": "pytest", "tqdm": "tqdm", "pandas": "pandas"}
print(" ".join(spec for module, spec in wanted.items() if importlib.util.find_spec(module) is None))
PY
)
if [ -n "$missing" ]; then
  echo "gpu_check: installing from $wheels: $missing"
  "$python" -m pip install -q --no-index --find-links "$wheels" $missing || { echo "gpu_check: missing wheels"; exit 1; }
fi
"$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.device_count(), 'GPU(s):', [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())])"
mkdir -p "$results"
for step in "${steps[@]}"; do
  IFS='|' read -r name limit args <<<"$step"
  echo "== $name (<= ${limit} s)"
  # shellcheck disable=SC2086 (the arguments are words)
  timeout "$limit" "$python" $args 2>&1 | tail -40 || echo "gpu_check: step $name failed or ran out of time"
done
"$python" -m bench.gpu_report "$results"
