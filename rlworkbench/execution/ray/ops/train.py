"""One learner update, timed (the learner's busy share in the dataflow) and recorded in the run's tables."""

from __future__ import annotations

import time
from collections.abc import Mapping

from rlworkbench.execution.ray.flow_types import Batch, ReplayBatch
from rlworkbench.execution.ray.ops.replay import Replay
from rlworkbench.execution.ray.plan_run import LEARNER, PlanRun


class TrainOneStep:
    """``train(batch, **extra)``: one ``agent.update(batch)``; ``train.prioritised(replay_batch, replay)``: one
    update with importance weights whose new priorities go back to the shard that drew the batch. The updates
    table gets the metrics, ``extra`` columns and ``update_s`` (the update's seconds)."""

    def __init__(self, run: PlanRun):
        self.run = run

    def __call__(self, batch: Batch, **extra: float) -> dict[str, float]:
        started = time.perf_counter()
        metrics = self.run.agent.update(batch)
        return self._record(started, metrics, extra)

    def prioritised(self, drawn: ReplayBatch, replay: Replay, **extra: float) -> dict[str, float]:
        started = time.perf_counter()
        metrics, priorities = self.run.agent.update_with_priorities({**drawn.records,
                                                                     "importance_weights": drawn.weights})
        replay.send_priorities(drawn, priorities)
        return self._record(started, metrics, extra)

    def _record(self, started: float, metrics: dict[str, float], extra: Mapping[str, float]) -> dict[str, float]:
        seconds = time.perf_counter() - started
        self.run.meter.work(LEARNER, seconds, produced=1)
        self.run.record_update({**metrics, **extra, "update_s": seconds})
        return metrics
