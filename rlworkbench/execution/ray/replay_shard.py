"""A replay shard: one slice of Ape-X's prioritised replay, the library's ``PrioritizedReplay`` in its own process.

Samplers add their transitions with the priorities they computed themselves (``agent.priorities(batch)``); the
learner samples batches with importance weights and sends the new priorities back. The memory is built on its
own (the component is the root of a small graph), on the backend the run uses, so a shard holds exactly what an
agent's memory holds and a record space is all it needs to know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench.execution.ray.flow_types import Transitions
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Space

if TYPE_CHECKING:
    from rlworkbench.agents import Agent


def transition_space(agent: Agent) -> Dict:
    """The records of (built) ``agent``'s n-step transitions as a shard stores them (preprocessed states and next
    states, actions, rewards, terminals; batch-major)."""
    preprocessed = agent.preprocessed_space
    assert preprocessed is not None, "a built agent's transitions"
    space = preprocessed.strip_ranks()
    return Dict(states=space, actions=agent.action_space.strip_ranks(), rewards=FloatBox(), terminals=BoolBox(),
                next_states=space, add_batch_rank=True)


class ReplayShard:
    """``capacity`` records of ``record_space`` (a Dict with a batch rank) with priorities ``p ** alpha``;
    ``add`` / ``sample`` / ``update_priorities`` / ``size``."""

    def __init__(self, record_space: Dict, capacity: int, alpha: float = 0.6, beta: float = 0.4,
                 backend: str = "torch", seed: int | None = None):
        from rlworkbench.components.memories import PrioritizedReplay
        from rlworkbench.components.memories.prioritized_replay import checked_spaces
        from rlworkbench.core.backend import get_backend
        from rlworkbench.core.builder import build

        get_backend(backend).limit_threads(1)
        self.memory = PrioritizedReplay(capacity, alpha=alpha, beta=beta, name="replay_shard")
        spaces: Mapping[str, Space] = {"records": record_space, "num_records": IntBox(), **checked_spaces(capacity)}
        self.executor = build(self.memory, spaces, backend=backend, seed=seed,
                              api_methods=["insert_records_with_priorities", "get_records", "update_records",
                                           "get_size"])
        self.added = 0
        self.refused = 0  # records sent but not added (refused priorities): they arrived, and are not held
        if backend == "torch":  # its first insert would load the compiled sum tree (~1 s): not with records queued
            from rlworkbench.core.sum_tree_kernels import warm_up

            warm_up()

    def add(self, transitions: Transitions) -> int:
        """Appends prioritised transitions (priorities finite and > 0, else a SpaceError and nothing is added);
        returns how many records were added so far."""
        try:
            self.executor.api.insert_records_with_priorities(transitions.records, transitions.priorities)
        except Exception:
            self.refused += len(transitions)
            raise
        self.added += len(transitions)
        return self.added

    def sample(self, num_records: int) -> tuple[dict[str, Any], np.ndarray, np.ndarray] | None:
        """``(records, indices, importance_weights)`` of ``num_records`` records drawn by priority; ``None`` while
        the shard is empty (a learner may ask before the first records arrived)."""
        if self.size() == 0:
            return None
        return self.executor.api.get_records(np.int64(num_records))

    def update_priorities(self, indices: np.ndarray, priorities: np.ndarray) -> None:
        """New priorities of the records at ``indices`` (as :meth:`sample` returned them); an index outside the
        shard or a priority that is not a finite number > 0 is a SpaceError and changes nothing."""
        self.executor.api.update_records(np.asarray(indices), np.asarray(priorities, np.float32))

    def size(self) -> int:
        return int(self.executor.api.get_size())

    def received(self) -> int:
        """The records that arrived so far, added or refused (since the checkpoint :meth:`load_state` put back:
        its records count as added): what a learner compares with what the samplers reported sending."""
        return self.added + self.refused

    def state(self) -> tuple[dict[str, np.ndarray], int]:
        """Every variable of the memory (records, priority trees, position, size) and the records added: what
        :meth:`load_state` puts back (a checkpoint's replay)."""
        return self.executor.get_weights(), self.added

    def load_state(self, variables: Mapping[str, np.ndarray], added: int) -> int:
        """Puts back what :meth:`state` gave (names and shapes checked first); returns the records held."""
        self.executor.set_weights(dict(variables), True)
        self.added, self.refused = int(added), 0
        return self.size()
