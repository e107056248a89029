"""The type gate: mypy over ``rlworkbench/`` may not add errors to any file (``types_baseline.json``), and the share
of annotations that say ``Any`` may not rise above its ceiling (``any_share_ceiling.json``).

mypy runs once per test session (a module fixture) with its incremental cache in ``.mypy_cache``: about a minute
of CPU cold, seconds warm. The baseline is a ratchet: a file with fewer errors than recorded fails too, asking for
``scripts/type_baseline.py --write`` so the gain is kept.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import any_share  # noqa: E402
import type_baseline  # noqa: E402

needs_mypy = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (it comes with the dev extra)")


@pytest.fixture(scope="module")
def errors_now() -> dict[str, int]:
    return type_baseline.errors_per_file(type_baseline.run_mypy())


@needs_mypy
def test_no_file_has_more_type_errors_than_its_baseline(errors_now: dict[str, int]) -> None:
    grown, _ = type_baseline.compare(type_baseline.read_baseline(), errors_now)
    assert not grown, (
        "mypy finds more errors than types_baseline.json allows (file: baseline -> now): "
        + ", ".join(f"{path}: {before} -> {now}" for path, (before, now) in grown.items())
        + ". Run `.venv/bin/python -m mypy` to see them and fix them; the baseline only shrinks.")


@needs_mypy
def test_the_baseline_is_as_tight_as_the_tree(errors_now: dict[str, int]) -> None:
    _, shrunk = type_baseline.compare(type_baseline.read_baseline(), errors_now)
    assert not shrunk, (
        "fewer mypy errors than types_baseline.json records — keep the gain: run "
        f"`{type_baseline.WRITE_COMMAND}` and commit types_baseline.json ("
        + ", ".join(f"{path}: {before} -> {now}" for path, (before, now) in shrunk.items()) + ")")


def test_compare_counts_new_files_from_zero_and_reports_both_directions() -> None:
    grown, shrunk = type_baseline.compare({"a.py": 2, "b.py": 1, "gone.py": 3}, {"a.py": 3, "b.py": 1, "new.py": 1})
    assert grown == {"a.py": (2, 3), "new.py": (0, 1)}
    assert shrunk == {"gone.py": (3, 0)}


@needs_mypy
def test_mypy_reports_a_type_error_per_file(tmp_path: Path) -> None:
    """The runner sees errors at all (a broken setting that checks nothing would make the gate pass forever)."""
    (tmp_path / "bad.py").write_text("def f(x: int) -> str:\n    return x\n\nf('no')\n")
    (tmp_path / "good.py").write_text("def g(x: int) -> int:\n    return x\n")
    found = type_baseline.errors_per_file(type_baseline.run_mypy(("bad.py", "good.py"), cwd=tmp_path))
    assert found == {"bad.py": 2}


def test_the_share_of_any_annotations_stays_under_its_ceiling() -> None:
    ceilings = json.loads(any_share.CEILING.read_text())
    tallies = any_share.measure()
    assert tallies["all"].share <= ceilings["ceiling"], (
        f"{tallies['all'].share:.1%} of annotations mention Any (ceiling {ceilings['ceiling']:.1%}): "
        "`python scripts/any_share.py --files 20` lists where; give them real types")
    over = {name: f"{tallies[name].share:.1%} > {ceiling:.1%}" for name, ceiling in ceilings["packages"].items()
            if name in tallies and tallies[name].share > ceiling}
    assert not over, f"packages above their Any ceiling: {over}"


def test_any_share_follows_aliases_and_imports_but_not_literals(tmp_path: Path) -> None:
    package = tmp_path / "rlworkbench"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core" / "__init__.py").write_text("from rlworkbench.core.types import Loose as Loose\n")
    (package / "core" / "types.py").write_text(
        "from typing import Any, Literal, TypeAlias\n"
        "Loose = dict[str, Any]\n"
        "Tight: TypeAlias = dict[str, int]\n"
        "Kind = Literal['Loose']\n")
    (package / "user.py").write_text(
        "from rlworkbench import core\n"
        "from rlworkbench.core.types import Kind, Tight\n"
        "from .core import Loose\n"
        "def f(a: Loose, b: Tight, c: Kind, d: 'core.Loose', *args: int, **kwargs: object) -> None: ...\n"
        "x: list[Loose] = []\n")
    tallies = any_share.measure(package, root=tmp_path)
    assert (tallies["all"].annotations, tallies["all"].any) == (8, 3)  # a, d, x
    assert +tallies["all"].by_file == {"rlworkbench/user.py": 3}
