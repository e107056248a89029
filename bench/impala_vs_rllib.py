"""IMPALA and APPO against RLlib's: env frames/s sampled, samples/s trained and wall time to a greedy return of 450,
CartPole-v1.

Run ``python -m bench.impala_vs_rllib [--workers 1 2] [--envs-per-worker 4] [--timesteps N] [--solve-budget N]
[--repeats N] [--num-cpus K] [--out PATH.csv]`` (needs ``ray[rllib]``). Machinery, run phases, columns and medians
as in :mod:`bench.apex_vs_rllib` (shared in :mod:`bench.rllib_runs`).

Contenders, one after the other in one local Ray session, each with W sampling workers of E envs, CartPole-v1, the
shipped ``impala_cartpole`` agent's networks — a policy MLP 4-64-64 tanh and a separate value MLP 4-64-64 tanh —
fragments of 20 steps per env, one fragment (20 x E samples) per update, discount 0.99, Adam 5e-4 clipped at global
norm 40, value weight 0.5, entropy weight 0.01, v-trace clipping 1.0 (rho and pg rho):

- ``impala``: rlworkbench's IMPALA plan (:mod:`rlworkbench.execution.ray.plans.impala`): the learner in this
  process, W sampler actors (1 CPU each), a learner queue of 4 fragments, weights broadcast after every update and
  handed to a sampler once it took 80 steps with older ones (the config's ``execution/ray``).
- ``appo``: rlworkbench's APPO plan: the same, each fragment learnt twice (``passes`` 2) with PPO's clipped surrogate
  (clip 0.2) on v-trace advantages.
- ``rllib_impala``: RLlib's ``IMPALAConfig`` (new API stack) with the same env runners (1 CPU each), networks
  (``DefaultModelConfig``, ``vf_share_layers`` False), ``rollout_fragment_length`` 20,
  ``train_batch_size_per_learner`` 20 x E, and the same optimiser and loss settings; one learner actor
  (``num_learners=1``, 1 CPU), RLlib's way of running IMPALA's asynchronous learner.
- ``rllib_appo``: RLlib's ``APPOConfig``, the same plus ``clip_param`` 0.2, no KL loss, each batch learnt twice
  (``circular_buffer_iterations_per_batch`` 2); otherwise APPO's defaults (its target network for the old policy).
  The baseline: ratios divide by it.

Target (issue 31): ``impala`` **frames_ratio >= 2** against RLlib's APPO at equal workers, and a shorter time to
450 (``time_ratio`` < 1). ``--num-cpus`` defaults to max(W) + 1 logical Ray CPUs (the RLlib learner actor's); on a
2-core machine the processes share the cores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import rllib_runs
from bench.rllib_runs import Family, PlanContender, RLlibRun

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"
ENV_ID = "CartPole-v1"
AGENT_CONFIG = "impala_cartpole"
THRESHOLD = 450.0
PASSES = 2  # APPO's passes over each fragment (ours: execution/ray/passes; RLlib: circular buffer iterations)
CLIP = 0.2
RLLIB_LEARNERS = 1
CONTENDERS = ("impala", "appo", "rllib_impala", "rllib_appo")
BASELINE = "rllib_appo"
TARGET = 2.0


def impala_config() -> dict[str, Any]:
    """The shipped CartPole IMPALA agent config (defaults filled)."""
    from rlworkbench.agents.config import builtin_config

    return builtin_config(AGENT_CONFIG)


def rllib_config(name: str, workers: int, envs: int, seed: int) -> Any:
    """RLlib's IMPALA (``rllib_impala``) or APPO (``rllib_appo``) with our agent config's settings."""
    ours = impala_config()
    policy, loss, optimizer = ours["policy"], ours["loss"], ours["optimizer"]
    if policy["value_network"] != policy["network"]:
        raise ValueError("RLlib's default model gives the value function the policy's layers: the configs differ")
    hidden, activation = rllib_runs.mlp_layers(policy["network"])
    fragment = int(ours["update"]["rollout_length"])
    config: Any
    extra: dict[str, Any]
    if name == "rllib_appo":
        from ray.rllib.algorithms.appo import APPOConfig

        config, extra = APPOConfig(), {"clip_param": CLIP, "use_kl_loss": False,
                                       "circular_buffer_iterations_per_batch": PASSES}
    else:
        from ray.rllib.algorithms.impala import IMPALAConfig

        config, extra = IMPALAConfig(), {}
    config = (config.environment(ENV_ID)
              .env_runners(num_env_runners=workers, num_envs_per_env_runner=envs,
                           num_cpus_per_env_runner=rllib_runs.RUNNER_CPUS, rollout_fragment_length=fragment)
              .learners(num_learners=RLLIB_LEARNERS, num_cpus_per_learner=1)
              .rl_module(model_config=rllib_runs.model_config(hidden, activation, vf_share_layers=False))
              .training(train_batch_size_per_learner=fragment * envs, gamma=ours["discount"],
                        lr=optimizer["learning_rate"], grad_clip=optimizer["clip_grad_norm"],
                        grad_clip_by="global_norm", vf_loss_coeff=loss["value_weight"],
                        entropy_coeff=loss["entropy_weight"], vtrace_clip_rho_threshold=loss["clip_rho_threshold"],
                        vtrace_clip_pg_rho_threshold=loss["clip_pg_rho_threshold"], **extra))
    return rllib_runs.rllib_reporting(config, seed)


def maker(name: str, workers: int, envs: int) -> Callable[[int], Any]:
    from rlworkbench.execution.ray.plans import PLANS

    if name in ("impala", "appo"):
        config, settings = impala_config(), dict[str, Any]()
        if name == "appo":
            config["loss"]["clip_ratio"], settings["passes"] = CLIP, PASSES
        return lambda seed: PlanContender(PLANS[name], config, ENV_ID, workers, envs, seed, **settings)
    if name in ("rllib_impala", "rllib_appo"):
        return lambda seed: RLlibRun(name, rllib_config(name, workers, envs, seed), ENV_ID)
    raise ValueError(f"unknown contender {name!r} (known: {', '.join(CONTENDERS)})")


FAMILY = Family("impala_vs_rllib", CONTENDERS, BASELINE, THRESHOLD, maker,
                targets={"impala": ("frames_ratio", TARGET)},
                columns={"env": ENV_ID, "passes": PASSES},
                learner_actor=("rllib_impala", "rllib_appo"))


def main(argv: Sequence[str] | None = None) -> Any:
    parser = rllib_runs.arg_parser(FAMILY, __doc__.splitlines()[0], DATASET_DIR / "impala_vs_rllib.csv", 300_000)
    args = parser.parse_args(argv)
    ours = impala_config()
    FAMILY.columns.update(hidden="-".join(map(str, rllib_runs.mlp_layers(ours["policy"]["network"])[0])),
                          fragment_length=int(ours["update"]["rollout_length"]))
    return rllib_runs.run_family(
        FAMILY, args, lambda contenders: RLLIB_LEARNERS if set(contenders) & set(FAMILY.learner_actor) else 0,
        f"IMPALA and APPO vs RLlib: {ENV_ID}, MLPs 64-64 tanh, fragments of 20")


if __name__ == "__main__":
    main()
