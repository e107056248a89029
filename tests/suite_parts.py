"""The two parts of `make test`: the `solo` tests, which need the machine to themselves — Ray sessions and clusters,
Jupyter servers, browsers, runs followed from other processes — run one by one after the rest, which run on both
cores (pytest-xdist). tests/conftest.py marks them."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SOLO_FOLDERS = ("browser", "demo", "execution/ray", "experiments", "lab", "workbench")
SOLO_FIXTURES = {"ray_session", "ray_head"}


def in_solo_folder(path: Path | str) -> bool:
    """Whether ``path`` lies under one of :data:`SOLO_FOLDERS` (False outside tests/: doctests, other folders)."""
    path = Path(path).resolve()
    if not path.is_relative_to(TESTS):
        return False
    folder = path.parent.relative_to(TESTS).as_posix()
    return any(folder == solo or folder.startswith(f"{solo}/") for solo in SOLO_FOLDERS)


def is_solo(item: pytest.Item) -> bool:
    """Whether ``item`` sits under a solo folder or asks for a Ray fixture (a test that starts Ray or a server
    some other way says ``@pytest.mark.solo`` itself)."""
    return in_solo_folder(item.path) or bool(SOLO_FIXTURES & set(getattr(item, "fixturenames", ())))
