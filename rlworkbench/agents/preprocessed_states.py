"""Each observation preprocessed once: the preprocessed form of the states an agent just acted on or observed.

An env step hands an agent the same observations twice or three times: acted on now (``get_actions``), as this
step's ``states`` and as the last step's ``next_states`` (``observe``). Acting preprocesses them, and storing a
transition preprocesses its next states; :class:`PreprocessedStates` remembers both results, so a later call with
the same observations takes them instead of preprocessing again. Observations are matched by content (a copy of
what was remembered, compared leaf by leaf), not by identity: a vector env may hand out one buffer it overwrites
in place, or a fresh copy of the same values. Preprocessors of these agents are stateless, so equal observations
always preprocess to equal results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.agents.protocols import Arrays


class PreprocessedStates:
    """At most two remembered ``(observations, preprocessed)`` pairs: the last acted on and the last next states."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[list[np.ndarray], Any]] = {}

    def remember(self, slot: str, observations: Arrays, preprocessed: Arrays) -> None:
        """Keeps ``preprocessed`` as the form of ``observations`` (``slot``: ``"acted"`` or ``"next"``)."""
        self._entries[slot] = ([np.array(leaf, copy=True) for leaf in nest.leaves(observations)], preprocessed)

    def lookup(self, observations: Arrays) -> Any | None:
        """The remembered preprocessed form of ``observations``, or None."""
        leaves = nest.leaves(observations)
        for kept, preprocessed in self._entries.values():
            if len(kept) == len(leaves) and all(a.shape == np.shape(b) and np.array_equal(a, b)
                                                for a, b in zip(kept, leaves)):
                return preprocessed
        return None

    def clear(self) -> None:
        self._entries.clear()
