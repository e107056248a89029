"""Prioritised replay as it grows: the cost of one sample + priority update, and of one insert, from 4k to 1M
records (4M with ``--huge``), on both backends.

Run ``python -m bench.replay_scaling [--repeats N] [--round-s S] [--capacities 4096 65536 1048576] [--backends
torch tf] [--out PATH.csv]`` (default ``datasets/benchmarks/replay_scaling.csv``).

Each case builds a :class:`~rlworkbench.components.memories.PrioritizedReplay` of CartPole transitions (states and
next states 4 float32, an int64 action, a float32 reward, a bool terminal), fills it to capacity in large inserts
and gives every record its own random priority (so the tree is full and uneven, as after hours of Ape-X). Then
it times, in interleaved rounds:

- ``sample_update``: ``get_records(32)`` and ``update_records(indices, priorities)`` with 32 new priorities — a
  learner's replay work per update (the smallest stored priority is found on every sample for the importance
  weights);
- ``insert``: ``insert_records`` of 4 transitions — one vector step of ``observe`` with 4 envs.

For comparison, ``cleanrl_flat`` rows time the same sample + update (32 records) on the CleanRL-style reference's
buffer of ``bench.train_overhead`` (``bench/cleanrl_dqn.py``: priorities in one flat array, a cumulative sum and a
``searchsorted`` per batch, the minimum read from the array) holding as many records: O(N) where the tree is flat,
so the rows show at what size the tree pays off.

The figure is µs per call, median over rounds; ``vs_smallest`` = this capacity's median / the smallest capacity's
(same backend, same run). Goal (issue 31): ``sample_update`` flat within **1.5x** from 4k to 1M. ``bytes_per_record``
is the memory's variables' bytes over its capacity (the trees included).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "benchmarks" / "replay_scaling.csv"
CAPACITIES = (4096, 65536, 1 << 20)
HUGE = 1 << 22
BATCH, STEP_ENVS, FILL_CHUNK = 32, 4, 65536
GOAL = 1.5
FLAT = "cleanrl_flat"  #: the backend column of the CleanRL-style reference's rows (NumPy, no tree)


def records_space() -> Any:
    from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox

    return Dict(states=FloatBox(shape=(4,)), actions=IntBox(2), rewards=FloatBox(), terminals=BoolBox(),
                next_states=FloatBox(shape=(4,)), add_batch_rank=True)


def transitions(count: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"states": rng.standard_normal((count, 4), dtype=np.float32),
            "actions": rng.integers(0, 2, count),
            "rewards": np.ones(count, np.float32),
            "terminals": rng.random(count) < 0.02,
            "next_states": rng.standard_normal((count, 4), dtype=np.float32)}


def filled_memory(capacity: int, backend: str, seed: int = 0) -> Any:
    """A built PER executor holding ``capacity`` records, each with its own random priority."""
    import rlworkbench
    from rlworkbench.components.memories import PrioritizedReplay
    from rlworkbench.spaces import FloatBox, IntBox

    spaces = {"records": records_space(), "num_records": IntBox(), "indices": IntBox(capacity, add_batch_rank=True),
              "priorities": FloatBox(add_batch_rank=True)}
    executor = rlworkbench.build(PrioritizedReplay(capacity, name="memory"), spaces, backend=backend, seed=seed)
    rng = np.random.default_rng(seed)
    for start in range(0, capacity, FILL_CHUNK):
        count = min(FILL_CHUNK, capacity - start)
        executor.execute("insert_records", transitions(count, rng))
        executor.execute("update_records", np.arange(start, start + count),
                         rng.uniform(0.01, 10.0, count).astype(np.float32))
    return executor


def workloads(executor: Any, seed: int = 1) -> dict[str, Any]:
    """The two timed calls on ``executor``: a learner's sample + update, and one vector step's insert."""
    rng = np.random.default_rng(seed)
    priorities = rng.uniform(0.01, 10.0, BATCH).astype(np.float32)
    step = transitions(STEP_ENVS, rng)

    def sample_update() -> None:
        _, indices, _ = executor.execute("get_records", BATCH)
        executor.execute("update_records", indices, priorities)

    def insert() -> None:
        executor.execute("insert_records", step)

    return {"sample_update": sample_update, "insert": insert}


def flat_reference(capacity: int, seed: int = 0) -> Any:
    """The CleanRL-style reference's prioritized buffer (``bench.cleanrl_dqn.ReplayBuffer``: priorities in one flat
    array, a cumulative sum and ``searchsorted`` per batch) holding ``capacity`` records with random priorities."""
    from bench.cleanrl_dqn import ReplayBuffer

    rng = np.random.default_rng(seed)
    buffer = ReplayBuffer(capacity, (4,), prioritized=True, alpha=0.6)
    buffer.full = True
    buffer.priorities[:] = rng.uniform(0.01, 10.0, capacity) ** 0.6
    priorities = rng.uniform(0.01, 10.0, BATCH).astype(np.float32)

    def sample_update() -> None:
        indices, _ = buffer.sample(BATCH, rng, 0.4)
        buffer.update_priorities(indices, priorities)

    return sample_update


def memory_bytes(executor: Any) -> int:
    return sum(value.nbytes for value in executor.get_weights().values())


def measure(capacities: Sequence[int], backends: Sequence[str], repeats: int, round_s: float) -> list[dict]:
    rows: list[dict[str, Any]] = []
    for backend in backends:
        for capacity in capacities:
            executor = filled_memory(capacity, backend)
            calls = {name: (fn, ()) for name, fn in workloads(executor).items()}
            contenders, counts = common.per_call_us(calls, round_s)
            samples = common.interleaved(contenders, repeats)
            for name, values in samples.items():
                rows.append({"benchmark": "replay_scaling", "backend": backend, "work": name, "capacity": capacity,
                             "us_per_call": common.median(values), "calls_per_round": counts[name],
                             "rounds": repeats, "bytes_per_record": memory_bytes(executor) / capacity})
            del executor
    for capacity in capacities:  # the flat array's O(N) sample + update at the same sizes: where the tree pays off
        contenders, counts = common.per_call_us({"sample_update": (flat_reference(capacity), ())}, round_s)
        samples = common.interleaved(contenders, repeats)
        rows.append({"benchmark": "replay_scaling", "backend": FLAT, "work": "sample_update", "capacity": capacity,
                     "us_per_call": common.median(samples["sample_update"]),
                     "calls_per_round": counts["sample_update"], "rounds": repeats,
                     "bytes_per_record": 8.0})  # the priorities only (the records as in ours)
    for row in rows:
        smallest = min((other for other in rows if other["backend"] == row["backend"]
                        and other["work"] == row["work"]), key=lambda other: other["capacity"])
        row["vs_smallest"] = row["us_per_call"] / smallest["us_per_call"]
        row["goal"] = GOAL if row["work"] == "sample_update" and row["backend"] != FLAT else float("nan")
    return rows


def main(argv: Sequence[str] | None = None) -> Path:
    parser = common.arg_parser(__doc__.splitlines()[0], "replay_scaling.csv", 7, "interleaved rounds per case")
    parser.set_defaults(out=DATASET)
    parser.add_argument("--round-s", type=float, default=0.5, help="seconds of calls per contender and round")
    parser.add_argument("--capacities", type=int, nargs="+", default=list(CAPACITIES))
    parser.add_argument("--huge", action="store_true", help=f"also {HUGE:,} records (about 0.5 GB per backend)")
    parser.add_argument("--backends", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    args = parser.parse_args(argv)
    capacities = sorted(set(args.capacities) | ({HUGE} if args.huge else set()))
    if "tf" in args.backends:
        import os

        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        common.pin_tf_threads(args.threads)
    with common.torch_threads(args.threads):
        rows = measure(capacities, args.backends, args.repeats, args.round_s)
        frame = common.results_frame(rows, tensorflow="tf" in args.backends)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("Prioritised replay: µs per call as the memory grows", frame,
                           ["backend", "work", "capacity", "us_per_call", "vs_smallest", "bytes_per_record"], path)
    return path


if __name__ == "__main__":
    main()
