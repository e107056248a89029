"""One learner update, timed (the learner's busy share in the dataflow) and recorded in the run's tables."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np

from rlworkbench import nest
from rlworkbench.execution.ray.flow_types import Batch, ReplayBatch
from rlworkbench.execution.ray.learner_group import LearnerGroup, concatenated
from rlworkbench.execution.ray.ops.replay import Replay
from rlworkbench.execution.ray.plan_run import LEARNER, PlanRun, learner_rank_node


class TrainOneStep:
    """``train(batch, **extra)``: one update of ``run.learner`` on ``batch``; ``train.prioritised(drawn, replay)``:
    one update on replay batches (``run.learner.shares`` of them: one per rank of a learner group) with importance
    weights, whose new priorities go back to the shard that drew each batch. The updates table gets the metrics,
    ``extra`` columns and ``update_s`` (the update's seconds). An update a learner group lost to a failed rank
    (the group restarted) records nothing and returns None."""

    def __init__(self, run: PlanRun):
        self.run = run

    def __call__(self, batch: Batch, **extra: float) -> dict[str, float] | None:
        started = time.perf_counter()
        metrics = self.run.learner.update(batch)
        return None if metrics is None else self._record(started, metrics, extra, batch)

    def prioritised(self, drawn: Sequence[ReplayBatch], replay: Replay, **extra: float) -> dict[str, float] | None:
        started = time.perf_counter()
        records = concatenated([{**batch.records, "importance_weights": batch.weights} for batch in drawn])
        result = self.run.learner.update_with_priorities(records)
        if result is None:  # lost with a failed rank: the shards keep the batches' old priorities
            return None
        metrics, priorities = result
        bounds = np.cumsum([len(batch.weights) for batch in drawn])[:-1]
        for batch, part in zip(drawn, np.split(np.asarray(priorities), bounds)):
            replay.send_priorities(batch, part)
        return self._record(started, metrics, extra, records)

    def _record(self, started: float, metrics: dict[str, float], extra: Mapping[str, float],
                batch: Mapping[str, object]) -> dict[str, float]:
        seconds = time.perf_counter() - started
        run = self.run
        run.meter.work(LEARNER, seconds, produced=1)
        if isinstance(run.learner, LearnerGroup):
            share = sum(int(getattr(leaf, "nbytes", 0)) for leaf in nest.leaves(dict(batch))) // run.learner.shares
            for rank, stats in enumerate(run.learner.stats):
                run.meter.work(learner_rank_node(rank), stats["update_s"], produced=1)
                run.meter.flow(LEARNER, learner_rank_node(rank), "Batch", 1, share)
        run.record_update({**metrics, **extra, "update_s": seconds})
        return metrics
