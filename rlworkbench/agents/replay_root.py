"""What every replay-based root (DQN, SAC) shares: transitions merged into one record for its memory."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.helpers.container_merger import ContainerMerger
from rlworkbench.components.helpers.container_splitter import ContainerSplitter
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api

RECORD_KEYS = ("states", "actions", "rewards", "terminals", "next_states")


class ReplayRoot(Component):
    """A root with ``self.memory``; :meth:`record_routing` makes the merger/splitter between the five transition
    parts and one memory record. API: ``insert_records(...)``, ``get_memory_size()``."""

    memory: Component
    merger: ContainerMerger

    def record_routing(self) -> tuple[ContainerMerger, ContainerSplitter]:
        """Sets and returns ``self.merger`` and ``self.splitter`` (to add as sub-components)."""
        self.merger = ContainerMerger(*RECORD_KEYS, name="record_merger")
        self.splitter = ContainerSplitter(*RECORD_KEYS, name="record_splitter")
        return self.merger, self.splitter

    @api
    def insert_records(self, preprocessed_states: Any, actions: Any, rewards: Any, terminals: Any,
                       next_preprocessed_states: Any) -> None:
        self.memory.insert_records(self.merger.merge(preprocessed_states, actions, rewards, terminals,
                                                     next_preprocessed_states))

    @api
    def get_memory_size(self) -> Any:
        return self.memory.get_size()
