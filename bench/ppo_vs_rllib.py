"""Synchronous PPO against RLlib's PPO: env frames/s sampled, samples/s trained and wall time to a greedy return of
475, CartPole-v1.

Run ``python -m bench.ppo_vs_rllib [--workers 1 2] [--envs-per-worker 4] [--timesteps N] [--solve-budget N]
[--repeats N] [--num-cpus K] [--out PATH.csv]`` (needs ``ray[rllib]``). Machinery, run phases, columns and medians
as in :mod:`bench.apex_vs_rllib` (shared in :mod:`bench.rllib_runs`).

Contenders, one after the other in one local Ray session, each with W sampling workers of E envs, CartPole-v1, the
shipped ``ppo_cartpole`` agent: a policy MLP 4-64-64 tanh and a separate value MLP 4-64-64 tanh, rollouts of 32
steps per env, so 32 x W x E samples per update, learnt in 20 epochs of one minibatch, Adam 1e-3 clipped at global
norm 0.5, clip 0.2, no value clipping, GAE lambda 0.8, discount 0.98, value weight 0.5, no entropy bonus, advantages
normalised, no KL penalty:

- ``sync_ppo``: rlworkbench's synchronous PPO plan (:mod:`rlworkbench.execution.ray.plans.sync_ppo`): W sampler
  actors (1 CPU each) all sample, the learner in this process updates once on what they gathered and broadcasts.
- ``rllib_ppo``: RLlib's ``PPOConfig`` (new API stack) with the same env runners (1 CPU each), networks
  (``vf_share_layers`` False), ``rollout_fragment_length`` 32, ``train_batch_size_per_learner`` and
  ``minibatch_size`` 32 x W x E, ``num_epochs`` 20 and the same loss and optimiser settings (``use_kl_loss``
  False, ``vf_clip_param`` inf); the learner local (``num_learners=0``), in this process like ours. The baseline.
- ``local_ppo``: the reference, rlworkbench's single-process PPO: the same agent in a
  :class:`~rlworkbench.execution.Worker` on one vector env of W x E CartPoles, no Ray.

Target (issue 31): ``sync_ppo`` **frames_ratio >= 2** against RLlib's PPO at equal workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import rllib_runs
from bench.rllib_runs import Family, LocalContender, PlanContender, RLlibRun

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"
ENV_ID = "CartPole-v1"
AGENT_CONFIG = "ppo_cartpole"
THRESHOLD = 475.0
CONTENDERS = ("sync_ppo", "rllib_ppo", "local_ppo")
BASELINE = "rllib_ppo"
TARGET = 2.0


def ppo_config() -> dict[str, Any]:
    """The shipped CartPole PPO agent config (defaults filled)."""
    from rlworkbench.agents.config import builtin_config

    return builtin_config(AGENT_CONFIG)


def rllib_ppo_config(workers: int, envs: int, seed: int) -> Any:
    """RLlib's PPO with our agent config's settings (see the module docstring)."""
    from ray.rllib.algorithms.ppo import PPOConfig

    ours = ppo_config()
    policy, loss, optimizer, update = ours["policy"], ours["loss"], ours["optimizer"], ours["update"]
    if policy["value_network"] != policy["network"] or loss["value_clip"] is not None or update["target_kl"]:
        raise ValueError("the shipped PPO config changed in a way RLlib's settings here do not follow")
    hidden, activation = rllib_runs.mlp_layers(policy["network"])
    length = int(update["rollout_length"])
    batch = length * workers * envs
    config = (PPOConfig().environment(ENV_ID)
              .env_runners(num_env_runners=workers, num_envs_per_env_runner=envs,
                           num_cpus_per_env_runner=rllib_runs.RUNNER_CPUS, rollout_fragment_length=length)
              .learners(num_learners=0)
              .rl_module(model_config=rllib_runs.model_config(hidden, activation, vf_share_layers=False))
              .training(train_batch_size_per_learner=batch, minibatch_size=batch // update["num_minibatches"],
                        num_epochs=update["num_epochs"], gamma=ours["discount"], lambda_=loss["gae_lambda"],
                        lr=optimizer["learning_rate"], grad_clip=optimizer["clip_grad_norm"],
                        grad_clip_by="global_norm", clip_param=loss["clip_ratio"], vf_clip_param=float("inf"),
                        vf_loss_coeff=loss["value_weight"], entropy_coeff=loss["entropy_weight"],
                        use_kl_loss=False))
    return rllib_runs.rllib_reporting(config, seed)


def maker(name: str, workers: int, envs: int) -> Callable[[int], Any]:
    from rlworkbench.execution.ray.plans import SYNC_PPO

    if name == "sync_ppo":
        return lambda seed: PlanContender(SYNC_PPO, ppo_config(), ENV_ID, workers, envs, seed)
    if name == "rllib_ppo":
        return lambda seed: RLlibRun(name, rllib_ppo_config(workers, envs, seed), ENV_ID)
    if name == "local_ppo":
        return lambda seed: LocalContender(ppo_config(), ENV_ID, workers, envs, seed)
    raise ValueError(f"unknown contender {name!r} (known: {', '.join(CONTENDERS)})")


FAMILY = Family("ppo_vs_rllib", CONTENDERS, BASELINE, THRESHOLD, maker, targets={"sync_ppo": ("frames_ratio", TARGET)},
                columns={"env": ENV_ID})


def main(argv: Sequence[str] | None = None) -> Any:
    parser = rllib_runs.arg_parser(FAMILY, __doc__.splitlines()[0], DATASET_DIR / "ppo_vs_rllib.csv", 200_000)
    args = parser.parse_args(argv)
    ours = ppo_config()
    FAMILY.columns.update(hidden="-".join(map(str, rllib_runs.mlp_layers(ours["policy"]["network"])[0])),
                          rollout_length=int(ours["update"]["rollout_length"]),
                          num_epochs=int(ours["update"]["num_epochs"]))
    return rllib_runs.run_family(FAMILY, args, lambda contenders: 0,
                                 f"Synchronous PPO vs RLlib: {ENV_ID}, MLPs 64-64 tanh")


if __name__ == "__main__":
    main()
