"""`make test` runs the suite in two parts (tests/suite_parts.py): the `solo` tests — Ray, servers, browsers, by
folder or by fixture — one by one, the rest on both cores. These tests check that a test file starting Ray itself is
in the solo part, that Ray's fixtures mark a test solo, and, in a `-m "not solo"` run, that no solo test slipped in
(the marker must be added before `-m` selects)."""

from __future__ import annotations

import re

import pytest
from suite_parts import SOLO_FIXTURES, TESTS, in_solo_folder, is_solo

STARTS_RAY = re.compile(r"\bensure_ray\(|\bray\.init\(|\bLocalHead\(|\btune\.Tuner\(|\bto=[\"']ray[\"']")


def test_a_test_file_that_starts_ray_is_in_the_solo_part() -> None:
    shared = [path for path in sorted(TESTS.rglob("test_*.py")) if not in_solo_folder(path)]
    starting = [str(path.relative_to(TESTS)) for path in shared
                if STARTS_RAY.search(text := path.read_text()) and "pytestmark = pytest.mark.solo" not in text]
    assert not starting, f"these test files start Ray but run in the shared part: {starting}"
    assert in_solo_folder(TESTS / "execution" / "ray" / "test_apex.py") and not in_solo_folder(TESTS / "x.py")
    assert not in_solo_folder(TESTS.parent / "rlworkbench" / "workbench" / "probe.py")  # outside tests/


def test_rays_fixtures_mark_a_test_solo_and_the_shared_part_holds_none(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    assert all("solo" in item.keywords for item in items if SOLO_FIXTURES & set(item.fixturenames))
    assert not is_solo(request.node)  # tests/ itself, no Ray fixture
    if request.config.getoption("markexpr") == "not solo":  # the first part of `make test`
        assert not [item.nodeid for item in items if "solo" in item.keywords]
