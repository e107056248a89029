"""Shared by the loss and RL-helper tests: components built once per module, backend and configuration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(scope="module")
def built() -> Callable[[Any, Callable[[], Any]], Any]:
    """``built(key, make)`` returns ``make()`` (e.g. a ``ComponentTest``), made once per module and ``key``
    (put the backend in the key)."""
    cache: dict[Any, Any] = {}

    def get(key: Any, make: Callable[[], Any]) -> Any:
        if key not in cache:
            cache[key] = make()
        return cache[key]

    return get
