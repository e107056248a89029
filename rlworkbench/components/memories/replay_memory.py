"""Uniform experience replay."""

from __future__ import annotations

from rlworkbench.components.memories.memory import Memory
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Size, Tensor
from rlworkbench.nest import Nested
from rlworkbench.spaces import Space


@register("replay_memory")
class ReplayMemory(Memory):
    """A ring buffer of nested records, sampled uniformly with replacement.

    ``{"type": "replay_memory", "capacity": 10000}``. Inputs: ``records`` a box or Dict/Tuple of boxes with a
    batch rank (no time rank); ``num_records`` an int scalar (``IntBox()``). Records come back in the record
    space itself (bounds kept), with the batch rank. Sampling uses the memory's own random generator, so it is
    reproducible from the build seed; an empty memory returns the zeros of slot 0.
    """

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.rng = self.create_random_generator()

    @api
    @graph_fn(returns=0)
    def insert_records(self, records: Nested[Tensor]) -> None:
        """Appends a batch of records, overwriting the oldest ones once the memory is full."""
        self.write(records)

    @api
    @graph_fn(output_spaces=lambda memory, num_records: memory.record_space)  # bounds kept; num_records rows
    def get_records(self, num_records: Size) -> Nested[Tensor]:
        """``num_records`` records drawn uniformly, with replacement, from the filled slots."""
        return self.read(self.ops.random_integers(self.rng, (num_records,), 0, self.size))
