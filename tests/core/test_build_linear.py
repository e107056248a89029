"""The build's work grows linearly with the number of components: counted, not timed.

Work is the number of Python lines the build executes inside the ``rlworkbench`` package (a ``sys.settrace`` line
counter, deterministic for a given graph), for ``NeuralNetwork`` stacks of 50 and of 500 Dense layers. Ten times
the components must cost about ten times the lines; a propagation that re-scans every pending component each
round, or a graph lookup that scans the whole call list, makes it about a hundred times.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import rlworkbench
from rlworkbench import build
from rlworkbench.components import NeuralNetwork
from rlworkbench.spaces import FloatBox

PACKAGE = str(Path(rlworkbench.__file__).parent)
SMALL, LARGE = 50, 500


def lines_run_by_build(layers: int) -> collections.Counter[str]:
    """How many lines of each ``rlworkbench`` module building a stack of ``layers`` Dense layers runs."""
    network = NeuralNetwork([{"type": "dense", "units": 8} for _ in range(layers)], name="network")
    counts: collections.Counter[str] = collections.Counter()

    def count_lines(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            counts[frame.f_code.co_filename] += 1
        return count_lines

    def enter(frame: FrameType, event: str, arg: Any) -> Any:  # only frames of the package are followed
        return count_lines if frame.f_code.co_filename.startswith(PACKAGE) else None

    previous = sys.gettrace()
    sys.settrace(enter)
    try:
        build(network, {"inputs": FloatBox(shape=(4,), add_batch_rank=True)}, backend="torch", seed=0)
    finally:
        sys.settrace(previous)
    return counts


def test_build_work_grows_linearly_with_the_number_of_components():
    pytest.importorskip("torch")
    lines_run_by_build(5)  # one-off work (lazy imports, first-use caches) out of the way
    small, large = lines_run_by_build(SMALL), lines_run_by_build(LARGE)
    total_small, total_large = sum(small.values()), sum(large.values())
    assert total_small > 50 * SMALL, "the line counter saw next to nothing of the build"
    ratio = total_large / total_small
    growth = sorted(((large[f] / max(small[f], 1), f[len(PACKAGE) + 1:], small[f], large[f]) for f in large),
                    reverse=True)[:5]
    assert 5.0 <= ratio <= 12.0, (f"{LARGE // SMALL}x the layers took {ratio:.1f}x the lines "
                                  f"({total_small:,} -> {total_large:,}); fastest-growing modules: {growth}")
