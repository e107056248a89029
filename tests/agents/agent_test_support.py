"""What the DQN, PPO and SAC agent tests share: config sections over a base config, exact weight comparison, the
check of a config error's JSON path and allowed values, and counting a network's forward passes."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np


def with_sections(config: dict[str, Any], sections: dict[str, Any]) -> dict[str, Any]:
    """``config`` with ``sections`` merged in: a dict section of the same component ``type`` (or none) updates the
    base section; a non-dict value, or a section of another type, replaces it. Returns ``config``."""
    for key, value in sections.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict) and value.get("type") in (
                None, config[key].get("type")):
            config[key].update(value)
        else:
            config[key] = value
    return config


def assert_same_weights(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for name, value in a.items():
        np.testing.assert_array_equal(value, b[name], err_msg=name)


def assert_config_error(error: Any, path: str, expected: Any) -> None:
    """``error`` names JSON ``path``; ``expected`` is the exact list of allowed values, a text in what was
    expected, or None (not checked)."""
    assert error.key_path == path, str(error)
    if isinstance(expected, list):
        assert error.expected == expected
    elif expected is not None:
        assert expected in str(error.expected), str(error)


def count_applies(networks: dict[str, Any]) -> dict[str, int]:
    """Counts calls of each named component's ``apply`` API method (on torch, where every call runs its Python):
    returns the counters, which the wrapped built calls increment. For tests of how often an update runs a
    network."""
    counts = dict.fromkeys(networks, 0)
    for name, network in networks.items():
        apply = inspect.getattr_static(network, "apply")  # the API method's descriptor: the key of its built call
        built = network._built_calls[apply]

        def counted(*args: Any, _built: Any = built, _name: str = name, **kwargs: Any) -> Any:
            counts[_name] += 1
            return _built(*args, **kwargs)

        network._built_calls[apply] = counted
    return counts
