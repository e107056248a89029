"""`make test` runs the suite in two parts (tests/conftest.py): the `solo` tests — Ray, servers, browsers, by folder or
by fixture — one by one, the rest on both cores. A test here checks the marking and, in a `-m "not solo"` run, that
no solo test slipped into it (the marker must be added before `-m` selects)."""

from __future__ import annotations

import pytest
from suite_parts import SOLO_FIXTURES, is_solo


def test_every_test_that_needs_the_machine_is_marked_solo(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    unmarked = [item.nodeid for item in items if is_solo(item) and "solo" not in item.keywords]
    assert not unmarked, unmarked[:10]
    ray_users = [item for item in items if SOLO_FIXTURES & set(item.fixturenames)]
    assert all("solo" in item.keywords for item in ray_users)
    if request.config.getoption("markexpr") == "not solo":  # the first part of `make test`
        assert not [item.nodeid for item in items if "solo" in item.keywords]


def test_solo_folders_and_fixtures_decide(request: pytest.FixtureRequest) -> None:
    here = request.node
    assert not is_solo(here)  # tests/ itself, no Ray fixture
    assert "ray_session" in SOLO_FIXTURES and "ray_head" in SOLO_FIXTURES
