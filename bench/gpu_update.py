"""DQN on one device: an update and an act call through rlworkbench against the same work written by hand in
PyTorch (:class:`bench.hand_dqn.HandDQN` on that device), at batch 64 and 1024, and how often the dueling DQN +
PER update waits for the device (device -> host synchronisations per update). Meant for a GPU
(``scripts/gpu_check.sh`` runs it there with ``--device cuda:0``); on the CPU it runs the same code.

Run ``python -m bench.gpu_update [--device cuda:0] [--batches 64 1024] [--repeats N] [--out PATH.csv]``.

- ``update``: samples/s through one gradient step on a fixed batch (ours: ``agent.update(batch)`` of the agent built
  with ``devices=[device]``; the baseline: HandDQN's update, forward, double-Q Huber loss, backward, clipping, Adam).
- ``act``: states/s through greedy actions (ours: ``agent.get_actions(states, explore=False)``; the baseline: the
  Q-network's forward and argmax, back on the host).
- ``syncs``: with ``torch.cuda.set_sync_debug_mode("warn")``, the synchronising calls PyTorch reports per
  ``update()`` of ``dqn_dueling_per_cartpole`` from its own prioritised memory (0 wanted: the step and its priority
  update stay on the device; each metric read back as a float is one). NaN on a CPU.

Interleaved rounds, medians; ``ratio`` = ours / baseline. Writes ``bench/results/gpu_update.csv``.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import common
from bench.hand_dqn import HandDQN, Settings
from bench.multi_device import make_batch

SYNC_UPDATES = 20


def synchronize(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize(device)


def per_second(step: Callable[[], Any], items: int, calls: int, device: str) -> Callable[[], float]:
    def timed() -> float:
        synchronize(device)
        start = time.perf_counter_ns()
        for _ in range(calls):
            step()
        synchronize(device)
        return items * calls / ((time.perf_counter_ns() - start) / 1e9)

    return timed


def hand_batch(batch: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    return (batch["states"], batch["actions"].astype(np.int64), batch["rewards"],
            batch["terminals"].astype(np.float32), batch["next_states"])


def measure(device: str, rows: int, rounds: int, calls: int) -> list[dict[str, Any]]:
    from rlworkbench.agents import Agent
    from rlworkbench.execution import make_vector_env

    config = Settings().config()
    config["update"]["batch_size"] = rows
    ours = Agent.from_env("CartPole-v1", config, backend="torch", seed=0).build(devices=[device])
    env = make_vector_env("CartPole-v1", num_envs=1, seed=0)
    hand = HandDQN(env, Settings(), seed=0, device=device)
    batch = make_batch(rows)
    arrays = hand_batch(batch)
    states = batch["states"]
    contenders = {
        "update_ours": per_second(lambda: ours.update(batch), rows, calls, device),
        "update_hand": per_second(lambda: hand.update(*arrays), rows, calls, device),
        "act_ours": per_second(lambda: ours.get_actions(states, explore=False), rows, calls, device),
        "act_hand": per_second(lambda: hand.act(states), rows, calls, device),
    }
    for fn in contenders.values():  # warm-up: kernels chosen, allocator filled
        fn()
    samples = common.interleaved(contenders, rounds)
    env.close()
    return [{"benchmark": "gpu_update", "case": case, "device": device, "batch": rows,
             "ours_per_s": common.median(samples[f"{case}_ours"]), "hand_per_s": common.median(samples[f"{case}_hand"]),
             "ratio": common.median(samples[f"{case}_ours"]) / common.median(samples[f"{case}_hand"]),
             "paired_ratio": common.paired_ratio(samples[f"{case}_ours"], samples[f"{case}_hand"]),
             "repeats": rounds} for case in ("update", "act")]


def syncs_per_update(device: str) -> float:
    """Synchronising calls per ``update()`` of the dueling DQN + PER agent from its own memory (the updates run on
    any device; the count is NaN off CUDA, where nothing synchronises)."""
    import torch

    from rlworkbench.agents import Agent

    agent = Agent.from_env("CartPole-v1", "dqn_dueling_per_cartpole", backend="torch", seed=0).build(devices=[device])
    rng = np.random.default_rng(0)
    for _ in range(8):
        agent.observe(rng.normal(size=(64, 4)).astype(np.float32), rng.integers(0, 2, 64),
                      rng.normal(size=64).astype(np.float32), rng.random(64) < 0.1,
                      rng.normal(size=(64, 4)).astype(np.float32))
    agent.update()  # first call: lazy set-up outside the count
    cuda = device.startswith("cuda")
    synchronize(device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if cuda:
            torch.cuda.set_sync_debug_mode("warn")
        try:
            for _ in range(SYNC_UPDATES):
                agent.update()
        finally:
            if cuda:
                torch.cuda.set_sync_debug_mode("default")
    return sum("synchroniz" in str(w.message) for w in caught) / SYNC_UPDATES if cuda else math.nan


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "gpu_update.csv", 7, "measurement rounds")
    parser.add_argument("--device", default="cpu", help="cpu, cuda:0, ...")
    parser.add_argument("--batches", nargs="+", type=int, default=[64, 1024])
    parser.add_argument("--calls", type=int, default=50, help="calls per round and contender")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        rows = [row for rows in args.batches for row in measure(args.device, rows, args.repeats, args.calls)]
        syncs = syncs_per_update(args.device)
    frame = common.results_frame([{**row, "syncs_per_update": syncs} for row in rows])
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table(f"One device ({args.device}): rlworkbench vs hand-written PyTorch, per second (medians); "
                           f"dueling DQN + PER update: {syncs} device syncs per update", frame,
                           ["case", "batch", "ours_per_s", "hand_per_s", "ratio", "paired_ratio"], path)
    return frame


if __name__ == "__main__":
    main()
