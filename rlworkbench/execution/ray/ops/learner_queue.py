"""A bounded queue of fragments in front of the learner: samplers are asked only while it has room, so sampling
never runs away from learning (IMPALA's ``queue_size``)."""

from __future__ import annotations

from collections import deque

from rlworkbench.execution.ray.flow_types import Fragment
from rlworkbench.execution.ray.plan_run import LEARNER, PlanRun

QUEUE = "queue"  #: the queue's node in the dataflow


class LearnerQueue:
    """At most ``capacity`` fragments (``run.settings["queue_size"]`` by default), oldest first."""

    def __init__(self, run: PlanRun, capacity: int | None = None):
        self.run = run
        self.capacity = int(run.settings["queue_size"] if capacity is None else capacity)
        self.items: deque[Fragment] = deque()
        run.meter.node(QUEUE, "queue")
        run.meter.depth(QUEUE, 0, self.capacity)

    def __len__(self) -> int:
        return len(self.items)

    def room(self, coming: int = 0) -> int:
        """Places left once the ``coming`` fragments already asked for arrive."""
        return self.capacity - len(self.items) - coming

    def put(self, fragments: list[Fragment]) -> None:
        self.items.extend(fragments)
        self.run.meter.depth(QUEUE, len(self.items), self.capacity)

    def get(self) -> Fragment | None:
        """The oldest fragment (counted as flowing to the learner), or None when empty."""
        taken = self.take(1)
        return taken[0] if taken else None

    def take(self, count: int) -> list[Fragment]:
        """The ``count`` oldest fragments (one per rank of a learner group), or none while fewer are queued."""
        if len(self.items) < count:
            return []
        taken = [self.items.popleft() for _ in range(count)]
        self.run.meter.depth(QUEUE, len(self.items), self.capacity)
        for fragment in taken:
            self.run.meter.flow(QUEUE, LEARNER, "Fragment", 1, fragment.bytes)
        return taken
