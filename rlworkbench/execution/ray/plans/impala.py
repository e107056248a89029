"""IMPALA (Espeholt et al. 2018): samplers send fixed-length fragments with the log-probs of their actions under
the weights that acted; the learner takes them from a bounded queue (samplers are asked only while it has room)
and learns with v-trace, one fragment per update; weights are broadcast every ``broadcast_every`` updates and
handed to a sampler once it took ``weight_sync_steps`` env steps with its own — v-trace corrects for the lag,
which the workers table shows as ``weights_behind``. A learner group takes one fragment per rank for each update
(each rank learns from its own, gradients all-reduced)."""

from __future__ import annotations

from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray.learner_group import concatenated
from rlworkbench.execution.ray.ops import Broadcast, LearnerQueue, Rollouts, TrainOneStep, concurrently
from rlworkbench.execution.ray.ops.learner_queue import QUEUE
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans.registry import Plan, Step, register
from rlworkbench.execution.ray.sampler import ImpalaSampler


def impala(run: PlanRun, passes: int = 1) -> Step:
    shares = run.learner.shares
    if run.settings["queue_size"] < shares:
        raise ConfigError("a learner group takes one fragment per rank from the queue", key_path="execution/ray/"
                          "queue_size", expected=f">= learners = {shares}", got=run.settings["queue_size"])
    samplers = Rollouts(run, ImpalaSampler, steps=run.agent.config["update"]["rollout_length"], to=QUEUE)
    queue, train, broadcast = LearnerQueue(run), TrainOneStep(run), Broadcast(run)

    def step(timeout: float = 0.5) -> None:
        samplers.request_in_turn(room=queue.room(coming=samplers.in_flight()))
        if not len(queue):
            concurrently(samplers, timeout=timeout)
        fragments = samplers.ready()
        queue.put(fragments)
        for fragment in fragments:
            broadcast.hand_if_due(fragment.report.index)
        taken = queue.take(shares)
        for _ in range(passes if taken else 0):  # APPO learns from a fragment more than once
            if train(concatenated([fragment.batch for fragment in taken]), queue=float(len(queue))) is not None:
                broadcast.after_update()
    return step


IMPALA = register(Plan("impala", "impala", impala, "IMPALA: a bounded learner queue, v-trace off-policy correction",
                       default=True))
