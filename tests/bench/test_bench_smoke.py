"""Smoke test of the benchmarks: both mains run end to end (tiny repeats) and write the CSV they promise.

Figures are not checked here (a test machine's timings mean nothing); only that the scripts still run against
the current API and keep their output format.
"""

import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("torch")

# `bench` is a top-level package of the repository, not of the installed distribution: make sure the repository
# root is importable (plain `pytest` puts only tests/ on the path, where tests/bench/ would pass for it).
ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench import act_overhead, build_overhead  # noqa: E402 (after the path fix above)

COMMON = {"benchmark", "case", "batch", "ratio", "paired_ratio", "repeats", "target", "meets_target", "python",
          "torch", "numpy", "torch_threads", "machine", "timestamp"}


def test_build_overhead_writes_its_csv(tmp_path):
    out = tmp_path / "build.csv"
    returned = build_overhead.main(["--repeats", "2", "--out", str(out), "--quiet"])
    frame = pd.read_csv(out)
    assert len(frame) == len(returned) == 2
    assert COMMON | {"ours_median_ms", "baseline_median_ms", "overhead_ms", "components"} <= set(frame.columns)
    assert list(frame["case"]) == ["one_dense", "stack"]
    assert list(frame["components"]) == [1, 11]
    assert (frame["benchmark"] == "build_overhead").all()
    assert (frame["ours_median_ms"] > 0).all() and (frame["baseline_median_ms"] > 0).all()
    assert frame.loc[0, "target"] == "overhead <= 5 ms" and frame.loc[0, "meets_target"] in (True, False)


def test_act_overhead_writes_its_csv(tmp_path):
    out = tmp_path / "act.csv"
    returned = act_overhead.main(["--repeats", "2", "--round-ms", "0.05", "--out", str(out), "--quiet"])
    frame = pd.read_csv(out)
    assert len(frame) == len(returned) == 4
    assert COMMON | {"ours_median_us", "baseline_median_us", "overhead_us", "floor_median_us",
                     "ratio_vs_floor", "calls_per_round"} <= set(frame.columns)
    assert sorted(zip(frame["case"], frame["batch"])) == sorted(
        (case, batch) for case in act_overhead.NETWORKS for batch in act_overhead.BATCHES)
    assert (frame["benchmark"] == "act_overhead").all()
    assert set(frame["target"]) == {"ratio <= 1.10", "ratio <= 1.02"}
    assert (frame["ratio"] > 0).all()
