"""Shared by the memory tests: builds reused within a module (TF builds and traces cost 50-300 ms each)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from rlworkbench import Component
from rlworkbench.testing import ComponentTest


@pytest.fixture(scope="module")
def fresh() -> Callable[..., ComponentTest]:
    """``fresh(backend, key, make, input_spaces)``: ``make()`` built once per module, backend and ``key``; every
    call hands it back with all variables at their initial values (an empty memory)."""
    cache: dict[tuple[str, str], tuple[ComponentTest, dict[str, Any]]] = {}

    def get(backend: str, key: str, make: Callable[[], Component], input_spaces: Mapping[str, Any],
            **options: Any) -> ComponentTest:
        if (backend, key) not in cache:
            test = ComponentTest(make(), input_spaces, backend=backend, **options)
            cache[(backend, key)] = (test, test.variable_values())
        test, initial = cache[(backend, key)]
        test.set_variable_values(initial)
        return test

    return get
