"""What every replay-based agent (DQN, SAC) shares: transitions merged into one record for its memory, next states
preprocessed on the way in, and preprocessors without state (the memory keeps preprocessed states)."""

from __future__ import annotations

from collections.abc import Mapping

from rlworkbench.agents.preprocessing_root import PreprocessingRoot
from rlworkbench.components.helpers.container_merger import ContainerMerger
from rlworkbench.components.helpers.container_splitter import ContainerSplitter
from rlworkbench.components.preprocessing.preprocessor_stack import PreprocessorStack
from rlworkbench.components.registry import registered
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError

RECORD_KEYS = ("states", "actions", "rewards", "terminals", "next_states")


class ReplayRoot(PreprocessingRoot):
    """A root with ``self.memory``; :meth:`record_routing` makes the merger/splitter between the five transition
    parts and one memory record. API: ``insert_records(preprocessed_states, actions, rewards, terminals, *,
    next_states) -> next_preprocessed_states`` (next states raw: they are preprocessed here, once, and given back
    for acting on them next), ``get_memory_size()``."""

    memory: Component
    merger: ContainerMerger

    def record_routing(self) -> tuple[ContainerMerger, ContainerSplitter]:
        """Sets and returns ``self.merger`` and ``self.splitter`` (to add as sub-components)."""
        self.merger = ContainerMerger(*RECORD_KEYS, name="record_merger")
        self.splitter = ContainerSplitter(*RECORD_KEYS, name="record_splitter")
        return self.merger, self.splitter

    @api
    def insert_records(self, preprocessed_states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, *,
                       next_states: Tensor) -> Tensor:
        """Stores a batch of transitions; returns their next states, preprocessed."""
        next_preprocessed_states = self.preprocess(next_states)
        self.memory.insert_records(self.merger.merge(preprocessed_states, actions, rewards, terminals,
                                                     next_preprocessed_states))
        return next_preprocessed_states

    @api
    def get_memory_size(self) -> Tensor:
        return self.memory.get_size()


def stateless_preprocessor(specs: list[Mapping[str, object]], agent: str) -> PreprocessorStack | None:
    """The preprocessor stack of a replay agent (``None`` for no specs); ConfigError naming ``agent`` for a
    preprocessor with state, whose outputs a memory of preprocessed states could not be trusted to repeat."""
    for index, spec in enumerate(specs):
        if "reset" in registered()[spec["type"]].api_methods:
            raise ConfigError(f"{agent} stores preprocessed states, so its preprocessors must be stateless",
                              key_path=f"{index}/type", expected="a preprocessor without state (not a frame "
                              "stack or running normaliser; stack frames in the env)", got=spec["type"])
    return PreprocessorStack(specs, name="preprocessor") if specs else None
