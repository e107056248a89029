"""Random generators across checkpoints: a save moves every generator of the root to a new stream whose seed goes
into the checkpoint, and a load moves them to the same stream, so save → load → continue draws the same random
numbers (exploration, memory sampling) without reading backend generator states."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rlworkbench.core.backend import Backend
    from rlworkbench.core.component import Component


def new_stream(seed: int | None, *counters: int) -> int:
    """A stream seed: derived from the agent's seed and counters (reproducible runs), fresh when unseeded."""
    sequence = np.random.SeedSequence() if seed is None else np.random.SeedSequence([seed, *counters])
    return int(sequence.generate_state(1)[0])


def reseed_generators(root: Component, backend: Backend, stream: int) -> None:
    """Reseeds every random generator below ``root`` from ``stream`` and its path (independent per generator)."""
    for component in root.walk():
        for name, (generator, _) in component._generators.items():
            key = zlib.crc32(f"{component.path}/{name}".encode())
            backend.reseed(generator, int(np.random.SeedSequence([stream, key]).generate_state(1)[0] >> 1))


def is_stream(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
