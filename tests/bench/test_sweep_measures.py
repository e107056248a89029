"""The sweep benchmark's per-trial measures, on hand-made records: a trial's overhead is what its first result took
beyond training at its steady rate, and a PBT trial's paused waits between reports do not count as training."""

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench.sweep import _trial_rows  # noqa: E402 (after the path fix)


def records(trial: str, start: float, results: list[tuple[float, int]]) -> list[dict]:
    return [{"kind": "trial", "trial": trial, "time": start},
            *({"kind": "result", "trial": trial, "time": time, "timesteps": steps} for time, steps in results)]


def test_overhead_is_first_result_time_beyond_training() -> None:
    # 3 s to start, then 1,000 steps a second: the first report (5,000 steps) at 8 s
    (row,) = _trial_rows("random", records("a", 0.0, [(8.0, 5000), (13.0, 10000), (18.0, 15000)]))
    assert row["steady_steps_per_s"] == pytest.approx(1000)
    assert row["trial_overhead_s"] == pytest.approx(3.0)
    assert row["first_result_s"] == pytest.approx(8.0) and row["reports"] == 3


def test_paused_waits_do_not_count_as_training() -> None:
    # a PBT trial: same speed, but paused 40 s between its second and third report
    (row,) = _trial_rows("pbt", records("b", 0.0, [(8.0, 5000), (13.0, 10000), (58.0, 15000), (63.0, 20000)]))
    assert row["steady_steps_per_s"] == pytest.approx(1000)
    assert row["trial_overhead_s"] == pytest.approx(3.0)


def test_a_single_result_has_no_rate() -> None:
    (row,) = _trial_rows("asha", records("c", 0.0, [(8.0, 5000)]))
    assert row["steady_steps_per_s"] != row["steady_steps_per_s"]  # NaN: no interval to measure
