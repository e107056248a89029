"""Learning benchmark: env steps and wall time until the shipped configs solve their environments.

Run ``python -m bench.learning [--seeds 5] [--backends torch tf] [--algos dqn ppo sac] [--out PATH.csv]``.

Each (algo, backend, seed) trains a fresh agent with the local :class:`~rlworkbench.execution.Worker` (progress bar
off) until the mean return of the last ``window`` finished episodes reaches the threshold, or a step cap:

=====  ============  ================  ======  ======  =========  ========
algo   env           config            envs    window  threshold  step cap
=====  ============  ================  ======  ======  =========  ========
dqn    CartPole-v1   dqn_cartpole      4       10      475        50,000
ppo    CartPole-v1   ppo_cartpole      8       10      475        100,000
sac    Pendulum-v1   sac_pendulum      1       5       -200       20,000
=====  ============  ================  ======  ======  =========  ========

Recurrent (issue 29), on CartPole with its velocities masked (``rlworkbench/MaskedCartPole-v1``), window 20,
threshold 450, cap 300,000, 8 envs: ``ppo_lstm`` (``ppo_lstm_cartpole``) and ``ppo_masked_mlp`` (the same config with
the lstm replaced by a dense relu layer: the control that must not get there).

The threshold is checked after every vector step (so ``steps_to_threshold`` is exact to one vector step).
``wall_s`` is agent build + training (env creation excluded). One row per run; medians over seeds per (algo,
backend) are printed against the targets. ``--configs-out`` receives the exact configs used (validated, defaults
filled) and the run settings.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"


@dataclass(frozen=True)
class Spec:
    config: str
    env: str
    num_envs: int
    window: int
    threshold: float
    step_cap: int
    target: str
    target_steps: int | None = None  # median steps_to_threshold must be <= this (None: only "reached")
    target_wall_s: float | None = None
    every_seed: bool = False  # every seed must reach the threshold (not only the median run)
    first_layer: dict[str, object] | None = None  # replaces policy/network's first layer (a control run)


SPECS: dict[str, Spec] = {
    "dqn": Spec("dqn_cartpole", "CartPole-v1", 4, 10, 475.0, 50_000, "every seed; median <= 50k steps, <= 30 s",
                50_000, 30.0, every_seed=True),
    "ppo": Spec("ppo_cartpole", "CartPole-v1", 8, 10, 475.0, 100_000, "reaches 475 (<= 100k steps)", 100_000),
    "sac": Spec("sac_pendulum", "Pendulum-v1", 1, 5, -200.0, 20_000, "reaches -200 (<= 20k steps)", 20_000),
    "ppo_lstm": Spec("ppo_lstm_cartpole", "rlworkbench/MaskedCartPole-v1", 8, 20, 450.0, 300_000,
                     "reaches 450 on masked CartPole (<= 300k steps)", 300_000),
    "ppo_masked_mlp": Spec("ppo_lstm_cartpole", "rlworkbench/MaskedCartPole-v1", 8, 20, 450.0, 300_000,
                           "control: without the lstm (not expected to reach 450)",
                           first_layer={"type": "dense", "units": 64, "activation": "relu"}),
}


def run_one(algo: str, backend: str, seed: int, step_cap: int | None = None) -> tuple[dict[str, Any], dict]:
    """Trains one agent until the threshold or the cap; returns the result row and the agent's config."""
    from rlworkbench.agents.config import load_config
    from rlworkbench.execution.envs import make_vector_env
    from rlworkbench.execution.train import agent_from_env
    from rlworkbench.execution.worker import Worker

    spec = SPECS[algo]
    cap = step_cap or spec.step_cap
    config = load_config(spec.config)
    if spec.first_layer is not None:
        policy, update = config["policy"], config["update"]
        assert isinstance(policy, dict) and isinstance(update, dict)
        policy["network"][0] = dict(spec.first_layer)
        update["sequence_length"] = None
    env = make_vector_env(spec.env, spec.num_envs, "sync", seed)
    reached_at: list[int] = []

    def check(worker: Worker) -> bool | None:
        recent = worker.book.recent_returns
        if len(recent) >= spec.window and worker.book.recent_mean_return >= spec.threshold:
            reached_at.append(worker.timesteps)
            return False
        return None

    try:
        start = time.perf_counter()
        agent = agent_from_env(env, config, backend=backend, seed=seed)
        with Worker(agent, env, seed=seed, progress=False, callback=check, callback_every=1,
                    recent_window=spec.window, log_every=10**12) as worker:
            worker.run(timesteps=cap)
        wall = time.perf_counter() - start
    finally:
        env.close()
    returns = worker.episodes["return"].to_numpy()
    final = float(np.mean(returns[-spec.window:])) if len(returns) else math.nan
    reached = bool(reached_at)
    row = {"benchmark": "learning", "algo": algo, "backend": backend, "seed": seed, "env": spec.env,
           "num_envs": spec.num_envs, "threshold": spec.threshold, "window": spec.window, "step_cap": cap,
           "reached": reached, "steps_to_threshold": reached_at[0] if reached else math.nan,
           "timesteps_run": worker.timesteps, "wall_s": wall, "final_mean_return": final,
           "episodes": len(returns), "updates": worker.book.num_updates}
    return row, dict(getattr(agent, "config", config))


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Medians over seeds per (algo, backend); a run that missed the threshold counts as +inf steps, so the median
    of steps is NaN (not reached) once half the runs or more missed it."""
    rows = []
    for (algo, backend), group in frame.groupby(["algo", "backend"], sort=False):
        spec = SPECS[algo]
        steps = group["steps_to_threshold"].fillna(math.inf)
        median_steps = float(np.median(steps))
        median_wall = float(np.median(group["wall_s"]))
        ok = math.isfinite(median_steps) and (spec.target_steps is None or median_steps <= spec.target_steps)
        if spec.target_wall_s is not None:
            ok = ok and median_wall <= spec.target_wall_s
        if spec.every_seed:
            ok = ok and bool(group["reached"].all())
        rows.append({"algo": algo, "backend": backend, "seeds": len(group),
                     "reached": f"{int(group['reached'].sum())}/{len(group)}",
                     "median_steps": median_steps if math.isfinite(median_steps) else math.nan,
                     "median_wall_s": median_wall, "median_final_return": float(np.median(group["final_mean_return"])),
                     "target": spec.target, "meets_target": ok})
    return pd.DataFrame(rows)


def settings(algos: list[str], configs: dict[str, dict]) -> dict[str, Any]:
    return {algo: {**asdict(SPECS[algo]), "vector_mode": "sync", "worker": {"progress": False},
                   "agent_config": configs.get(algo)} for algo in algos}


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="number of seeds per (algo, backend)")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seeds run first_seed .. first_seed+N-1 (to add seeds to an earlier run, then --combine)")
    parser.add_argument("--backends", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--algos", nargs="+", default=list(SPECS), choices=list(SPECS))
    parser.add_argument("--step-cap", type=int, default=None, help="override every algo's step cap (smoke tests)")
    parser.add_argument("--out", type=Path, default=DATASET_DIR / "learning.csv", help="CSV file to write")
    parser.add_argument("--configs-out", type=Path, default=None,
                        help="JSON of the configs used (default: learning_configs.json next to --out)")
    parser.add_argument("--threads", type=int, default=1, help="torch/TF intra-op threads (default 1)")
    parser.add_argument("--combine", nargs="+", type=Path, default=None, metavar="CSV",
                        help="run nothing: concatenate these result CSVs (e.g. one per backend, run as separate "
                             "processes) into --out and print their summary")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    configs_out = args.configs_out or args.out.with_name("learning_configs.json")
    if args.combine:
        frame = pd.concat([pd.read_csv(path) for path in args.combine], ignore_index=True)
        path = common.write_csv(frame, args.out)
        if not args.quiet:
            print_summary(frame, path, tensorflow="tensorflow" in frame.columns)
        return frame

    tensorflow = "tf" in args.backends
    if tensorflow:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        common.pin_tf_threads(args.threads)
    rows, configs = [], {}
    with common.torch_threads(args.threads):
        for algo in args.algos:
            for backend in args.backends:
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    row, config = run_one(algo, backend, seed, args.step_cap)
                    configs.setdefault(algo, config)
                    rows.append(row)
                    if not args.quiet:
                        print(f"{algo} {backend} seed {seed}: reached={row['reached']} "
                              f"steps={row['steps_to_threshold']} wall={row['wall_s']:.1f}s "
                              f"final={row['final_mean_return']:.1f}", flush=True)
        frame = common.results_frame(rows, tensorflow=tensorflow)
    path = common.write_csv(frame, args.out)
    configs_out.parent.mkdir(parents=True, exist_ok=True)
    configs_out.write_text(json.dumps(settings(args.algos, configs), indent=2, default=str) + "\n")
    if not args.quiet:
        print_summary(frame, path, tensorflow)
        print(f"configs: {configs_out}")
    return frame


def print_summary(frame: pd.DataFrame, path: Path, tensorflow: bool) -> None:
    summary = summarize(frame)
    stamp = [c for c in ("python", "torch", "tensorflow", "torch_threads", "tf_intra_threads", "tf_inter_threads",
                         "timestamp") if c in frame.columns]
    values = {c: frame[c].dropna().iloc[0] for c in stamp}
    values = {c: int(v) if isinstance(v, float) and v.is_integer() else v for c, v in values.items()}
    summary = summary.assign(**values)
    common.print_table("Learning: steps and wall time to threshold (medians over seeds)", summary,
                       ["algo", "backend", "seeds", "reached", "median_steps", "median_wall_s",
                        "median_final_return", "target", "meets_target"], path)


if __name__ == "__main__":
    main()
