"""How many learner updates a replay plan owes by now — the rule that sets its replay ratio.

:class:`ScheduleOwed` follows the agent's own schedule (``update/learning_starts``, ``gradient_steps`` every
``update_interval`` env steps: the local DQN's ratio); :class:`ReplayRatio` keeps a fixed number of replayed
transitions per sampled one, whatever the agent's config says (the knob Ape-X and R2D2 tune).
"""

from __future__ import annotations

from rlworkbench.execution.ray.plan_run import PlanRun


class ScheduleOwed:
    """Updates the agent's schedule allows by now, minus those made; ``run.first_update`` counts from a resume."""

    def __init__(self, run: PlanRun):
        self.run = run
        self.schedule = run.agent.config["update"]

    def __call__(self) -> int:
        run, schedule = self.run, self.schedule
        if run.timesteps < schedule["learning_starts"]:
            return 0
        rounds = (run.timesteps - schedule["learning_starts"]) // schedule["update_interval"] + 1
        return rounds * schedule["gradient_steps"] - (run.agent.updates - run.first_update)


class ReplayRatio:
    """``ratio`` replayed transitions per sampled one after ``update/learning_starts``: updates owed =
    ``(env steps - learning_starts) x ratio / (batch_size x learner ranks)`` minus those made (a learner group's
    update replays one batch per rank)."""

    def __init__(self, run: PlanRun, ratio: float):
        if not ratio > 0:
            from rlworkbench.errors import ConfigError

            raise ConfigError("the replay ratio must be positive", key_path="execution/ray/replay_ratio",
                              expected="> 0", got=ratio)
        self.run, self.ratio = run, float(ratio)
        self.starts = int(run.agent.config["update"]["learning_starts"])
        self.batch_size = int(run.agent.config["update"]["batch_size"]) * run.learner.shares

    def __call__(self) -> int:
        run = self.run
        sampled = max(run.timesteps - self.starts, 0)
        return int(sampled * self.ratio / self.batch_size) - (run.agent.updates - run.first_update)
