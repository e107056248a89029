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
   ``time_to_450_s`` is the wall time from the end of the build to the check that saw it, greedy checks not counted
   (NaN when not within N; checked alike for all). Ape-X's actors finish starting inside that clock, RLlib's before
   it (``build_algo`` waits for its env runners).

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
expected key raises :class:`RLlibError` (its RLlib version in the message); nothing is skipped.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import math
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"
ENV_ID = "CartPole-v1"
AGENT_CONFIG = "dqn_dueling_per_cartpole"
HIDDEN = (256, 256)
HEAD_UNITS = (128,)  # the dueling value/advantage streams (ours: value_units/advantage_units; RLlib: head_fcnet)
BATCH = 64
N_STEP = 3
RUNNER_CPUS = 1.0  # per Ape-X sampler and per RLlib env runner
APPO_LEARNERS = 1
STEP_FRAMES = 1000  # env frames per advance (and per threshold check) of every contender
THRESHOLD = 450.0
WINDOW = 20
EVAL_EPISODES = 5  # greedy episodes per solve check (--solve-on greedy)
EVAL_EVERY = 2000  # env frames between greedy solve checks
SOLVE_ON = ("greedy", "training")
SEED = 0
CONTENDERS = ("apex", "rllib_dqn", "rllib_appo", "local_dqn")
BASELINE = "rllib_dqn"
TARGET = 2.85

# RLlib 2.60's result dict (new API stack), as paths of nested keys
SAMPLED_KEY = ("env_runners", "num_env_steps_sampled_lifetime")
TRAINED_KEY = ("learners", "__all_modules__", "num_env_steps_trained_lifetime")
RETURN_KEY = ("env_runners", "episode_return_mean")
EPISODES_KEY = ("env_runners", "num_episodes_lifetime")


class RLlibError(RuntimeError):
    """An RLlib contender failed (its API moved, a setting was refused, a result key is gone)."""


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


def last_mean(returns: Any) -> float:
    """Mean of the last WINDOW episode returns; NaN before WINDOW episodes ended."""
    values = np.asarray(returns, dtype=np.float64)
    return float(values[-WINDOW:].mean()) if len(values) >= WINDOW else float("nan")


# ----- contenders: advance(), frames, trained, recent_return(), close() ------------------------------------------
class ApexRun:
    def __init__(self, workers: int, envs: int, seed: int):
        from rlworkbench.agents import Agent
        from rlworkbench.execution.ray import PlanRun
        from rlworkbench.execution.ray.plans import APEX

        agent = Agent.from_env(ENV_ID, dqn_config(), backend="torch", seed=seed)
        self.apex = PlanRun(APEX, agent, ENV_ID, {"workers": workers, "envs_per_worker": envs,
                                                  "sampler_cpus": RUNNER_CPUS}, seed=seed)
        self.settings = self.apex.settings

    def advance(self) -> None:
        self.apex.train(self.apex.timesteps + STEP_FRAMES)

    @property
    def frames(self) -> int:
        return int(self.apex.timesteps)

    @property
    def trained(self) -> int:
        return int(self.apex.agent.updates) * BATCH

    def recent_return(self) -> float:
        """The least exploring sampler's last-20 mean (the best of the workers'): Ape-X's samplers act with fixed
        epsilons 0.4 ... 0.4 ** 8, so the mix of all understates the policy where RLlib's DQN decays its one
        epsilon to 0.04. A single worker acts with 0.4 only."""
        episodes = self.apex.episodes
        workers = episodes.groupby(episodes["env_id"] // self.apex.envs_per_worker)["return"]
        means = [last_mean(returns) for _, returns in workers]
        return max((mean for mean in means if not np.isnan(mean)), default=float("nan"))

    def greedy_return(self, episodes: int, seed: int) -> float:
        return float(self.apex.evaluate(episodes, seed=seed)["return"].mean())

    def close(self) -> None:
        self.apex.close()


class LocalRun:
    def __init__(self, workers: int, envs: int, seed: int):
        from rlworkbench.agents import Agent
        from rlworkbench.execution import Worker, make_vector_env

        env = make_vector_env(ENV_ID, num_envs=workers * envs, seed=seed)
        agent = Agent.from_env(ENV_ID, dqn_config(), backend="torch", seed=seed).build()
        self.worker = Worker(agent, env, seed=seed, progress=False, log_every=10**12)

    def advance(self) -> None:
        self.worker.run(timesteps=STEP_FRAMES)

    @property
    def frames(self) -> int:
        return int(self.worker.timesteps)

    @property
    def trained(self) -> int:
        return int(self.worker.agent.updates) * BATCH

    def recent_return(self) -> float:
        return last_mean(self.worker.book.episodes()["return"])

    def greedy_return(self, episodes: int, seed: int) -> float:
        from rlworkbench.execution import evaluate_greedy

        return float(evaluate_greedy(self.worker.agent, ENV_ID, episodes, seed=seed)["return"].mean())

    def close(self) -> None:
        self.worker.env.close()


def result_value(result: dict[str, Any], path: tuple[str, ...], name: str) -> float:
    """The number at ``path`` in an RLlib result dict; an RLlibError naming the keys there if it is not."""
    node: Any = result
    for depth, key in enumerate(path):
        if not isinstance(node, dict) or key not in node:
            import ray

            where = "/".join(path[:depth]) or "the result"
            keys = sorted(node) if isinstance(node, dict) else type(node).__name__
            raise RLlibError(f"{name}: RLlib {ray.__version__} result has no {'/'.join(path)!r} (keys under "
                             f"{where}: {keys})")
        node = node[key]
    return float(node)


class RLlibRun:
    def __init__(self, name: str, config: Any, expect_ratio: float | None = None):
        self.name, self.expect_ratio = name, expect_ratio
        self.result: dict[str, Any] = {}
        try:
            self.algo = config.build_algo()
        except Exception as error:
            import ray

            raise RLlibError(f"{name}: RLlib {ray.__version__} could not build the algorithm: "
                             f"{type(error).__name__}: {error}") from error

    def advance(self) -> None:
        before = self.frames
        self.result = self.algo.train()
        if self.frames <= before:
            raise RLlibError(f"{self.name}: algo.train() sampled nothing ({'/'.join(SAMPLED_KEY)} stayed {before})")

    @property
    def frames(self) -> int:
        return int(result_value(self.result, SAMPLED_KEY, self.name)) if self.result else 0

    @property
    def trained(self) -> int:
        if "learners" not in self.result:  # no update yet
            return 0
        return int(result_value(self.result, TRAINED_KEY, self.name))

    def recent_return(self) -> float:
        if not self.result or result_value(self.result, EPISODES_KEY, self.name) < WINDOW:
            return float("nan")
        return result_value(self.result, RETURN_KEY, self.name)

    def greedy_return(self, episodes: int, seed: int) -> float:
        """The learner's current weights acting greedily (RLModule ``forward_inference``: DQN's ``actions``, APPO's
        ``action_dist_inputs`` argmax) on a gymnasium env of its own."""
        import gymnasium as gym
        import torch

        module = self.algo.get_module()
        learned = self.algo.learner_group.get_weights()
        learned = learned.get("default_policy", learned)
        own = module.state_dict()
        missing = [key for key in own if key not in learned]
        if missing:
            raise RLlibError(f"{self.name}: the learner's weights lack the acting module's {missing[:4]}")
        module.load_state_dict({key: torch.tensor(np.array(learned[key])) for key in own})
        env = gym.make(ENV_ID)
        returns = []
        try:
            for episode in range(episodes):
                obs, _ = env.reset(seed=seed + episode)
                total, done = 0.0, False
                while not done:
                    with torch.no_grad():
                        out = module.forward_inference({"obs": torch.as_tensor(obs[None], dtype=torch.float32)})
                    action = out["actions"] if "actions" in out else out["action_dist_inputs"].argmax(-1)
                    obs, reward, terminated, truncated, _ = env.step(int(action[0]))
                    total, done = total + float(reward), terminated or truncated
                returns.append(total)
        finally:
            env.close()
        return float(np.mean(returns))

    def close(self) -> None:
        self.algo.stop()


def model_config(**extra: Any) -> Any:
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    return DefaultModelConfig(fcnet_hiddens=list(HIDDEN), fcnet_activation="relu", **extra)


def rllib_dqn_config(workers: int, envs: int, seed: int) -> Any:
    """RLlib's DQN with our agent config's settings (see the module docstring)."""
    from ray.rllib.algorithms.dqn import DQNConfig

    ours = dqn_config()
    update, memory, target = ours["update"], ours["memory"], ours["target"]
    epsilon, optimizer = ours["exploration"]["epsilon"], ours["optimizer"]
    # RLlib's native ratio counts W + 1 sampling runners; only the W remote ones sample
    intensity = replay_ratio(ours) * workers / (workers + 1)
    return (DQNConfig().environment(ENV_ID)
            .env_runners(num_env_runners=workers, num_envs_per_env_runner=envs, num_cpus_per_env_runner=RUNNER_CPUS)
            .learners(num_learners=0)
            .rl_module(model_config=model_config(head_fcnet_hiddens=list(HEAD_UNITS), head_fcnet_activation="relu"))
            .training(train_batch_size_per_learner=BATCH, n_step=N_STEP, double_q=True, dueling=True,
                      gamma=ours["discount"], lr=optimizer["learning_rate"], grad_clip=optimizer["clip_grad_norm"],
                      grad_clip_by="global_norm", td_error_loss_fn="huber",
                      num_steps_sampled_before_learning_starts=update["learning_starts"],
                      target_network_update_freq=target["sync_interval"] * update["update_interval"]
                      // update["gradient_steps"], tau=target["tau"],
                      epsilon=[(0, epsilon["from_value"]), (epsilon["end_time_step"], epsilon["to_value"])],
                      training_intensity=intensity,
                      replay_buffer_config={"type": "PrioritizedEpisodeReplayBuffer", "capacity": memory["capacity"],
                                            "alpha": memory["alpha"], "beta": memory["beta"]})
            .reporting(metrics_num_episodes_for_smoothing=WINDOW, min_sample_timesteps_per_iteration=STEP_FRAMES,
                       min_time_s_per_iteration=None)
            .debugging(seed=seed))


def rllib_appo_config(workers: int, envs: int, seed: int) -> Any:
    from ray.rllib.algorithms.appo import APPOConfig

    return (APPOConfig().environment(ENV_ID)
            .env_runners(num_env_runners=workers, num_envs_per_env_runner=envs, num_cpus_per_env_runner=RUNNER_CPUS)
            .learners(num_learners=APPO_LEARNERS, num_cpus_per_learner=1)
            .rl_module(model_config=model_config())
            .training(train_batch_size_per_learner=BATCH, gamma=dqn_config()["discount"])
            .reporting(metrics_num_episodes_for_smoothing=WINDOW, min_sample_timesteps_per_iteration=STEP_FRAMES,
                       min_time_s_per_iteration=None)  # APPO's default is 10 s per train() call
            .debugging(seed=seed))


def maker(name: str, workers: int, envs: int) -> Callable[[int], Any]:
    if name == "apex":
        return lambda seed: ApexRun(workers, envs, seed)
    if name == "local_dqn":
        return lambda seed: LocalRun(workers, envs, seed)
    if name == "rllib_dqn":
        return lambda seed: RLlibRun(name, rllib_dqn_config(workers, envs, seed), replay_ratio(dqn_config()))
    if name == "rllib_appo":
        return lambda seed: RLlibRun(name, rllib_appo_config(workers, envs, seed))
    raise ValueError(f"unknown contender {name!r} (known: {', '.join(CONTENDERS)})")


# ----- one run ------------------------------------------------------------------------------------------------
def one_run(make: Callable[[int], Any], seed: int, warmup: int, timesteps: int, solve_budget: int,
            solve_on: str = "greedy") -> dict[str, Any]:
    """Builds a contender, warms it up, times a window of ``timesteps`` frames, then (``solve_budget``) trains on
    until the threshold or the budget; returns the run's figures. ``solve_on`` "greedy": the learner's policy is
    evaluated greedily every EVAL_EVERY frames outside the window, with the clock stopped; "training": the
    training episodes' last-20 mean, after every advance."""
    gc.collect()
    start = time.perf_counter()
    run = make(seed)
    built = time.perf_counter()
    solved: tuple[float, int] | None = None
    evaluated = {"seconds": 0.0, "next": EVAL_EVERY, "last": math.nan}

    def check(in_window: bool) -> None:
        nonlocal solved
        if not solve_budget or solved is not None:
            return
        if solve_on == "training":
            reached = run.recent_return() >= THRESHOLD
        elif in_window or run.frames < evaluated["next"]:
            return
        else:
            began = time.perf_counter()
            evaluated["last"] = run.greedy_return(EVAL_EPISODES, seed=10_000 + seed)
            evaluated["seconds"] += time.perf_counter() - began
            evaluated["next"] = run.frames + EVAL_EVERY
            reached = evaluated["last"] >= THRESHOLD
        if reached:
            solved = (time.perf_counter() - built - evaluated["seconds"], run.frames)

    try:
        while run.frames < warmup:
            run.advance()
            check(in_window=False)
        frames0, trained0, window0 = run.frames, run.trained, time.perf_counter()
        while run.frames < frames0 + timesteps:
            run.advance()
            check(in_window=True)
        seconds = time.perf_counter() - window0
        frames, trained = run.frames - frames0, run.trained - trained0
        check(in_window=False)
        while solve_budget and solved is None and run.frames < solve_budget:
            run.advance()
            check(in_window=False)
        final_return = run.recent_return()
    finally:
        run.close()
    expect = getattr(run, "expect_ratio", None)  # RLlib DQN: the replay ratio training_intensity should give
    if expect and frames0 >= dqn_config()["update"]["learning_starts"] and not (
            0.5 * expect <= trained / frames <= 2.0 * expect):
        raise RLlibError(f"{run.name}: trained {trained / frames:.2f} samples per sampled step in the window, "
                         f"expected ~{expect:g} (training_intensity no longer means what it did?)")
    return {"build_s": built - start, "frames_per_s": frames / seconds, "trained_per_s": trained / seconds,
            "window_frames": frames, "time_to_450_s": solved[0] if solved else math.nan,
            "steps_to_450": solved[1] if solved else math.nan, "frames_run": run.frames,
            "final_mean_return": final_return, "final_greedy_return": evaluated["last"],
            "eval_s": evaluated["seconds"]}


def median_or_nan(values: list[float]) -> float:
    """Median with NaN (a missed threshold) counted as infinitely slow; NaN if that is where the median lands."""
    value = common.median([math.inf if math.isnan(v) else v for v in values])
    return math.nan if math.isinf(value) else value


def ratio(a: float, b: float) -> float:
    return a / b if b and not (math.isnan(a) or math.isnan(b)) else math.nan


def measure(workers: list[int], envs: int, warmup: int, timesteps: int, solve_budget: int, repeats: int,
            contenders: list[str], report: Callable[[str], None], solve_on: str = "greedy") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for count in workers:
        makers = {name: maker(name, count, envs) for name in contenders}
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in contenders}
        for repeat in range(repeats):
            for name in contenders if repeat % 2 == 0 else reversed(contenders):
                runs[name].append(one_run(makers[name], SEED + repeat, warmup, timesteps, solve_budget, solve_on))
                last = runs[name][-1]
                solve = f", time to {THRESHOLD:g}: {last['time_to_450_s']:.1f} s" if solve_budget else ""
                report(f"  workers {count}, {name}, repeat {repeat}: {last['frames_per_s']:,.0f} frames/s, "
                       f"{last['trained_per_s']:,.0f} trained/s{solve}")
        for name in contenders:
            values = {key: [run[key] for run in runs[name]] for key in runs[name][0]}
            rows.append({
                "benchmark": "apex_vs_rllib", "contender": name, "workers": count, "envs_per_worker": envs,
                "env": ENV_ID, "hidden": "-".join(map(str, HIDDEN)), "batch_size": BATCH, "n_step": N_STEP,
                "warmup_frames": warmup, "frames_per_round": timesteps, "solve_budget": solve_budget,
                "threshold": THRESHOLD, "solve_on": solve_on, "window": WINDOW, "eval_episodes": EVAL_EPISODES,
                "eval_every": EVAL_EVERY, "repeats": repeats,
                "frames_per_s": common.median(values["frames_per_s"]),
                "frames_per_s_min": float(np.min(values["frames_per_s"])),
                "frames_per_s_max": float(np.max(values["frames_per_s"])),
                "trained_per_s": common.median(values["trained_per_s"]),
                "time_to_450_s": median_or_nan(values["time_to_450_s"]),
                "steps_to_450": median_or_nan(values["steps_to_450"]),
                "solved": int(sum(not math.isnan(v) for v in values["time_to_450_s"])) if solve_budget else 0,
                "final_mean_return": common.median(values["final_mean_return"]),
                "final_greedy_return": common.median(values["final_greedy_return"]),
                "eval_s": common.median(values["eval_s"]),
                "build_s": common.median(values["build_s"]),
                "learner": "actor" if name == "rllib_appo" else "driver", "runner_cpus": RUNNER_CPUS,
                "_frames": values["frames_per_s"]})
        by_name = {row["contender"]: row for row in rows if row["workers"] == count}
        base = by_name.get(BASELINE)
        for row in by_name.values():
            if base is not None:
                row |= {"frames_ratio": ratio(row["frames_per_s"], base["frames_per_s"]),
                        "frames_paired_ratio": common.paired_ratio(row["_frames"], base["_frames"]),
                        "trained_ratio": ratio(row["trained_per_s"], base["trained_per_s"]),
                        "time_ratio": ratio(row["time_to_450_s"], base["time_to_450_s"])}
            if row["contender"] == "apex":
                row |= {"target": f"frames_ratio >= {TARGET:g}",
                        "meets_target": bool(row["frames_ratio"] >= TARGET) if base is not None else None}
    for row in rows:
        del row["_frames"]
    return rows


@contextlib.contextmanager
def quiet_ray_logs(quiet: bool) -> Iterator[None]:
    """With ``quiet``, Ray's and RLlib's driver-side warnings are held back while the block runs."""
    logger = logging.getLogger("ray")
    level = logger.level
    if quiet:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "apex_vs_rllib.csv", 3,
                               "runs per contender and worker count (seeds 0, 1, ...; order flips every repeat)")
    parser.set_defaults(out=DATASET_DIR / "apex_vs_rllib.csv")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2],
                        help="sampling workers W to sweep (larger hosts: e.g. 1 2 4 8 with --num-cpus 9)")
    parser.add_argument("--envs-per-worker", type=int, default=4, help="envs per sampling worker (E)")
    parser.add_argument("--timesteps", type=int, default=10_000,
                        help="env frames in the timed throughput window of each run")
    parser.add_argument("--warmup", type=int, default=2000,
                        help="env frames before the window (past learning_starts 1000, so the learners run)")
    parser.add_argument("--solve-budget", type=int, default=100_000,
                        help=f"env frames a run may take to reach a mean return of {THRESHOLD:g} (0: no solve phase)")
    parser.add_argument("--solve-on", choices=SOLVE_ON, default="greedy",
                        help=f"greedy: the learner's policy, {EVAL_EPISODES} greedy episodes every {EVAL_EVERY} "
                             f"frames (clock stopped); training: the last {WINDOW} training episodes")
    parser.add_argument("--num-cpus", type=int, default=None,
                        help="CPUs of the local Ray session (default: max(--workers) + 1)")
    parser.add_argument("--contenders", nargs="+", default=list(CONTENDERS), choices=CONTENDERS,
                        help="which to run (default all; without rllib_dqn there are no ratios)")
    args = parser.parse_args(argv)
    if min(args.workers) < 1 or args.envs_per_worker < 1 or args.timesteps < 1:
        parser.error("--workers, --envs-per-worker and --timesteps must be >= 1")
    needed = max(args.workers) + (APPO_LEARNERS if "rllib_appo" in args.contenders else 0)
    num_cpus = args.num_cpus or max(args.workers) + 1
    report = (lambda line: None) if args.quiet else print

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # RLlib imports TensorFlow when it is installed
    import ray

    from rlworkbench.execution.ray import ensure_ray

    started = not ray.is_initialized()
    cpus = float(ensure_ray(num_cpus=num_cpus).get("CPU", 0))
    try:
        if cpus < needed:
            raise ValueError(f"the Ray session has {cpus:g} CPUs; the largest contender needs {needed} "
                             f"({max(args.workers)} sampling workers of {RUNNER_CPUS:g} CPU + APPO's learner)")
        with common.torch_threads(args.threads), quiet_ray_logs(args.quiet):
            rows = measure(sorted(set(args.workers)), args.envs_per_worker, args.warmup, args.timesteps,
                           args.solve_budget, args.repeats, list(args.contenders), report, args.solve_on)
            frame = common.results_frame(rows).assign(ray=ray.__version__, ray_cpus=cpus)
    finally:
        if started:
            ray.shutdown()
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        columns = ["workers", "contender", "frames_per_s", "trained_per_s", "time_to_450_s", "solved"]
        columns += [c for c in ("frames_ratio", "frames_paired_ratio", "trained_ratio", "time_ratio", "target",
                                "meets_target") if c in frame.columns]
        common.print_table(f"Ape-X vs RLlib: {ENV_ID}, {args.envs_per_worker} envs per worker, MLP "
                           f"{'-'.join(map(str, HIDDEN))}, batch {BATCH}, n-step {N_STEP}, {cpus:g} Ray CPUs, "
                           f"ray {ray.__version__} (medians; ratios = contender / {BASELINE})", frame, columns, path)
    return frame


if __name__ == "__main__":
    main()
