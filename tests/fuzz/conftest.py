"""The fuzz suite's tally: every case counts into its category, and the run ends with a table of the number of
cases tried per category — all of which ended in a typed error naming a place, or a valid, finite result."""

from __future__ import annotations

from collections import Counter

import pytest

CASES: Counter[str] = Counter()


@pytest.fixture
def tally():
    return CASES


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if CASES:
        terminalreporter.section("fuzz cases (typed error or valid result, nothing else)")
        for category, count in sorted(CASES.items()):
            terminalreporter.write_line(f"{category:<28}{count:>6}")
        terminalreporter.write_line(f"{'total':<28}{sum(CASES.values()):>6}")
