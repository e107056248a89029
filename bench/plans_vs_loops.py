"""Plans vs loops: env frames/s and updates/s of Ape-X, IMPALA and sync PPO as dataflow plans against the loop classes
they replaced, CartPole-v1.

Run ``python -m bench.plans_vs_loops --old-tree DIR [--algos apex impala sync_ppo] [--repeats N] [--out PATH.csv]``,
``DIR`` a checkout of the code before the plans (``git worktree add /tmp/rlwb_old 54a5c87``), run with this
project's venv; the CSV goes to ``datasets/benchmarks/plans_vs_loops.csv``. Without ``--old-tree`` (``make bench``)
there is no baseline: the new code's figures only, to ``bench/results/plans_vs_loops.csv``.

Contenders: ``old``, the loop classes of ``DIR`` (``ApeX``, ``IMPALA``, ``SyncPPO`` in
``rlworkbench/execution/ray/{apex,impala,sync_ppo}.py``), and ``new``, this tree's ``PlanRun`` with the ``APEX``,
``IMPALA`` and ``SYNC_PPO`` plans. Every run is a fresh process (:mod:`bench.plans_vs_loops_child`, working
directory and ``PYTHONPATH`` the tree under test; it checks that it and its Ray workers import rlworkbench from
there) with a local Ray session of ``--num-cpus`` (2) CPUs, ``--workers`` (2) samplers of ``--envs-per-worker`` (4)
envs with ``sampler_cpus`` 0 (they share the cores with the learner), torch on one thread, seed = the repeat:

- ``apex``: bench.apex_vs_rllib's DQN (``dqn_dueling_per_cartpole``, 256-256 relu MLP, dueling heads of 128, batch
  64, n-step 3; one update per 4 env steps from 1,000 on); ``--apex-steps`` (8,000) timed env steps;
- ``impala``: the shipped ``impala_cartpole`` (64-64 tanh, fragments of 20 steps, one update per fragment);
  ``--steps`` (30,000);
- ``sync_ppo``: the shipped ``ppo_cartpole`` (rollouts of 32 steps x 8 envs, 20 epochs); ``--steps`` (30,000).

Each run: build, a warm-up of ``--warmup`` (2,000) env steps (the actors start inside it), then ``train()`` to the
steps more, timed: ``frames_per_s`` = env steps sampled in the window / its seconds, ``updates_per_s`` = learner
updates in it / its seconds. Runs alternate old, new, new, old, … (the order flips every repeat); one
algorithm's runs go back to back holding an exclusive ``flock`` on ``--lock`` (default ``/tmp/rlwb-ray.lock``;
``''``: none), released between algorithms so Ray test suites sharing the machine take turns; the CSV is written
after every algorithm; the 1-minute load average before each run is kept (``load_before``). A run that fails (Ray
not starting on a loaded machine, after the child's retries) is reported and left out. Figures are medians over
repeats; ``frames_ratio`` / ``updates_ratio`` = new / old medians, ``frames_paired_ratio`` the median of
per-repeat ratios.
Target: **frames_ratio >= 0.95** for every algorithm (today's behaviour and figures kept through the rewrite).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import common

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "plans_vs_loops_child.py"
DATASET_DIR = ROOT / "datasets" / "benchmarks"
ALGOS = ("apex", "impala", "sync_ppo")
TARGET = 0.95


def one_run(tree: Path, algo: str, steps: int, warmup: int, seed: int, args: Any) -> dict[str, Any]:
    """One child process against ``tree``; its JSON figures plus the load average before it."""
    command = [sys.executable, str(CHILD), "--algo", algo, "--steps", str(steps), "--warmup", str(warmup),
               "--tree", str(tree), "--workers", str(args.workers), "--envs-per-worker", str(args.envs_per_worker),
               "--num-cpus", str(args.num_cpus), "--seed", str(seed), "--threads", str(args.threads or 1)]
    env = {**os.environ, "PYTHONPATH": str(tree), "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0",
           "OMP_NUM_THREADS": "1"}
    env.setdefault("RAY_raylet_start_wait_time_s", "120")
    load = os.getloadavg()[0]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=args.run_timeout,
                          check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:  # reported and left out of the medians
        return {"error": f"exit {done.returncode}: {done.stderr[-3000:]}"}
    return {**json.loads(lines[-1]), "load_before": load, "process_s": time.perf_counter() - began}


@contextlib.contextmanager
def held(lock: Path | None):
    """Holds an exclusive ``flock`` on ``lock`` (nothing when ``None``) while the block runs."""
    if lock is None:
        yield
        return
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def measure(args: Any, report: Any, done: Any = None) -> list[dict[str, Any]]:
    trees = {"new": ROOT}
    if args.old_tree is not None:
        trees = {"old": args.old_tree.resolve(), "new": ROOT}
    rows: list[dict[str, Any]] = []
    for algo in args.algos:
        steps = args.apex_steps if algo == "apex" else args.steps
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        with held(args.lock):  # one algorithm's runs back to back, then others' Ray jobs may take their turn
            for repeat in range(args.repeats):
                for name in list(trees) if repeat % 2 == 0 else list(reversed(trees)):
                    run = one_run(trees[name], algo, steps, args.warmup, repeat, args)
                    if "error" in run:
                        report(f"  {algo}, {name}, repeat {repeat}: FAILED\n{run['error']}")
                        continue
                    runs[name].append(run)
                    report(f"  {algo}, {name} ({run['code']}), repeat {repeat}: {run['frames_per_s']:,.0f} frames/s, "
                           f"{run['updates_per_s']:,.1f} updates/s over {run['seconds']:.1f} s (load before "
                           f"{run['load_before']:.2f})")
        by_name = {}
        for name, results in runs.items():
            if not results:
                raise RuntimeError(f"every {algo} run of {name} failed")
            values = {key: [run[key] for run in results] for key in ("frames_per_s", "updates_per_s", "seconds",
                                                                      "build_s", "warmup_s", "load_before")}
            by_name[name] = row = {
                "benchmark": "plans_vs_loops", "algo": algo, "contender": name, "code": results[0]["code"],
                "tree": str(trees[name]), "env": "CartPole-v1", "workers": args.workers,
                "envs_per_worker": args.envs_per_worker, "sampler_cpus": 0, "ray_cpus": args.num_cpus,
                "timed_steps": steps, "warmup_steps": args.warmup, "repeats": args.repeats,
                "frames_per_s": common.median(values["frames_per_s"]),
                "frames_per_s_min": min(values["frames_per_s"]), "frames_per_s_max": max(values["frames_per_s"]),
                "updates_per_s": common.median(values["updates_per_s"]),
                "window_s": common.median(values["seconds"]), "build_s": common.median(values["build_s"]),
                "warmup_s": common.median(values["warmup_s"]),
                "load_before": common.median(values["load_before"]),
                "load_before_max": max(values["load_before"]),
                "frames_runs": " ".join(f"{v:.1f}" for v in values["frames_per_s"]),
                "updates_runs": " ".join(f"{v:.2f}" for v in values["updates_per_s"])}
            rows.append(row)
        if "old" in by_name:
            new, old = by_name["new"], by_name["old"]
            ratios = {"frames_ratio": new["frames_per_s"] / old["frames_per_s"],
                      "frames_paired_ratio": common.paired_ratio([r["frames_per_s"] for r in runs["new"]],
                                                                 [r["frames_per_s"] for r in runs["old"]]),
                      "updates_ratio": new["updates_per_s"] / old["updates_per_s"]}
            new |= ratios | {"target": f"frames_ratio >= {TARGET:g}",
                             "meets_target": bool(ratios["frames_ratio"] >= TARGET)}
        if done is not None:
            done(rows)  # the CSV so far: a long run that is stopped keeps the algorithms it finished
    return rows


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "plans_vs_loops.csv", 3,
                               "runs per algorithm and contender (seeds 0, 1, ...; order flips every repeat)")
    parser.set_defaults(out=None)  # datasets/benchmarks/ with an old tree to compare against, else bench/results/
    parser.add_argument("--old-tree", type=Path, default=None,
                        help="checkout of the loop classes (e.g. a git worktree of 54a5c87); none: new code only")
    parser.add_argument("--algos", nargs="+", choices=ALGOS, default=list(ALGOS))
    parser.add_argument("--steps", type=int, default=30_000, help="timed env steps of IMPALA and sync PPO runs")
    parser.add_argument("--apex-steps", type=int, default=8000, help="timed env steps of Ape-X runs")
    parser.add_argument("--warmup", type=int, default=2000, help="env steps before the timed window")
    parser.add_argument("--workers", type=int, default=2, help="sampler actors")
    parser.add_argument("--envs-per-worker", type=int, default=4)
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of each run's local Ray session")
    parser.add_argument("--lock", type=Path, default=Path("/tmp/rlwb-ray.lock"),
                        help="flock file held by each algorithm's runs (none: '')")
    parser.add_argument("--run-timeout", type=float, default=900.0, help="seconds one run may take")
    args = parser.parse_args(argv)
    if str(args.lock) in ("", "."):  # --lock ''
        args.lock = None
    if args.old_tree is not None and not (args.old_tree / "rlworkbench" / "__init__.py").is_file():
        parser.error(f"--old-tree {args.old_tree} holds no rlworkbench package")
    if args.out is None:
        args.out = (DATASET_DIR if args.old_tree is not None else common.RESULTS_DIR) / "plans_vs_loops.csv"
    report = (lambda line: None) if args.quiet else print
    def write(rows: list[dict[str, Any]]) -> Any:
        return common.write_csv(common.results_frame(rows).assign(cores=os.cpu_count()), args.out)

    rows = measure(args, report, write)
    frame = common.results_frame(rows).assign(cores=os.cpu_count())
    path = write(rows)
    if not args.quiet:
        columns = ["algo", "contender", "frames_per_s", "updates_per_s", "window_s", "load_before"]
        columns += [c for c in ("frames_ratio", "frames_paired_ratio", "updates_ratio", "meets_target")
                    if c in frame.columns]
        common.print_table(f"Plans vs loops: CartPole-v1, {args.workers} workers x {args.envs_per_worker} envs, "
                           f"sampler_cpus 0, {args.num_cpus} Ray CPUs, {os.cpu_count()} cores (medians; ratios = "
                           "new / old)", frame, columns, path)
    return frame


if __name__ == "__main__":
    main()
