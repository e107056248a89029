"""Fixtures of the core tests; the test-only components live in core_components.py (importable by name)."""

from __future__ import annotations

import pytest
from core_components import STATES, Agent

from rlworkbench.spaces import FloatBox


@pytest.fixture
def agent() -> Agent:
    return Agent()


@pytest.fixture
def states_space() -> FloatBox:
    return STATES
