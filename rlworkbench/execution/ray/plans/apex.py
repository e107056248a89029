"""Ape-X (Horgan et al. 2018): samplers with their own epsilons prioritise n-step transitions and store them in
replay shards; the learner replays with requests in flight, learns, sends priorities back and broadcasts its
weights every ``broadcast_every`` updates. Updates follow the agent's schedule (:class:`~..ops.ScheduleOwed`);
samplers wait while the learner owes more than ``max_updates_owed`` updates (a small machine's samplers would
otherwise outrun learning) and the shards answer (a shard that hangs never holds the samplers). A learner group
takes one replay batch per rank for each update; each batch's priorities go back to the shard that drew it."""

from __future__ import annotations

from collections.abc import Callable

from rlworkbench.execution.ray.apex_sampler import ApexSampler
from rlworkbench.execution.ray.flow_types import ReplayBatch
from rlworkbench.execution.ray.ops import Broadcast, Replay, Rollouts, ScheduleOwed, TrainOneStep, concurrently
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans.registry import Config, Plan, Step, register


def apex(run: PlanRun, owed_rule: Callable[[PlanRun], Callable[[], int]] = ScheduleOwed) -> Step:
    replay = Replay(run)
    samplers = Rollouts(run, ApexSampler, steps=run.settings["fragment_length"],
                        arguments=lambda index: (replay.handles(), replay.generations()))
    train, broadcast, owed = TrainOneStep(run), Broadcast(run), owed_rule(run)
    limit = run.settings["max_updates_owed"]
    run.meter.notes["batch_size"] = replay.batch_size

    shares = run.learner.shares  # batches per update: one per rank of a learner group
    drawn: list[ReplayBatch] = []

    def step(timeout: float = 0.5) -> None:
        replay.request(owed() * shares - replay.in_flight() - len(drawn))
        if limit is None or not replay.answering() or owed() <= limit:  # pace samplers only while batches come
            samplers.request_free()
        concurrently(samplers, replay, timeout=timeout)
        for report in samplers.ready():
            replay.stored(report)
            broadcast.hand_if_due(report.index)
        drawn.extend(replay.ready())
        while len(drawn) >= shares:
            batches = drawn[:shares]
            del drawn[:shares]
            if train.prioritised(batches, replay) is not None:
                broadcast.after_update()
    return step


def apex_epsilon(index: int, workers: int, base: float = 0.4, alpha: float = 7.0) -> float:
    """Ape-X's per-actor exploration: ``base ** (1 + alpha * index / (workers - 1))``."""
    return base if workers == 1 else base ** (1 + alpha * index / (workers - 1))


def apex_sampler_config(run: PlanRun, index: int, config: Config) -> Config:
    """Sampler ``index`` explores with its own epsilon and keeps no replay (one batch of n-step transitions)."""
    epsilon = config["memory"].get("priority_epsilon", 1e-6)
    return {**config, "exploration": {**config["exploration"], "epsilon": apex_epsilon(index, run.settings["workers"])},
            "memory": {"type": "replay_memory", "capacity": int(config["update"]["batch_size"]),
                       "priority_epsilon": epsilon}}


def learner_without_replay(config: Config) -> Config:
    """A learner's config whose memory is one batch long: replay lives in the shards (``execution/ray/
    replay_capacity`` keeps the config's capacity for them)."""
    memory, execution = dict(config["memory"]), dict(config.get("execution") or {})
    ray_section = {"replay_capacity": int(memory["capacity"]), **(execution.get("ray") or {})}
    memory["capacity"] = int(config["update"]["batch_size"])
    return {**config, "memory": memory, "execution": {**execution, "ray": ray_section}}


APEX = register(Plan("apex", "dqn", apex, "Ape-X DQN: prioritised replay shards, samplers with their own epsilon",
                     default=True, sampler_config=apex_sampler_config, learner_config=learner_without_replay))
