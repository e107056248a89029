"""A short Ape-X run with its learner on a device: ``dqn_dueling_per_cartpole`` built with ``devices=[device]``,
2 sampler actors (CPU) x 4 envs and 2 replay shards on a local Ray session, for ``--timesteps`` env steps; then 10
greedy episodes of the learner's policy. ``scripts/gpu_check.sh`` runs it with ``--device cuda:0``.

Run ``python -m bench.gpu_apex [--device cuda:0] [--timesteps 20000] [--out PATH.csv]``: one CSV row (frames/s,
updates/s, trained samples/s, the learner's device as the agent reports it, the greedy mean return).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench import common

SETTINGS = {"workers": 2, "envs_per_worker": 4, "shards": 2, "sampler_cpus": 1, "num_cpus": 3}


def run(device: str, timesteps: int) -> dict[str, object]:
    from rlworkbench.agents import Agent
    from rlworkbench.execution.ray import PlanRun
    from rlworkbench.execution.ray.plans import APEX

    agent = Agent.from_env("CartPole-v1", "dqn_dueling_per_cartpole", backend="torch", seed=0).build(devices=[device])
    apex = PlanRun(APEX, agent, "CartPole-v1", SETTINGS, seed=0)
    try:
        started, updates_before = time.perf_counter(), int(agent.updates)
        apex.train(timesteps)
        seconds = time.perf_counter() - started
        updates = int(agent.updates) - updates_before
        greedy = apex.evaluate(episodes=10)["return"].mean()
    finally:
        apex.close()
    return {"benchmark": "gpu_apex", "device": device, "learner_devices": " ".join(agent.devices or []),
            "timesteps": apex.timesteps, "seconds": seconds, "frames_per_s": apex.timesteps / seconds,
            "updates_per_s": updates / seconds, "trained_per_s": updates * agent.config["update"]["batch_size"]
            / seconds, "greedy_return": float(greedy), **{f"setting_{k}": v for k, v in SETTINGS.items()}}


def main(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR / "gpu_apex.csv")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    with common.torch_threads(1):
        frame = common.results_frame([run(args.device, args.timesteps)])
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table(f"Ape-X, learner on {args.device}", frame,
                           ["learner_devices", "timesteps", "frames_per_s", "updates_per_s", "greedy_return"], path)
    return frame


if __name__ == "__main__":
    main()
