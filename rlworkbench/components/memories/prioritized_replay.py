"""Proportional prioritized experience replay (Schaul et al., 2016) on a sum and a min segment tree."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.helpers.segment_tree import SegmentTree
from rlworkbench.components.memories.replay_memory import ReplayMemory
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Size, Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.nest import Nested
from rlworkbench.spaces import FloatBox, IntBox, Space

PRIORITY_BOUNDS = (float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max))  #: finite float32 > 0


def checked_spaces(capacity: int) -> dict[str, Space]:
    """The spaces to build a root memory's ``indices`` and ``priorities`` with, so that the values its API methods
    check (``checked``) are refused outside them: slots in ``[0, capacity)``; finite priorities > 0
    (:data:`PRIORITY_BOUNDS`: a NaN, infinite, zero or negative one would spoil the sum tree, or weights, for every
    later sample)."""
    return {"indices": IntBox(capacity, add_batch_rank=True),
            "priorities": FloatBox(*PRIORITY_BOUNDS, add_batch_rank=True)}


def acceptable_priorities(priorities: np.ndarray) -> np.ndarray:
    """Per entry, as float32, whether :func:`checked_spaces`' priorities take it (within :data:`PRIORITY_BOUNDS`;
    never NaN)."""
    priorities = np.asarray(priorities, np.float32)
    return (priorities >= PRIORITY_BOUNDS[0]) & (priorities <= PRIORITY_BOUNDS[1])


def _sampled_spaces(memory: PrioritizedReplay, *inputs: Space) -> tuple[Space, Space, Space]:
    return (memory.record_space, IntBox(0, memory.capacity, add_batch_rank=True),
            FloatBox(0.0, 1.0, add_batch_rank=True))


def _slots(memory: PrioritizedReplay, records: Space) -> Space:
    return IntBox(0, memory.capacity, add_batch_rank=True)


def _slots_and_largest(memory: PrioritizedReplay, records: Space) -> tuple[Space, Space]:
    return _slots(memory, records), FloatBox()


def _float_batch(memory: PrioritizedReplay, *inputs: Space) -> Space:
    return FloatBox(add_batch_rank=True)


@register("prioritized_replay")
class PrioritizedReplay(ReplayMemory):
    """Replay that samples record ``i`` with probability ``P(i) = p_i^alpha / Σ_k p_k^alpha``.

    ``{"type": "prioritized_replay", "capacity": 10000, "alpha": 0.6, "beta": 0.4}``. The powered priorities
    ``p^alpha`` live in a sum tree (a :class:`SegmentTree` sub-component with ``capacity`` rounded up to a power
    of two): sampling by prefix sums, and the smallest stored priority (the largest importance weight) from the
    tree's block minima — every sample and update costs the same at 4k and at 1M records (bench/replay_scaling).
    New records get the largest priority given so far (1 at first), or their own with
    ``insert_records_with_priorities(records, priorities)``. ``get_records`` returns ``(records,
    indices, weights)`` with importance weights ``w_i = (N·P(i))^-beta / max_k (N·P(k))^-beta``, ``k`` over the
    stored records, so in (0, 1]. Sampling needs stored records (an empty memory gives slot 0 with an infinite
    weight).

    Inputs: ``records`` a box or Dict/Tuple of boxes with a batch rank; ``num_records`` an int scalar;
    ``indices`` (IntBox) and ``priorities`` (FloatBox, > 0, e.g. ``|TD error| + ε``) with a batch rank. Called from
    outside (a root memory, e.g. a replay shard), ``indices`` and ``priorities`` are checked against the spaces it
    was built with, numbers and all, before anything is written: built with :func:`checked_spaces`, an index past
    the end or a NaN priority is a SpaceError and the memory stays as it was.
    """

    def __init__(self, capacity: int, alpha: float = 0.6, beta: float = 0.4, **kwargs: Any):
        super().__init__(capacity, **kwargs)
        for argument, value in (("alpha", alpha), ("beta", beta)):
            if not isinstance(value, (int, float)) or value < 0:
                raise ConfigError("prioritized replay needs a non-negative exponent", component=self.name,
                                  argument=argument, expected="a number >= 0", got=repr(value))
        self.alpha, self.beta = float(alpha), float(beta)
        leaves = 1 << (self.capacity - 1).bit_length()
        self.sum_tree = SegmentTree(leaves, "sum", name="sum_tree")
        self.add_components(self.sum_tree)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.max_priority = self.create_variable("max_priority", (), "float32", 1.0, trainable=False)

    @api
    def insert_records(self, records: Nested[Tensor]) -> None:
        """Appends a batch of records with the largest priority so far, overwriting the oldest when full."""
        self.sum_tree.fill(*self._insert_with_max_priority(records))  # one write's slots

    @api(checked=("priorities",))
    def insert_records_with_priorities(self, records: Nested[Tensor], priorities: Tensor) -> None:
        """Appends a batch of records with their own priorities (computed where they were collected, as Ape-X's
        actors do), overwriting the oldest when full; the largest priority so far follows them."""
        self.sum_tree.update_distinct(self._write_slots(records), self._track_max_priority(priorities))

    @api
    def get_records(self, num_records: Size) -> tuple[Nested[Tensor], Tensor, Tensor]:
        """``(records, indices, importance_weights)`` of ``num_records`` records sampled by priority."""
        indices, powered, min_powered = self.sum_tree.sample(self._uniforms(num_records), self.get_size())
        return self._weighted_records(indices, powered, min_powered)

    @api(must_be_complete=False, checked=("indices", "priorities"))
    def update_records(self, indices: Tensor, priorities: Tensor) -> None:
        """Sets the priorities of the records at ``indices`` (as returned by ``get_records``)."""
        self.sum_tree.update(indices, self._track_max_priority(priorities))

    @graph_fn(returns=2, output_spaces=_slots_and_largest)  # declared: slots in [0, capacity)
    def _insert_with_max_priority(self, records: Nested[Tensor]) -> tuple[Tensor, Tensor]:
        return self.write(records), self.max_priority ** self.alpha  # one value for all the slots

    @graph_fn(output_spaces=_slots)  # declared: slots in [0, capacity)
    def _write_slots(self, records: Nested[Tensor]) -> Tensor:
        return self.write(records)

    @graph_fn(output_spaces=_float_batch)  # declared: a batch of num_records, an input value
    def _uniforms(self, num_records: Size) -> Tensor:
        return self.ops.random_uniform(self.rng, (num_records,))

    @graph_fn(returns=3, output_spaces=_sampled_spaces)  # records (bounds kept), slots, weights in [0, 1]
    def _weighted_records(self, indices: Tensor, powered: Tensor, min_powered: Tensor,
                          ) -> tuple[Nested[Tensor], Tensor, Tensor]:
        # (N·P(i))^-beta / (N·P_min)^-beta with P(i) = p_i^alpha / total: N and the total cancel
        return self.read(indices), indices, (powered / min_powered) ** -self.beta

    @graph_fn
    def _track_max_priority(self, priorities: Tensor) -> Tensor:
        # a NaN or infinite priority (a diverged learner's TD error; the guard refuses that update) would spoil the
        # tree for every later sample: it gets the largest priority so far, as a new record does
        return self.ops.track_max(self.max_priority, self.ops.cast(priorities, "float32")) ** self.alpha
