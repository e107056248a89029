"""Fixtures for the TensorFlow-backend suite: the demo's QActor built on TF, and a few test-only components."""

from __future__ import annotations

from typing import Any

import pytest

from rlworkbench import build
from rlworkbench.demo import QActor
from rlworkbench.spaces import FloatBox

STATES = FloatBox(shape=(4,), add_batch_rank=True)


@pytest.fixture
def states_space() -> FloatBox:
    return STATES


@pytest.fixture
def tf_actor() -> Any:
    """Executor of ``QActor(2, hidden=(8, 8), name="actor")`` built on TF from batched 4-float states."""
    return build(QActor(2, hidden=(8, 8), name="actor"), {"states": STATES}, backend="tf", seed=0)
