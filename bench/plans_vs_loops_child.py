"""One timed run of a distributed algorithm on Ray, for :mod:`bench.plans_vs_loops`: run as a script by path
(``python bench/plans_vs_loops_child.py --algo apex --steps N --tree DIR``) in a fresh process whose working
directory and ``PYTHONPATH`` are ``DIR``, the rlworkbench tree under test. It imports whatever that tree has: the
dataflow plans (``PlanRun`` and :mod:`rlworkbench.execution.ray.plans`, from commit 73d6bdc on) or the loop classes
before them (``ApeX``, ``IMPALA``, ``SyncPPO`` in ``execution/ray/{apex,impala,sync_ppo}.py``), checks that this
process and its Ray workers both import rlworkbench from ``DIR``, and prints one JSON line with the figures.

The run: build the agent and the run (``build_s``), a warm-up of ``--warmup`` env steps (actors starting, the
learner's first updates; ``warmup_s``), then ``train()`` to ``--steps`` more env steps, timed (``seconds``):
``frames_per_s`` = env steps sampled in that window / its seconds, ``updates_per_s`` = learner updates in it /
its seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ENV_ID = "CartPole-v1"
ALGOS = ("apex", "impala", "sync_ppo")
LOOPS = {"apex": ("rlworkbench.execution.ray.apex", "ApeX"), "impala": ("rlworkbench.execution.ray.impala", "IMPALA"),
         "sync_ppo": ("rlworkbench.execution.ray.sync_ppo", "SyncPPO")}
PLANS = {"apex": "APEX", "impala": "IMPALA", "sync_ppo": "SYNC_PPO"}


def agent_config(algo: str) -> dict[str, Any]:
    """Ape-X: bench.apex_vs_rllib's DQN (dueling, PER, 256-256 MLP, batch 64, n-step 3); IMPALA and PPO: the shipped
    ``impala_cartpole`` / ``ppo_cartpole``."""
    from rlworkbench.agents.config import builtin_config

    if algo == "apex":  # what bench.apex_vs_rllib.dqn_config() makes, written out: this file runs against old trees
        config = builtin_config("dqn_dueling_per_cartpole")
        config["policy"].update(network=[{"type": "dense", "units": 256, "activation": "relu"}] * 2, dueling=True,
                                value_units=[128], advantage_units=[128])
        config["loss"].update(n_step=3, double_q=True, huber_loss=True)
        config["update"]["batch_size"] = 64
        return config
    return builtin_config({"impala": "impala_cartpole", "sync_ppo": "ppo_cartpole"}[algo])


def make_run(algo: str, agent: Any, settings: dict[str, Any], seed: int) -> tuple[Any, str]:
    """The run object and which code made it: ``plan`` (PlanRun) or ``loop`` (the class before plans)."""
    import importlib

    try:  # the package, not rlworkbench.execution.ray.plans(), the function listing them
        plans = importlib.import_module("rlworkbench.execution.ray.plans")
    except ImportError:
        module, name = LOOPS[algo]
        return getattr(importlib.import_module(module), name)(agent, ENV_ID, settings, seed=seed), "loop"
    from rlworkbench.execution.ray import PlanRun

    return PlanRun(getattr(plans, PLANS[algo]), agent, ENV_ID, settings, seed=seed), "plan"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", choices=ALGOS, required=True)
    parser.add_argument("--steps", type=int, required=True, help="timed env steps (after the warm-up)")
    parser.add_argument("--warmup", type=int, default=2000, help="env steps before the timed window")
    parser.add_argument("--tree", type=Path, required=True, help="the rlworkbench checkout under test")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--envs-per-worker", type=int, default=4)
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray session")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the learner")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    for key, value in {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0", "OMP_NUM_THREADS": "1"}.items():
        os.environ.setdefault(key, value)

    import ray
    import torch

    import rlworkbench
    from rlworkbench.agents import Agent
    from rlworkbench.execution.ray.session import ensure_ray

    torch.set_num_threads(args.threads)
    here = Path(rlworkbench.__file__).resolve()
    if tree not in here.parents:
        raise SystemExit(f"rlworkbench imported from {here}, not from the tree under test {tree}")
    for attempt in range(3):  # a loaded shared machine sometimes misses Ray's start-up deadline: nothing timed yet
        try:
            ensure_ray(num_cpus=args.num_cpus)
            break
        except Exception as error:
            print(f"Ray did not start ({type(error).__name__}: {error}); again", file=sys.stderr, flush=True)
            ray.shutdown()
            if attempt == 2:
                raise

    @ray.remote(num_cpus=0)
    def where() -> str:
        import rlworkbench as worker_copy

        return str(Path(worker_copy.__file__).resolve())

    there = Path(ray.get(where.remote()))
    if tree not in there.parents:
        raise SystemExit(f"Ray's workers import rlworkbench from {there}, not from the tree under test {tree}")

    settings = {"workers": args.workers, "envs_per_worker": args.envs_per_worker, "sampler_cpus": 0}
    began = time.perf_counter()
    agent = Agent.from_env(ENV_ID, agent_config(args.algo), backend="torch", seed=args.seed)
    run, code = make_run(args.algo, agent, settings, args.seed)
    built = time.perf_counter()
    try:
        run.train(args.warmup)
        warm = time.perf_counter()
        frames0, updates0 = int(run.timesteps), int(run.agent.updates)
        start = time.perf_counter()
        run.train(frames0 + args.steps)
        seconds = time.perf_counter() - start
        frames, updates = int(run.timesteps) - frames0, int(run.agent.updates) - updates0
    finally:
        run.close()
        ray.shutdown()
    result = {"algo": args.algo, "code": code, "rlworkbench": str(here.parent), "seed": args.seed,
              "build_s": built - began, "warmup_s": warm - built, "seconds": seconds, "frames": frames,
              "updates": updates, "frames_per_s": frames / seconds, "updates_per_s": updates / seconds}
    print(json.dumps(result), flush=True)
    return result


if __name__ == "__main__":
    main()
