"""Multi-device update: samples/s through ``update`` on replica towers against the plain one-device update.

Run ``python -m bench.multi_device [--repeats N] [--batches 64 512] [--towers 1 2 4] [--backends torch tf]
[--out PATH.csv]``.

The agent is the DQN of ``bench.train_overhead`` (CartPole, 4-256-256-2 Q-network, double-Q Huber loss, Adam with
norm clipping); every contender updates on the same fixed batch (``agent.update(batch)``), built once plainly
(``devices=None``) and once per tower count N (``devices`` = N times the CPU on torch, N logical CPUs on
TensorFlow, configured before TF starts). Contenders run in interleaved rounds, one thread. ``samples_per_s`` is
the batch size over the median time of an update; ``overhead`` = plain samples/s over the towers' (how much slower
the same update gets on N towers of one machine: on CPUs that share cores no speed-up is possible, so the figure is
the strategy's cost — its split, the replicas' smaller GEMMs, gradient sums and weight copies). Target: overhead
<= 1.10 at 2 towers. On a GPU machine ``--devices-kind cuda`` puts tower i on ``cuda:i`` (as many GPUs as there
are) and the figure becomes the 1 -> N scaling.

On torch with CPU towers the same split is also written by hand in plain PyTorch (:mod:`bench.hand_towers`),
interleaved with the rest: ``hand_overhead`` is its plain / N-tower time — the floor any synchronous split pays
here (a second tower runs every kernel again on half the rows) — and ``vs_hand`` = ``overhead`` / ``hand_overhead``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from bench import common
from bench.hand_dqn import Settings

TARGET = {2: 1.10}
LOGICAL_CPUS = 4


def make_batch(rows: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"states": rng.normal(size=(rows, 4)).astype(np.float32), "actions": rng.integers(0, 2, rows),
            "rewards": rng.normal(size=rows).astype(np.float32), "terminals": rng.random(rows) < 0.1,
            "next_states": rng.normal(size=(rows, 4)).astype(np.float32)}


def tower_devices(backend: str, towers: int, kind: str) -> list[str]:
    if kind == "cuda":
        return [f"cuda:{index}" for index in range(towers)]
    return [f"/CPU:{index % LOGICAL_CPUS}" for index in range(towers)] if backend == "tf" else ["cpu"] * towers


def make_agent(backend: str, batch_size: int, devices: list[str] | None) -> Any:
    from rlworkbench.agents import Agent

    config = Settings().config()
    config["update"]["batch_size"] = batch_size
    return Agent.from_env("CartPole-v1", config, backend=backend, seed=0).build(devices=devices)


def measure(backend: str, rows: int, tower_counts: list[int], kind: str, rounds: int,
            round_s: float) -> dict[str, list[float]]:
    batch = make_batch(rows)
    agents = {"plain": make_agent(backend, rows, None)}
    agents.update({f"{n}_towers": make_agent(backend, rows, tower_devices(backend, n, kind)) for n in tower_counts})
    for agent in agents.values():  # first calls trace (TF) and warm the allocator
        for _ in range(5):
            agent.update(batch)
    calls = {name: (agent.update, (batch,)) for name, agent in agents.items()}
    if backend == "torch" and kind == "cpu":  # the same split by hand: the floor on this machine
        from bench.hand_dqn import Settings
        from bench.hand_towers import HandTowerDQN

        for towers in [1, *tower_counts]:
            hand = HandTowerDQN(Settings(batch_size=rows), towers)
            calls[f"hand_{towers}"] = (hand.update, (batch,))
    contenders, _ = common.per_call_us(calls, round_s, shared=True)
    return common.interleaved(contenders, rounds)


def run(repeats: int, batches: list[int], tower_counts: list[int], backends: list[str], kind: str,
        round_s: float = 0.5) -> list[dict[str, Any]]:
    rows = []
    for backend in backends:
        for batch in batches:
            samples = measure(backend, batch, tower_counts, kind, repeats, round_s)
            plain_us = common.median(samples["plain"])
            for towers in tower_counts:
                values = samples[f"{towers}_towers"]
                us = common.median(values)
                target = TARGET.get(towers)
                hand = (common.median(samples[f"hand_{towers}"]) / common.median(samples["hand_1"])
                        if f"hand_{towers}" in samples else float("nan"))
                rows.append({"benchmark": "multi_device", "backend": backend, "batch": batch, "towers": towers,
                             "devices": " ".join(tower_devices(backend, towers, kind)),
                             "samples_per_s": batch / (us / 1e6), "plain_samples_per_s": batch / (plain_us / 1e6),
                             "overhead": us / plain_us,
                             "paired_overhead": 1.0 / common.paired_ratio(samples["plain"], values),
                             "hand_overhead": hand, "vs_hand": us / plain_us / hand,
                             "repeats": repeats, "target": f"overhead <= {target:g}" if target else "",
                             "meets_target": (us / plain_us <= target) if target else None})
    return rows


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "multi_device.csv", 7, "measurement rounds")
    parser.add_argument("--batches", nargs="+", type=int, default=[64, 512], help="total batch sizes")
    parser.add_argument("--towers", nargs="+", type=int, default=[1, 2, 4], help="tower counts")
    parser.add_argument("--backends", nargs="+", default=["torch"], choices=["torch", "tf"])
    parser.add_argument("--devices-kind", default="cpu", choices=["cpu", "cuda"],
                        help="cpu: towers share this machine's CPU; cuda: tower i on cuda:i")
    args = parser.parse_args(argv)
    tensorflow = "tf" in args.backends
    if tensorflow:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf

        cpu = tf.config.list_physical_devices("CPU")[0]  # logical CPUs exist only if made before TF starts
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * LOGICAL_CPUS)
        common.pin_tf_threads(args.threads)
    with common.torch_threads(args.threads):
        frame = common.results_frame(run(args.repeats, args.batches, args.towers, args.backends, args.devices_kind),
                                     tensorflow=tensorflow)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("Multi-device update: samples/s on N replica towers vs the plain update (medians; overhead "
                           "= plain / towers)", frame,
                           ["backend", "batch", "towers", "devices", "samples_per_s", "plain_samples_per_s",
                            "overhead", "paired_overhead", "hand_overhead", "vs_hand", "target", "meets_target"],
                           path)
    return frame


if __name__ == "__main__":
    main()
