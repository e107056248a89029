"""A first-in-first-out queue of nested records."""

from __future__ import annotations

from rlworkbench.components.memories.memory import Memory
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Size, Tensor
from rlworkbench.nest import Nested


@register("fifo_queue")
class FIFOQueue(Memory):
    """Records leave in the order they came: ``enqueue`` appends a batch, ``dequeue`` removes the oldest.

    ``dequeue(n)`` never blocks and never fails: it returns ``min(n, size)`` records (no rows at all from an
    empty queue), so callers read the batch size off the result. A full queue makes room by dropping its oldest
    records, like ``collections.deque(maxlen=capacity)``.

    Inputs: ``records`` a box or Dict/Tuple of boxes with a batch rank (no time rank); ``num_records`` an int
    scalar (``IntBox()``). Dequeued records come back in the record space (bounds kept), with the batch rank.
    """

    @api
    @graph_fn(returns=0)
    def enqueue(self, records: Nested[Tensor]) -> None:
        """Appends a batch of records (dropping the oldest ones if the queue would overflow)."""
        self.write(records)

    @api
    @graph_fn(output_spaces=lambda queue, num_records: queue.record_space)  # bounds kept; min(n, size) rows
    def dequeue(self, num_records: Size) -> Nested[Tensor]:
        """Removes and returns the oldest ``min(num_records, size)`` records, oldest first."""
        ops = self.ops
        count = ops.maximum(ops.minimum(ops.cast(num_records, "int64"), self.size), 0)
        records = self.read((self.oldest_slot() + ops.arange(count)) % self.capacity)
        ops.assign_sub(self.size, count)
        return records
