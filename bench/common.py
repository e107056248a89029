"""Shared helpers of the benchmarks: timing, environment stamp, result table, CSV.

Timing follows ``timeit``'s habits: the garbage collector is off inside a timed region and runs between
regions, so one contender's garbage is not billed to another. Contenders are always measured in interleaved
rounds (A, B, then B, A, …), so drift of a noisy machine hits all alike; figures are medians over rounds, and
ratios compare medians taken in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import gc
import platform
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

RESULTS_DIR = Path(__file__).resolve().parent / "results"
perf_counter_ns = time.perf_counter_ns


# ----- command line -------------------------------------------------------------------------------------------
def arg_parser(description: str, default_out: str, default_repeats: int,
               repeats_help: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeats", type=int, default=default_repeats, help=repeats_help)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / default_out, help="CSV file to write")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch intra-op threads (default 1: on a small shared machine, thread "
                             "oversubscription makes per-call times swing 10-100x; 0 keeps torch's own choice)")
    parser.add_argument("--quiet", action="store_true", help="print nothing (the CSV is still written)")
    return parser


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Pins torch's intra-op thread count while the block runs (``None``/``0``: torch's default), then
    restores it (so a benchmark run inside another process, e.g. the smoke test, leaves no trace)."""
    import torch

    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# ----- timing -------------------------------------------------------------------------------------------------
def time_once_ns(fn: Callable[[], Any]) -> int:
    """Wall time of one call of ``fn`` in ns, with the garbage collector off while it runs."""
    gc.disable()
    try:
        start = perf_counter_ns()
        fn()
        return perf_counter_ns() - start
    finally:
        gc.enable()


def time_calls_ns(fn: Callable[..., Any], args: tuple, calls: int) -> float:
    """Mean wall time in ns of ``calls`` back-to-back calls ``fn(*args)`` (GC off while they run)."""
    loop = range(calls)
    gc.disable()
    try:
        start = perf_counter_ns()
        for _ in loop:
            fn(*args)
        return (perf_counter_ns() - start) / calls
    finally:
        gc.enable()


def calls_for(fn: Callable[..., Any], args: tuple, round_s: float, min_calls: int = 1) -> int:
    """How many calls of ``fn(*args)`` take about ``round_s`` seconds (after a short warm-up)."""
    time_calls_ns(fn, args, max(min_calls, 3))
    calls = min_calls
    while True:
        per_call = time_calls_ns(fn, args, calls)
        if per_call * calls >= round_s * 1e9 / 4 or calls >= 1_000_000:
            return max(min_calls, int(round_s * 1e9 / max(per_call, 1.0)))
        calls *= 4


def settle() -> None:
    """Collects garbage once and freezes what survives (torch's import-time objects, …) out of the GC's sight,
    so that the ``gc.collect()`` before each measurement costs microseconds instead of ~100 ms.
    ``gc.unfreeze()`` undoes it."""
    gc.collect()
    gc.freeze()


def interleaved(contenders: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Runs each contender's measurement once per round, the order flipping every round (A,B / B,A / …).

    A contender is a zero-argument function returning one measurement (e.g. ns per call); the result is every
    contender's list of measurements, one per round. ``gc.collect()`` runs before each measurement, cheap
    because :func:`settle` freezes the heap first (and it is unfrozen again at the end).
    """
    settle()
    names = list(contenders)
    samples: dict[str, list[float]] = {name: [] for name in names}
    try:
        for index in range(rounds):
            for name in names if index % 2 == 0 else reversed(names):
                gc.collect()
                samples[name].append(contenders[name]())
    finally:
        gc.unfreeze()
    return samples


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def paired_ratio(ours: Sequence[float], baseline: Sequence[float]) -> float:
    """Median of per-round ratios ours/baseline (rounds are adjacent in time, so drift cancels in each)."""
    return median([a / b for a, b in zip(ours, baseline)])


# ----- results ------------------------------------------------------------------------------------------------
def environment() -> dict[str, Any]:
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "torch_threads": torch.get_num_threads(),
        "machine": f"{platform.system()} {platform.machine()}",
        "timestamp": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


def results_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows plus the environment stamp (python, torch, …, timestamp) on every row."""
    stamp = environment()
    return pd.DataFrame([{**row, **stamp} for row in rows])


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    return path


def print_table(title: str, frame: pd.DataFrame, columns: list[str], path: Path) -> None:
    stamp = frame.iloc[0] if len(frame) else {}
    print(f"\n{title}")
    print(f"python {stamp.get('python')}, torch {stamp.get('torch')}, torch threads {stamp.get('torch_threads')}, "
          f"{stamp.get('timestamp')}")
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(frame[columns].to_string(index=False, float_format=lambda v: f"{v:,.3f}"))
    print(f"CSV: {path}")
