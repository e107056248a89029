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


def pin_tf_threads(threads: int | None) -> int:
    """Sets TensorFlow's intra- and inter-op pools to ``threads`` threads (``None``/``0``: TF's default, one per
    core); returns the intra-op count in effect (0 = TF's default).

    TF fixes its pools when its runtime starts (the first op anywhere in the process) and cannot restore them,
    so unlike :func:`torch_threads` this is no context manager: once the runtime runs, a different count is
    left as it is (and the returned figure says so). Import TF with ``TF_CPP_MIN_LOG_LEVEL=2`` set first.
    """
    import tensorflow as tf

    if threads:
        with contextlib.suppress(RuntimeError):  # runtime already started: keep what it has
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
    return tf.config.threading.get_intra_op_parallelism_threads()


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


def per_call_us(calls: dict[str, tuple[Callable[..., Any], tuple]], round_s: float,
                shared: bool = False) -> tuple[dict[str, Callable[[], float]], dict[str, int]]:
    """Contenders for :func:`interleaved` from ``{name: (fn, args)}``: one measurement is the mean µs per call of
    ``fn(*args)`` over a round of back-to-back calls. Each contender's round lasts about ``round_s`` (a fast and
    a slow contender then get equal stretches of the machine), or, with ``shared``, every contender makes the
    same number of calls (the most any of them needs). Returns the contenders and their calls per round.
    """
    counts = {name: calls_for(fn, args, round_s) for name, (fn, args) in calls.items()}
    if shared:
        counts = dict.fromkeys(counts, max(counts.values()))
    contenders = {name: (lambda fn=fn, args=args, n=counts[name]: time_calls_ns(fn, args, n) / 1e3)
                  for name, (fn, args) in calls.items()}
    return contenders, counts


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
def environment(tensorflow: bool = False) -> dict[str, Any]:
    """Versions, thread counts, machine and UTC time; with ``tensorflow`` also TF's version and thread pools
    (0 = TF's default, one per core)."""
    import torch

    stamp = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "torch_threads": torch.get_num_threads(),
        "sum_tree_kernels": _sum_tree_kernels(),
    }
    if tensorflow:
        import tensorflow as tf  # the caller has imported it already (with its log level set)

        stamp |= {"tensorflow": tf.__version__,
                  "tf_intra_threads": tf.config.threading.get_intra_op_parallelism_threads(),
                  "tf_inter_threads": tf.config.threading.get_inter_op_parallelism_threads()}
    return stamp | {
        "machine": f"{platform.system()} {platform.machine()}",
        "timestamp": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


def _sum_tree_kernels() -> str:
    """Whose sum-tree kernels torch's CPU tensors get here: ``numba <version>`` or ``numpy``."""
    from rlworkbench.core.sum_tree_kernels import cpu_kernels

    if not cpu_kernels().compiled:
        return "numpy"
    import numba

    return f"numba {numba.__version__}"


def results_frame(rows: list[dict[str, Any]], tensorflow: bool = False) -> pd.DataFrame:
    """Rows plus the environment stamp (python, torch, …, timestamp) on every row, as the last columns (after
    the union of the rows' own, for a CSV holding several kinds of row)."""
    stamp = environment(tensorflow)
    frame = pd.DataFrame(rows)
    return frame.assign(**{key: [value] * len(frame) for key, value in stamp.items()})


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    return path


def print_table(title: str, frame: pd.DataFrame, columns: list[str], path: Path | None) -> None:
    stamp = frame.iloc[0] if len(frame) else {}
    print(f"\n{title}")
    tf = (f"tensorflow {stamp.get('tensorflow')}, tf threads {stamp.get('tf_intra_threads')} intra / "
          f"{stamp.get('tf_inter_threads')} inter (0 = TF's default), " if "tensorflow" in stamp else "")
    print(f"python {stamp.get('python')}, torch {stamp.get('torch')}, torch threads {stamp.get('torch_threads')}, "
          f"{tf}{stamp.get('timestamp')}")
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(frame[columns].to_string(index=False, float_format=lambda v: f"{v:,.3f}"))
    if path is not None:
        print(f"CSV: {path}")
