"""The fuzz suite's tally (a pytest plugin of the suite): every case counts into its category through the ``tally``
fixture, and the run ends with a table of the number of cases tried per category — all of which ended in a typed
error naming a place, or a valid, finite result. Under pytest-xdist each worker hands its tally to the controller,
which prints the sum."""

from __future__ import annotations

from collections import Counter

import pytest

CASES: Counter[str] = Counter()


@pytest.fixture
def tally() -> Counter[str]:
    return CASES


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: the controller prints the table
        output["fuzz_cases"] = dict(CASES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # xdist's hook: optional, as xdist may be absent
    CASES.update(getattr(node, "workeroutput", {}).get("fuzz_cases", {}))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if CASES and not hasattr(config, "workeroutput"):
        terminalreporter.section("fuzz cases (typed error or valid result, nothing else)")
        for category, count in sorted(CASES.items()):
            terminalreporter.write_line(f"{category:<28}{count:>6}")
        terminalreporter.write_line(f"{'total':<28}{sum(CASES.values()):>6}")
