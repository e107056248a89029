"""Writes ``constraints.txt``: the exact versions of everything ``rlworkbench[all,dev]`` needs, read from the
environment this runs in (the bootstrap's ``.venv``), so that ``make test`` installs the set tested here.

Run after changing dependencies: ``.venv/bin/python scripts/write_lock.py``. Only the dependency closure of the
project's extras is written (not whatever else the venv holds); ``tests/test_packaging.py`` checks that the lock
satisfies ``pyproject.toml`` and that ``environment.yml`` agrees with both.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "rlworkbench"
EXTRAS = ("all", "dev")
HEADER = """\
# The exact versions `make test` installs (pip install -c constraints.txt): the closure of rlworkbench[all,dev] as
# tested on this project's machines. Written by scripts/write_lock.py; pyproject.toml holds the ranges a user's
# environment may satisfy. torch is the CPU build here (pip takes it from the local index when asked for ==).
"""


def closure(project: str, extras: tuple[str, ...]) -> dict[str, str]:
    """Installed distributions (normalised name -> version) that ``project[extras]`` needs, transitively."""
    found: dict[str, str] = {}
    pending: list[tuple[str, frozenset[str]]] = [(project, frozenset(extras))]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        name, wanted = pending.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        dist = metadata.distribution(name)
        if canonicalize_name(name) != PROJECT:
            found[canonicalize_name(name)] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            environments = [{"extra": extra} for extra in wanted] or [{"extra": ""}]
            if requirement.marker and not any(requirement.marker.evaluate(env) for env in environments):
                continue
            pending.append((requirement.name, frozenset(requirement.extras)))
    return found


def main() -> None:
    versions = closure(PROJECT, EXTRAS)
    lines = [f"{name}=={re.sub(r'[+].*$', '', version)}" for name, version in sorted(versions.items())]
    (ROOT / "constraints.txt").write_text(HEADER + "\n".join(lines) + "\n")
    print(f"constraints.txt: {len(lines)} packages (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
