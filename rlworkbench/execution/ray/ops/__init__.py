"""The operators plans are composed of — each small, typed, and counted into the run's dataflow meter.

- :class:`~.rollouts.Rollouts` — sampler requests in → :class:`Fragment` / :class:`SampleReport` out; synchronous
  (:meth:`~.rollouts.Rollouts.gather`: one from every sampler) or asynchronous (``ready``: as they finish);
- :class:`~.replay.Replay` — store (samplers send, the run counts what they reported) and replay: batches owed in,
  :class:`ReplayBatch` out with requests in flight; priorities back to the shard that drew;
- :class:`~.learner_queue.LearnerQueue` — fragments in, oldest out, bounded (samplers are asked while it has room);
- :class:`~.train.TrainOneStep` — a batch or a :class:`ReplayBatch` in, metrics out (priorities sent back);
- :class:`~.broadcast.Broadcast` — weights to samplers every N updates, handed out after ``weight_sync_steps``;
- :func:`~.concurrently.concurrently` — waits until any of several operators has output;
- :mod:`~.pacing` — updates owed by the agent's schedule or a fixed replay ratio.

Metrics reporting is the run's (:meth:`~..plan_run.PlanRun.record_sample`, ``record_update``), which the operators
call as values pass.
"""

from rlworkbench.execution.ray.ops.broadcast import Broadcast
from rlworkbench.execution.ray.ops.concurrently import concurrently
from rlworkbench.execution.ray.ops.learner_queue import LearnerQueue
from rlworkbench.execution.ray.ops.pacing import ReplayRatio, ScheduleOwed
from rlworkbench.execution.ray.ops.replay import Replay
from rlworkbench.execution.ray.ops.rollouts import Rollouts
from rlworkbench.execution.ray.ops.train import TrainOneStep

__all__ = ["Broadcast", "LearnerQueue", "Replay", "ReplayRatio", "Rollouts", "ScheduleOwed", "TrainOneStep",
           "concurrently"]
