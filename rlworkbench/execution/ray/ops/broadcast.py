"""Weights from the learner to the samplers on a rule: published (one ``ray.put``) every ``every`` updates, handed
to a sampler once it took ``weight_sync_steps`` env steps with the weights it holds — or to all at once."""

from __future__ import annotations

from rlworkbench.execution.ray.plan_run import LEARNER, PlanRun, sampler_node


class Broadcast:
    """Broadcasts ``run``'s weights every ``every`` updates (``run.settings["broadcast_every"]`` by default)."""

    def __init__(self, run: PlanRun, every: int | None = None):
        self.run = run
        self.every = int(run.settings["broadcast_every"] if every is None else every)

    def after_update(self) -> None:
        """Publishes the weights when the update count says so."""
        if self.run.agent.updates % self.every == 0:
            self.run.broadcast()

    def hand(self, index: int) -> None:
        """Sends sampler ``index`` the newest weights (it takes them before its next request)."""
        run = self.run
        assert run.samplers is not None, "a plan hands weights to its Rollouts' samplers"
        run.samplers.manager.actor(index).set_weights.remote(run.weights, run.version)
        run.stats[index].version, run.stats[index].steps_since_sync = run.version, 0
        run.meter.flow(LEARNER, sampler_node(index), "Weights", 1, run.weight_bytes)

    def hand_if_due(self, index: int) -> None:
        """:meth:`hand` once the sampler took ``weight_sync_steps`` env steps with older weights."""
        stats = self.run.stats[index]
        if stats.steps_since_sync >= self.run.settings["weight_sync_steps"] and stats.version < self.run.version:
            self.hand(index)

    def hand_all(self) -> None:
        """Publishes the weights and hands them to every sampler (synchronous plans)."""
        self.run.broadcast()
        for index in range(len(self.run.stats)):
            self.hand(index)
