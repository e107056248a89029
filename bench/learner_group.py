"""Learner groups: updates/s and samples/s trained by 1 learner vs a group of 2 ranks, the all-reduce's cost, and
a capacity estimate for N GPUs.

Run ``python -m bench.learner_group [--repeats N] [--round-s S] [--devices-kind cpu|cuda] [--out PATH.csv]``
(default ``datasets/benchmarks/learner_group.csv``).

For each shipped config — ``ppo_cartpole`` (sync PPO: one update on 2 samplers x 4 envs x 32 steps, 20 epochs of
one minibatch: 20 optimizer steps, each rank on 4 envs; the group trains the same samples per update),
``impala_cartpole`` (one fragment of 4 envs x 20 steps per rank and update) and ``dqn_dueling_per_cartpole``
(Ape-X's learner: a prioritised batch of 64 per rank) — the same batches go to one learner (the agent in this
process, what ``learners=1`` runs) and to a :class:`LearnerGroup` of 2 ranks on a local Ray (``learner_cpus`` 1
each: both cores). IMPALA's and DQN's group takes ``2 x`` the single learner's batch per update (data parallel: each
rank a single learner's batch), so the fair figure is **samples trained per second**; updates/s is reported too.
Rounds alternate (single, group / group, single …), each about ``--round-s`` seconds of back-to-back updates;
figures are medians over rounds. ``speedup`` = group samples/s / single samples/s and ``efficiency`` = speedup / 2.
On this 2-core machine the two ranks compete with each other, the driver and Ray for 2 cores — expect efficiency
well under 1; the row says what an all-reduce costs (``allreduce_ms``: per update, measured inside the PyTorch
ranks) and what that leaves for a machine with a core or a GPU per rank.

**Capacity model.** Rows of kind ``allreduce`` time one all-reduce of 1k, 64k and 1M float32s between the 2 ranks
(gloo over loopback here) and fit ``t(bytes) = latency + bytes / bandwidth``. Rows of kind ``capacity`` combine, for
the shipped configs and the Atari (Pong) network: the gradient size per optimizer step (the trainable variables),
the per-step compute measured here for one learner (CPU; a GPU learner's from ``--devices-kind cuda`` when run
there), and a ring all-reduce ``2 (N-1)/N x bytes / bandwidth + 2 (N-1) x latency`` with the measured loopback
figures (CPU, gloo) and with NCCL's assumed figures for NVLink (150 GB/s, 10 µs) and 100 Gb/s InfiniBand between
nodes (10 GB/s, 20 µs) — assumptions, stated in the row — into the predicted update time and scaling efficiency
``compute / (compute + all-reduce)`` of N = 2, 8, 32 ranks (no overlap of compute and communication: the
optimizer averages after the backward pass). PPO's optimizer step makes 3 more, tiny all-reduces (the advantages'
mean and variance, the loss diagnostics): latency only, counted.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "benchmarks" / "learner_group.csv"
CONFIGS = ROOT / "rlworkbench" / "agents" / "configs"
LINKS = {"loopback_gloo": None, "nvlink_nccl_assumed": (10e-6, 150e9), "infiniband_100g_assumed": (20e-6, 10e9)}
"""(latency s, bandwidth B/s) of each link; None: as measured here."""
SCALE = (2, 8, 32)


def shipped(name: str) -> dict[str, Any]:
    return json.loads((CONFIGS / f"{name}.json").read_text())


def sequences(envs: int, length: int, seed: int, behaviour: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    batch = {"states": rng.normal(size=(envs, length, 4)).astype(np.float32),
             "actions": rng.integers(0, 2, (envs, length)),
             "rewards": np.ones((envs, length), np.float32), "terminals": rng.random((envs, length)) < 0.02,
             "next_states": rng.normal(size=(envs, length, 4)).astype(np.float32)}
    if behaviour:
        batch["behaviour_log_probs"] = np.full((envs, length), np.log(0.5), np.float32)
    return batch


def replay(rows: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"states": rng.normal(size=(rows, 4)).astype(np.float32), "actions": rng.integers(0, 2, rows),
            "rewards": np.ones(rows, np.float32), "terminals": rng.random(rows) < 0.05,
            "next_states": rng.normal(size=(rows, 4)).astype(np.float32),
            "importance_weights": np.ones(rows, np.float32)}


def cases() -> dict[str, tuple[dict[str, Any], Callable[[int], tuple[dict[str, np.ndarray], int]], bool]]:
    """config name -> (config, batch(shares) -> (batch, samples), prioritised)."""
    ppo, impala, dqn = shipped("ppo_cartpole"), shipped("impala_cartpole"), shipped("dqn_dueling_per_cartpole")
    ppo.pop("execution", None), impala.pop("execution", None), dqn.pop("execution", None)
    ppo_length, impala_length = ppo["update"]["rollout_length"], impala["update"]["rollout_length"]
    dqn_batch = dqn["update"]["batch_size"]
    return {
        "ppo_cartpole": (ppo, lambda shares: (sequences(8, ppo_length, 0, False), 8 * ppo_length), False),
        "impala_cartpole": (impala, lambda shares: (sequences(4 * shares, impala_length, 0, True),
                                                    4 * shares * impala_length), False),
        "dqn_dueling_per_cartpole": (dqn, lambda shares: (replay(dqn_batch * shares, 0), dqn_batch * shares), True),
    }


def make_agent(config: dict[str, Any], devices: list[str] | None = None) -> Any:
    from rlworkbench.agents import Agent

    return Agent.from_env("CartPole-v1", config, backend="torch", seed=0).build(devices=devices)


def trainable_elements(agent: Any) -> int:
    return int(sum(value.size for value in agent.get_weights(trainable_only=True).values()))


def pong_elements() -> int:
    """Trainable float32s of the shipped Ape-X Pong network (built on the real ALE env's spaces)."""
    from rlworkbench.agents import Agent
    from rlworkbench.execution.atari import atari_env

    config = shipped("apex_pong")
    config.pop("execution", None)
    env = atari_env("Pong")()
    try:
        return trainable_elements(Agent.from_env(env, config, backend="torch", seed=0).build())
    finally:
        env.close()


def timed_round(update: Callable[[], object], round_s: float) -> float:
    """Seconds per update over back-to-back updates for about ``round_s``."""
    calls, started = 0, time.perf_counter()
    while True:
        update()
        calls += 1
        elapsed = time.perf_counter() - started
        if elapsed >= round_s:
            return elapsed / calls


def measure(name: str, ranks: int, repeats: int, round_s: float, devices: list[str] | None) -> dict[str, Any]:
    from rlworkbench.execution.ray.learner_group import LearnerGroup

    config, make_batch, prioritised = cases()[name]
    single, mirror = make_agent(config, devices), make_agent(config, devices)
    single_batch, single_samples = make_batch(1)
    group_batch, group_samples = make_batch(ranks)
    group = LearnerGroup(mirror, ranks, devices=devices, cpus=1.0, timeout=120)
    method = "update_with_priorities" if prioritised else "update"
    try:
        run_single = lambda: getattr(single, method)(single_batch)  # noqa: E731
        run_group = lambda: getattr(group, method)(group_batch)  # noqa: E731
        run_single(), run_group()  # warm-up (first traces, lazy allocations)
        reduces: list[float] = []

        def group_round() -> float:
            seconds = timed_round(run_group, round_s)
            reduces.append(float(np.mean([stats["allreduce_s"] for stats in group.stats])))
            return seconds
        times = common.interleaved({"single": lambda: timed_round(run_single, round_s), "group": group_round},
                                   repeats)
        single_s, group_s = common.median(times["single"]), common.median(times["group"])
        elements = trainable_elements(single)
        speedup = (group_samples / group_s) / (single_samples / single_s)
        return {"kind": "throughput", "config": name, "ranks": ranks, "devices": ",".join(devices or ["cpu"]),
                "single_updates_per_s": 1 / single_s, "group_updates_per_s": 1 / group_s,
                "single_samples_per_s": single_samples / single_s, "group_samples_per_s": group_samples / group_s,
                "speedup": speedup, "efficiency": speedup / ranks, "allreduce_ms": 1e3 * common.median(reduces),
                "gradient_elements": elements, "gradient_bytes": 4 * elements,
                "single_update_ms": 1e3 * single_s, "group_update_ms": 1e3 * group_s, "repeats": repeats}
    finally:
        group.close()


def all_reduce_rows(ranks: int, repeats: int) -> tuple[list[dict[str, Any]], tuple[float, float]]:
    """Timed all-reduces of 1k, 64k and 1M float32s between the ranks; the fitted latency (s) and bandwidth
    (B/s)."""
    from rlworkbench.execution.ray.learner_group import LearnerGroup

    config, _, _ = cases()["ppo_cartpole"]
    group = LearnerGroup(make_agent(config), ranks, cpus=1.0, timeout=120)
    try:
        sizes = (1_000, 64_000, 1_000_000)
        seconds = [group.all_reduce_seconds(repeats=max(repeats, 5), elements=size) for size in sizes]
    finally:
        group.close()
    slope, intercept = np.polyfit([4 * size for size in sizes], seconds, 1)
    bandwidth, latency = 1 / max(slope, 1e-15), max(float(intercept), 0.0)
    rows = [{"kind": "allreduce", "ranks": ranks, "elements": size, "bytes": 4 * size, "allreduce_ms": 1e3 * s,
             "link": "loopback_gloo", "fitted_latency_us": 1e6 * latency, "fitted_bandwidth_gb_s": bandwidth / 1e9}
            for size, s in zip(sizes, seconds)]
    return rows, (latency, bandwidth)


def ring_seconds(nbytes: float, ranks: int, latency: float, bandwidth: float) -> float:
    return 2 * (ranks - 1) / ranks * nbytes / bandwidth + 2 * (ranks - 1) * latency


def capacity_rows(throughput: list[dict[str, Any]], pong: int, loopback: tuple[float, float] | None
                  ) -> list[dict[str, Any]]:
    """Predicted per-step all-reduce and efficiency at N ranks, per network and link (see the module docstring)."""
    networks = [(row["config"], row["gradient_elements"], row["single_update_ms"] / 1e3 / steps_per_update(row))
                for row in throughput]
    small = {name: 3 if name == "ppo_cartpole" else 0 for name, _, _ in networks}  # PPO: advantage stats, parts
    if pong:  # Pong's compute is not measured here (no CPU figure worth extrapolating): its all-reduce only
        networks.append(("apex_pong (network only)", pong, float("nan")))
    rows = []
    for name, elements, compute in networks:
        for link, assumed in LINKS.items():
            figures = assumed if assumed is not None else loopback
            if figures is None:  # one rank: no all-reduce was measured here
                continue
            link_latency, link_bandwidth = figures
            for ranks in SCALE:
                reduce_s = ring_seconds(4 * elements, ranks, link_latency, link_bandwidth) + small.get(name, 0) * \
                    ring_seconds(32, ranks, link_latency, link_bandwidth)
                rows.append({"kind": "capacity", "config": name, "gradient_elements": elements,
                             "gradient_bytes": 4 * elements, "link": link, "ranks": ranks,
                             "latency_us": 1e6 * link_latency, "bandwidth_gb_s": link_bandwidth / 1e9,
                             "step_compute_ms": 1e3 * compute, "step_allreduce_ms": 1e3 * reduce_s,
                             "efficiency": compute / (compute + reduce_s) if compute == compute else float("nan"),
                             "assumed": assumed is not None})
    return rows


def steps_per_update(row: dict[str, Any]) -> int:
    """Optimizer steps in one update of the config (PPO: epochs x minibatches)."""
    if row["config"] != "ppo_cartpole":
        return 1
    update = shipped("ppo_cartpole")["update"]
    return int(update["num_epochs"]) * int(update["num_minibatches"])


def main(argv: list[str] | None = None) -> Path:
    parser = common.arg_parser(__doc__.split("\n")[0], "learner_group.csv", 5, "rounds per contender")
    parser.add_argument("--round-s", type=float, default=1.0, help="seconds of back-to-back updates per round")
    parser.add_argument("--devices-kind", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: each rank's agent on its own GPU (Ray gives each rank one; NCCL)")
    parser.add_argument("--configs", default=",".join(cases()), help="comma-separated config names")
    parser.add_argument("--ranks", type=int, default=2, help="learner ranks of the group (a GPU machine: its GPUs)")
    parser.add_argument("--no-pong", action="store_true", help="skip building the Pong network (needs ale-py)")
    parser.set_defaults(out=DATASET)
    args = parser.parse_args(argv)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from rlworkbench.execution.ray import ensure_ray

    ensure_ray(num_cpus=max(args.ranks, 2))
    devices = None if args.devices_kind == "cpu" else ["cuda:0"]
    with common.torch_threads(args.threads):
        throughput = [measure(name, args.ranks, args.repeats, args.round_s, devices)
                      for name in args.configs.split(",")]
        reduces, loopback = all_reduce_rows(args.ranks, args.repeats) if args.ranks > 1 else ([], None)
        pong = 0 if args.no_pong else pong_elements()
    rows = throughput + reduces + capacity_rows(throughput, pong, loopback)
    frame = common.results_frame(rows)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table(f"learner group: 1 learner vs {args.ranks} ranks (samples trained per second)",
                           frame[frame["kind"] == "throughput"], ["config", "single_samples_per_s",
                           "group_samples_per_s", "speedup", "efficiency", "allreduce_ms", "gradient_bytes"], None)
        common.print_table(f"all-reduce between {args.ranks} ranks", frame[frame["kind"] == "allreduce"],
                           ["elements", "allreduce_ms", "fitted_latency_us", "fitted_bandwidth_gb_s"], None)
        common.print_table("capacity model: efficiency per optimizer step at N ranks", frame[frame["kind"] ==
                           "capacity"], ["config", "link", "ranks", "step_compute_ms", "step_allreduce_ms",
                           "efficiency"], path)
    return path


if __name__ == "__main__":
    main()
