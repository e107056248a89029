"""A ring buffer of transitions that hands out whole episodes."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.memories.memory import Memory
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Size, Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.nest import Nested
from rlworkbench.spaces import BoolBox, ContainerSpace, IntBox, Space


@register("ring_buffer")
class RingBuffer(Memory):
    """Transitions in insertion order; ``get_episodes(n)`` returns the last ``n`` complete episodes.

    ``{"type": "ring_buffer", "capacity": 1000}``. The records are a Dict (or Tuple) with a scalar bool leaf at
    ``terminal_key`` (default ``"terminals"``) that marks the last transition of an episode. An episode is
    complete when its terminal transition is stored and its first one has not been overwritten; transitions
    after the last terminal (a running episode) are never returned. Per slot a variable ``starts`` remembers
    whether the transition began an episode, so episodes cut by the ring are recognised.

    Inputs: ``records`` with a batch rank (no time rank); ``num_episodes`` an int scalar (``IntBox()``).
    """

    def __init__(self, capacity: int, terminal_key: str = "terminals", **kwargs: Any):
        super().__init__(capacity, **kwargs)
        self.terminal_key = terminal_key

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        leaf = self.record_space.flatten().get(self.terminal_key)
        if not isinstance(self.record_space, ContainerSpace) or not isinstance(leaf, BoolBox) or leaf.shape != ():
            raise SpaceError("a ring buffer needs a scalar bool terminal flag in its records", argument="records",
                             key_path=self.terminal_key, expected="BoolBox() at this key", got=leaf)
        self.starts = self.create_variable("starts", (self.capacity,), "bool", trainable=False)
        self.after_terminal = self.create_variable("after_terminal", (), "bool", True, trainable=False)

    @api
    @graph_fn(returns=0)
    def insert_records(self, records: Nested[Tensor]) -> None:
        """Appends a batch of transitions, overwriting the oldest ones once the buffer is full."""
        ops = self.ops
        terminals = ops.cast(self.record_space.flatten(records)[self.terminal_key], "bool")
        previous = ops.concat([ops.reshape(self.after_terminal, (1,)), terminals], 0)  # shifted by one
        slots = self.write(records)
        ops.scatter_update(self.starts, slots, previous[:-1][-self.capacity:])
        ops.assign(self.after_terminal, previous[-1])

    @api
    @graph_fn(output_spaces=lambda buffer, num_episodes: buffer.record_space)  # bounds kept; rows: data-dependent
    def get_episodes(self, num_episodes: Size) -> Nested[Tensor]:
        """The transitions of the last ``min(num_episodes, complete episodes)`` episodes, oldest first."""
        ops = self.ops
        slots, ends_after, complete = self._episodes()
        wanted = ops.minimum(ops.cast(num_episodes, "int64"), complete)
        # ends_after counts down along the slots: the rows with 1 <= ends_after <= wanted are one contiguous run
        begin = ops.reduce_sum(ops.cast(ends_after > wanted, "int64"))
        end = ops.reduce_sum(ops.cast(ends_after > 0, "int64"))
        return self.read(ops.gather(slots, begin + ops.arange(ops.maximum(end - begin, 0))))

    @api
    @graph_fn(output_spaces=lambda buffer: IntBox(0, buffer.capacity + 1))  # declared: a count in [0, capacity]
    def get_num_episodes(self) -> Tensor:
        """How many complete episodes are stored: an int64 scalar."""
        return self._episodes()[2]

    def _episodes(self) -> tuple[Tensor, Tensor, Tensor]:
        """Stored slots oldest first; per slot the number of terminals at or after it (the transition belongs to
        the episode that many from the end); and the number of complete episodes."""
        ops = self.ops
        oldest = self.oldest_slot()
        slots = (oldest + ops.arange(self.size)) % self.capacity
        terminals = ops.cast(ops.gather(self.buffers[self.terminal_key], slots), "int64")
        first_starts = ops.cast(ops.gather(self.starts, oldest), "int64")
        complete = ops.maximum(ops.reduce_sum(terminals) - 1 + first_starts, 0)
        return slots, ops.cumsum(terminals, 0, reverse=True), complete
