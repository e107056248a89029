"""Fixtures of the install tests: one wheel per session, built from the working tree like a user's pip would."""

from __future__ import annotations

import pytest
from wheel_venvs import build_wheel


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory):
    return build_wheel(tmp_path_factory.mktemp("wheel"))
