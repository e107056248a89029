"""APPO: IMPALA's dataflow — samplers, a bounded queue, v-trace — whose learner learns from each fragment
``execution/ray/passes`` times with PPO's clipped surrogate on v-trace advantages (the agent's ``loss/clip_ratio``):
the clipping keeps the repeated passes close to the policy that acted, so a fragment is worth more updates."""

from __future__ import annotations

from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans.impala import impala
from rlworkbench.execution.ray.plans.registry import Config, Plan, Step, register

DEFAULT_CLIP_RATIO = 0.2


def appo(run: PlanRun) -> Step:
    if run.agent.config["loss"].get("clip_ratio") is None:
        raise ConfigError("APPO learns with PPO's clipped surrogate: the IMPALA agent needs a clip ratio",
                          key_path="loss/clip_ratio", expected="a number > 0 (0.2 is usual)", got=None)
    return impala(run, passes=run.settings["passes"])


def clipped_learner(config: Config) -> Config:
    """A learner made from a config gets the clipped surrogate unless the config sets its own ratio."""
    loss = dict(config.get("loss") or {})
    loss.setdefault("clip_ratio", DEFAULT_CLIP_RATIO)
    return {**config, "loss": loss}


APPO = register(Plan("appo", "impala", appo, "APPO: IMPALA's queue, each fragment learnt `passes` times with PPO's "
                     "clipped surrogate on v-trace advantages", learner_config=clipped_learner))
