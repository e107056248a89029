"""Comparing nested outputs (dicts, tuples, arrays, scalars) with messages that name the key path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def assert_nested_close(actual: Any, expected: Any, decimals: int = 5, key_path: str = "") -> None:
    """Asserts equal structure and values; floats to ``decimals`` places, everything else exactly."""
    where = f" at '{key_path}'" if key_path else ""
    if isinstance(expected, Mapping):
        assert isinstance(actual, Mapping), f"expected a dict{where}, got {type(actual).__name__}"
        assert set(actual) == set(expected), f"keys differ{where}: {sorted(actual)} vs {sorted(expected)}"
        for key in expected:
            assert_nested_close(actual[key], expected[key], decimals, f"{key_path}/{key}".lstrip("/"))
        return
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), f"expected a sequence{where}, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"lengths differ{where}: {len(actual)} vs {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            assert_nested_close(a, e, decimals, f"{key_path}/{index}".lstrip("/"))
        return
    if expected is None:
        assert actual is None, f"expected None{where}, got {actual!r}"
        return
    actual_array, expected_array = np.asarray(actual), np.asarray(expected)
    assert actual_array.shape == expected_array.shape, \
        f"shapes differ{where}: {actual_array.shape} vs {expected_array.shape}"
    if expected_array.dtype.kind in "fc" or actual_array.dtype.kind in "fc":
        np.testing.assert_array_almost_equal(actual_array, expected_array, decimal=decimals,
                                             err_msg=f"values differ{where}")
    else:
        np.testing.assert_array_equal(actual_array, expected_array, err_msg=f"values differ{where}")
