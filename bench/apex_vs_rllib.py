"""Ape-X against RLlib: env frames/s sampled, samples/s trained and wall time to a mean return of 450, CartPole-v1.

Run ``python -m bench.apex_vs_rllib [--workers 1 2] [--envs-per-worker 4] [--timesteps N] [--solve-budget N]
[--repeats N] [--num-cpus K] [--out PATH.csv]`` (needs ``ray[rllib]``).

Contenders, one after the other in one local Ray session (``ensure_ray(num_cpus=K)``, loopback only), each with W
sampling workers of E envs (``--workers``, ``--envs-per-worker``), CartPole-v1, a 4-256-256 relu torch MLP, batch
64, n-step 3, discount 0.99:

- ``apex``: rlworkbench's Ape-X (the ``apex`` plan (:mod:`rlworkbench.execution.ray.plans.apex`)): the shipped
  ``dqn_dueling_per_cartpole`` agent (dueling heads of 128, double Q, Huber loss, prioritized replay 100k, alpha
  0.6, beta 0.4, Adam 1e-3 clipped at norm 10, target copy every 100 updates, one update per 4 env steps from 1,000
  on) as the learner in this process; W sampler actors (``sampler_cpus`` 1) that prioritise their own n-step
  transitions and send them to the replay shards (``shards`` 2, actors of 0 CPUs; other settings Ape-X's defaults).
  Samplers act with Ape-X's per-worker epsilons (0.4 for a single worker, ``0.4 ** (1 + 7 i / (W - 1))`` for worker
  i of W), not the config's schedule.
- ``rllib_dqn``: RLlib's ``DQNConfig`` on the new API stack with the same settings: ``PrioritizedEpisodeReplayBuffer``
  (same capacity, alpha, beta), ``n_step`` 3, ``double_q``, ``dueling`` (``head_fcnet_hiddens`` [128]), Adam 1e-3,
  ``grad_clip`` 10, Huber loss, learning from 1,000 sampled steps, target update every 400 sampled steps (100
  updates), epsilon 1.0 -> 0.04 over 5,000 steps; ``num_env_runners`` W (1 CPU each), ``num_envs_per_env_runner``
  E, ``train_batch_size_per_learner`` 64, the learner local (``num_learners=0``, in this process, like Ape-X's).
  ``training_intensity`` gives it our replay ratio, 16 trained samples per sampled env step (one update of 64 per 4
  steps); RLlib divides by a sampling share of W + 1 runners although its local runner does not sample when there
  are remote ones, so the value passed is ``16 * W / (W + 1)`` (the run checks the ratio it got).
- ``rllib_appo``: RLlib's ``APPOConfig`` with the same env runners, MLP and ``train_batch_size_per_learner`` 64,
  otherwise APPO's defaults; one learner actor (``num_learners=1``, 1 CPU) since its asynchronous learner is what
  APPO is.
- ``local_dqn``: the reference, rlworkbench's single-process DQN: the same agent config in a
  :class:`~rlworkbench.execution.Worker` on one vector env of W x E CartPoles (``make_vector_env``), no Ray.

Resources: every sampling process (Ape-X sampler, RLlib env runner) reserves 1 CPU and runs torch on one thread;
the learners of Ape-X, RLlib DQN and the local DQN run in this process (torch pinned to ``--threads``, default 1),
APPO's in its learner actor (1 CPU). ``--num-cpus`` defaults to max(W) + 1 Ray CPUs, the most one contender asks
for; logical CPUs, so on a host with fewer cores the processes share them — on a 2-core machine W = 2 already
oversubscribes. On a larger host sweep further, e.g. ``--workers 1 2 4 8 --num-cpus 9`` (one more core than the
largest W, each sampling process then gets a core of its own and the learner one more).

One run per (W, contender, repeat): build (timed apart, ``build_s``), then advance in steps of about 1,000 env
frames (RLlib: one ``algo.train()``, ``min_sample_timesteps_per_iteration`` 1000; Ape-X: ``apex.train`` to 1,000
more frames; local: ``worker.run(timesteps=1000)``), and check whether the learner's policy reached 450: with
``--solve-on greedy`` (default) every 2,000 frames outside the timed window, its current weights play 5 greedy
episodes on an env of their own, the clock stopped (``greedy_return``); with ``--solve-on training`` the mean return
of the last 20 training episodes (RLlib: ``env_runners/episode_return_mean`` with
``metrics_num_episodes_for_smoothing`` 20) after every advance:

1. warm-up: ``--warmup`` frames (default 2,000: past ``learning_starts``, so the learners run in the window);
2. throughput window: ``--timesteps`` more frames; ``frames_per_s`` = frames sampled / seconds, ``trained_per_s``
   = samples trained (updates x batch; RLlib: ``learners/__all_modules__/num_env_steps_trained_lifetime``) /
   seconds, both over the whole window (the window ends at the first step boundary past its length);
3. with ``--solve-budget N`` > 0 the run goes on until the mean return reaches 450 or N frames were sampled in all:
   ``time_to_threshold_s`` is the wall time from the end of the build to the check that saw it, greedy checks not
   counted (NaN when not within N; checked alike for all). Ape-X's actors finish starting inside that clock,
   RLlib's before it (``build_algo`` waits for its env runners).

Contenders take turns in the order apex, rllib_dqn, rllib_appo, local_dqn and reversed on the next repeat; figures
are medians over repeats (seeds 0, 1, ...; a missed threshold counts as infinitely slow, so the median is NaN when
half or more missed). Ratios are against ``rllib_dqn`` at the same W, measured in the same run: ``frames_ratio``
and ``trained_ratio`` (higher is better), ``time_ratio`` (lower is better), ``frames_paired_ratio`` the median of
per-repeat ratios. Target (Ape-X rows): **frames_ratio >= 2.85** at equal workers. Read it beside
``trained_ratio``: Ape-X runs with its default ``max_updates_owed`` (100), so its samplers run ahead of the
learner's replay ratio by at most 100 updates — sampling and learning overlap but keep the config's ratio, as
RLlib's DQN does by alternating them (its frames/s is bound by its learner too). ``max_updates_owed=None`` would
let Ape-X's samplers run free as in the paper: more frames/s, fewer trained per frame. An RLlib contender that
fails to build or whose result dict lacks an
expected key raises :class:`~bench.rllib_runs.RLlibError` (its RLlib version in the message); nothing is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import rllib_runs
from bench.rllib_runs import Family, LocalContender, PlanContender, RLlibRun, last_mean

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"
ENV_ID = "CartPole-v1"
AGENT_CONFIG = "dqn_dueling_per_cartpole"
HIDDEN = (256, 256)
HEAD_UNITS = (128,)  # the dueling value/advantage streams (ours: value_units/advantage_units; RLlib: head_fcnet)
BATCH = 64
N_STEP = 3
APPO_LEARNERS = 1
THRESHOLD = 450.0
EVAL_EVERY = rllib_runs.EVAL_EVERY
CONTENDERS = ("apex", "rllib_dqn", "rllib_appo", "local_dqn")
BASELINE = "rllib_dqn"
TARGET = 2.85


# ----- the agent config both sides follow -----------------------------------------------------------------------
def dqn_config() -> dict[str, Any]:
    """The shipped dueling/PER CartPole DQN with the benchmark's settings made explicit."""
    from rlworkbench.agents.config import builtin_config

    config = builtin_config(AGENT_CONFIG)
    config["policy"].update(network=[{"type": "dense", "units": units, "activation": "relu"} for units in HIDDEN],
                            dueling=True, value_units=list(HEAD_UNITS), advantage_units=list(HEAD_UNITS))
    config["loss"].update(n_step=N_STEP, double_q=True, huber_loss=True)
    config["update"]["batch_size"] = BATCH
    return config


def replay_ratio(config: dict[str, Any]) -> float:
    """Samples trained per env step sampled under the config's update schedule (64 * 1 / 4 = 16)."""
    update = config["update"]
    return update["batch_size"] * update["gradient_steps"] / update["update_interval"]


# ----- contenders: advance(), frames, trained, recent_return(), close() ------------------------------------------
class ApexRun(PlanContender):
    def __init__(self, workers: int, envs: int, seed: int):
        from rlworkbench.execution.ray.plans import APEX

        super().__init__(APEX, dqn_config(), ENV_ID, workers, envs, seed,
                         trained=lambda run: int(run.agent.updates) * BATCH)

    def recent_return(self) -> float:
        """The least exploring sampler's last-20 mean (the best of the workers'): Ape-X's samplers act with fixed
        epsilons 0.4 ... 0.4 ** 8, so the mix of all understates the policy where RLlib's DQN decays its one
        epsilon to 0.04. A single worker acts with 0.4 only."""
        episodes = self.run.episodes
        workers = episodes.groupby(episodes["env_id"] // self.run.envs_per_worker)["return"]
        means = [last_mean(returns) for _, returns in workers]
        return max((mean for mean in means if not np.isnan(mean)), default=float("nan"))


def rllib_dqn_config(workers: int, envs: int, seed: int) -> Any:
    """RLlib's DQN with our agent config's settings (see the module docstring)."""
    from ray.rllib.algorithms.dqn import DQNConfig

    ours = dqn_config()
    update, memory, target = ours["update"], ours["memory"], ours["target"]
    epsilon, optimizer = ours["exploration"]["epsilon"], ours["optimizer"]
    # RLlib's native ratio counts W + 1 sampling runners; only the W remote ones sample
    intensity = replay_ratio(ours) * workers / (workers + 1)
    config = (DQNConfig().environment(ENV_ID)
              .env_runners(num_env_runners=workers, num_envs_per_env_runner=envs,
                           num_cpus_per_env_runner=rllib_runs.RUNNER_CPUS)
              .learners(num_learners=0)
              .rl_module(model_config=rllib_runs.model_config(HIDDEN, "relu", head_fcnet_hiddens=list(HEAD_UNITS),
                                                              head_fcnet_activation="relu"))
              .training(train_batch_size_per_learner=BATCH, n_step=N_STEP, double_q=True, dueling=True,
                        gamma=ours["discount"], lr=optimizer["learning_rate"], grad_clip=optimizer["clip_grad_norm"],
                        grad_clip_by="global_norm", td_error_loss_fn="huber",
                        num_steps_sampled_before_learning_starts=update["learning_starts"],
                        target_network_update_freq=target["sync_interval"] * update["update_interval"]
                        // update["gradient_steps"], tau=target["tau"],
                        epsilon=[(0, epsilon["from_value"]), (epsilon["end_time_step"], epsilon["to_value"])],
                        training_intensity=intensity,
                        replay_buffer_config={"type": "PrioritizedEpisodeReplayBuffer",
                                              "capacity": memory["capacity"], "alpha": memory["alpha"],
                                              "beta": memory["beta"]}))
    return rllib_runs.rllib_reporting(config, seed)


def rllib_appo_config(workers: int, envs: int, seed: int) -> Any:
    from ray.rllib.algorithms.appo import APPOConfig

    config = (APPOConfig().environment(ENV_ID)
              .env_runners(num_env_runners=workers, num_envs_per_env_runner=envs,
                           num_cpus_per_env_runner=rllib_runs.RUNNER_CPUS)
              .learners(num_learners=APPO_LEARNERS, num_cpus_per_learner=1)
              .rl_module(model_config=rllib_runs.model_config(HIDDEN, "relu"))
              .training(train_batch_size_per_learner=BATCH, gamma=dqn_config()["discount"]))
    return rllib_runs.rllib_reporting(config, seed)


def maker(name: str, workers: int, envs: int) -> Callable[[int], Any]:
    if name == "apex":
        return lambda seed: ApexRun(workers, envs, seed)
    if name == "local_dqn":
        return lambda seed: LocalContender(dqn_config(), ENV_ID, workers, envs, seed,
                                           trained=lambda worker: int(worker.agent.updates) * BATCH)
    if name == "rllib_dqn":
        config = dqn_config()
        return lambda seed: RLlibRun(name, rllib_dqn_config(workers, envs, seed), ENV_ID, replay_ratio(config),
                                     config["update"]["learning_starts"])
    if name == "rllib_appo":
        return lambda seed: RLlibRun(name, rllib_appo_config(workers, envs, seed), ENV_ID)
    raise ValueError(f"unknown contender {name!r} (known: {', '.join(CONTENDERS)})")


FAMILY = Family("apex_vs_rllib", CONTENDERS, BASELINE, THRESHOLD, maker, targets={"apex": ("frames_ratio", TARGET)},
                columns={"env": ENV_ID, "hidden": "-".join(map(str, HIDDEN)), "batch_size": BATCH, "n_step": N_STEP},
                learner_actor=("rllib_appo",))


def main(argv: Sequence[str] | None = None) -> Any:
    parser = rllib_runs.arg_parser(FAMILY, __doc__.splitlines()[0], DATASET_DIR / "apex_vs_rllib.csv", 100_000)
    args = parser.parse_args(argv)
    return rllib_runs.run_family(
        FAMILY, args, lambda contenders: APPO_LEARNERS if "rllib_appo" in contenders else 0,
        f"Ape-X vs RLlib: {ENV_ID}, MLP {'-'.join(map(str, HIDDEN))}, batch {BATCH}, n-step {N_STEP}")


if __name__ == "__main__":
    main()
