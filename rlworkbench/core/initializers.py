"""Variable initializers, computed in NumPy so every backend starts from the same numbers for the same seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rlworkbench.errors import ConfigError

Initializer = Callable[[tuple[int, ...], np.random.Generator], np.ndarray]


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def zeros(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return np.zeros(shape)


def ones(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return np.ones(shape)


def glorot_uniform(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    fan_in, fan_out = _fans(shape)
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape)


def glorot_normal(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    fan_in, fan_out = _fans(shape)
    return rng.standard_normal(shape) * np.sqrt(2.0 / (fan_in + fan_out))


def he_uniform(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    fan_in, _ = _fans(shape)
    limit = np.sqrt(6.0 / fan_in)
    return rng.uniform(-limit, limit, shape)


def orthogonal(shape: tuple[int, ...], rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    if len(shape) < 2:
        return rng.standard_normal(shape)
    rows, cols = int(np.prod(shape[:-1])), shape[-1]
    matrix = rng.standard_normal((max(rows, cols), min(rows, cols)))
    q, r = np.linalg.qr(matrix)
    q *= np.sign(np.diag(r))
    q = q if rows >= cols else q.T
    return gain * q[:rows, :cols].reshape(shape)


def truncated_normal(shape: tuple[int, ...], rng: np.random.Generator, stddev: float = 0.05) -> np.ndarray:
    value = rng.standard_normal(shape)
    while np.any(outside := np.abs(value) > 2.0):
        value[outside] = rng.standard_normal(int(outside.sum()))
    return value * stddev


NAMED: dict[str, Initializer] = {
    "zeros": zeros,
    "ones": ones,
    "glorot_uniform": glorot_uniform,
    "xavier_uniform": glorot_uniform,
    "glorot_normal": glorot_normal,
    "he_uniform": he_uniform,
    "orthogonal": orthogonal,
    "truncated_normal": truncated_normal,
}


def initialize(spec: Any, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Values for ``spec``: a name from :data:`NAMED`, a number, an array, or ``fn(shape, rng)``."""
    if isinstance(spec, str):
        if spec not in NAMED:
            raise ConfigError(f"unknown initializer '{spec}'", expected=sorted(NAMED), got=spec)
        return NAMED[spec](shape, rng)
    if callable(spec):
        return spec(shape, rng)
    return np.broadcast_to(np.asarray(spec), shape).copy()
