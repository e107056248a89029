"""Comparing nested outputs (dicts, tuples, arrays, scalars) with messages that name the key path."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np


def nested_leaves(actual: object, expected: object, key_path: str = "", strict: bool = False,
                  ) -> Iterator[tuple[str, object, object]]:
    """Asserts that ``actual`` has ``expected``'s structure (``strict``: also its key order and container types)
    and yields ``(where, actual_leaf, expected_leaf)`` for each non-None leaf, ``where`` naming the key path."""
    where = f" at '{key_path}'" if key_path else ""
    if isinstance(expected, Mapping):
        assert isinstance(actual, Mapping), f"expected a dict{where}, got {type(actual).__name__}"
        if strict:
            assert list(actual) == list(expected), f"keys differ{where}: {list(actual)} vs {list(expected)}"
        else:
            assert set(actual) == set(expected), f"keys differ{where}: {sorted(actual)} vs {sorted(expected)}"
        for key in expected:
            yield from nested_leaves(actual[key], expected[key], f"{key_path}/{key}".lstrip("/"), strict)
        return
    if isinstance(expected, (tuple, list)):
        if strict:
            assert type(actual) is type(expected), \
                f"container types differ{where}: {type(actual)} vs {type(expected)}"
        else:
            assert isinstance(actual, (tuple, list)), f"expected a sequence{where}, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"lengths differ{where}: {len(actual)} vs {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            yield from nested_leaves(a, e, f"{key_path}/{index}".lstrip("/"), strict)
        return
    if expected is None:
        assert actual is None, f"expected None{where}, got {actual!r}"
        return
    yield where, actual, expected


def assert_nested_close(actual: object, expected: object, decimals: int = 5, key_path: str = "") -> None:
    """Asserts equal structure and values; floats to ``decimals`` places, everything else exactly."""
    for where, actual_leaf, expected_leaf in nested_leaves(actual, expected, key_path):
        actual_array, expected_array = np.asarray(actual_leaf), np.asarray(expected_leaf)
        assert actual_array.shape == expected_array.shape, \
            f"shapes differ{where}: {actual_array.shape} vs {expected_array.shape}"
        if expected_array.dtype.kind in "fc" or actual_array.dtype.kind in "fc":
            np.testing.assert_array_almost_equal(actual_array, expected_array, decimal=decimals,
                                                 err_msg=f"values differ{where}")
        else:
            np.testing.assert_array_equal(actual_array, expected_array, err_msg=f"values differ{where}")
