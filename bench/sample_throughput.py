"""Sample throughput: env frames/s of one worker acting in CartPole-v1, 8 envs, against a bare loop and RLlib.

Run ``python -m bench.sample_throughput [--repeats N] [--timesteps N] [--no-rllib] [--out PATH.csv]``.

Contenders (same process, one torch thread, CartPole-v1 x 8 in a gymnasium ``SyncVectorEnv``, an MLP 4-64-64-2):

- ``ours``: :class:`~rlworkbench.execution.Worker` with a DQN agent (``dqn_cartpole`` with a 64-64 relu network,
  torch backend) acting only: ``worker.run(timesteps=N, explore=False, learn=False)`` — greedy actions through the
  executor, autoreset reading and per-env episode accounting included.
- ``bare``: the same vector env (``make_vector_env``, same autoreset mode) stepped by a hand-written loop: an
  ``nn.Sequential`` 4-64-64-2 forward under ``torch.no_grad`` + ``argmax``, nothing else.
- ``rllib``: RLlib's new-API-stack ``SingleAgentEnvRunner`` built locally (no Ray cluster) from
  ``PPOConfig().environment("CartPole-v1").env_runners(num_envs_per_env_runner=8)`` with a 64-64 MLP,
  ``runner.sample(num_timesteps=N, explore=False)`` (its episodes are collected and returned: that is its job).

Rounds are interleaved (A,B,C / C,B,A / …); one round of a contender samples ``--timesteps`` env frames. Figures
are medians of frames/s over rounds; ``ratio`` = ours / contender (targets: >= 0.75x bare, >= 2x RLlib),
``paired_ratio`` the median of per-round ratios.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import common

ENV_ID = "CartPole-v1"
NUM_ENVS = 8
HIDDEN = (64, 64)
SEED = 0
TARGETS = {"bare": 0.75, "rllib": 2.0}


def ours(timesteps: int) -> Callable[[], int]:
    from rlworkbench.agents import builtin_config
    from rlworkbench.execution.envs import make_vector_env
    from rlworkbench.execution.train import agent_from_env
    from rlworkbench.execution.worker import Worker

    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": units, "activation": "relu"} for units in HIDDEN]
    env = make_vector_env(ENV_ID, NUM_ENVS, "sync", SEED)
    agent = agent_from_env(env, config, backend="torch", seed=SEED)
    worker = Worker(agent, env, seed=SEED, progress=False, log_every=10**12)

    def sample() -> int:
        before = worker.timesteps
        worker.run(timesteps=timesteps, explore=False, learn=False)
        return worker.timesteps - before

    return sample


def bare(timesteps: int) -> Callable[[], int]:
    import torch
    from torch import nn

    from rlworkbench.execution.envs import make_vector_env

    env = make_vector_env(ENV_ID, NUM_ENVS, "sync", SEED)
    torch.manual_seed(SEED)
    net = nn.Sequential(nn.Linear(4, HIDDEN[0]), nn.ReLU(), nn.Linear(HIDDEN[0], HIDDEN[1]), nn.ReLU(),
                        nn.Linear(HIDDEN[1], 2)).eval()
    state = {"obs": env.reset(seed=SEED)[0]}

    def sample() -> int:
        obs, done = state["obs"], 0
        while done < timesteps:
            with torch.no_grad():
                actions = net(torch.from_numpy(obs)).argmax(dim=1).numpy()
            obs, _, _, _, _ = env.step(actions)
            done += NUM_ENVS
        state["obs"] = obs
        return done

    return sample


def rllib(timesteps: int) -> Callable[[], int]:
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    config = (PPOConfig().environment(ENV_ID)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=NUM_ENVS)
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=list(HIDDEN), fcnet_activation="relu"))
              .debugging(seed=SEED))
    runner = SingleAgentEnvRunner(config=config)

    def sample() -> int:
        episodes = runner.sample(num_timesteps=timesteps, explore=False)
        return sum(len(episode) for episode in episodes)

    return sample


def measure(rounds: int, timesteps: int, with_rllib: bool) -> tuple[list[dict[str, Any]], dict[str, str]]:
    makers = {"ours": ours, "bare": bare}
    failures: dict[str, str] = {}
    if with_rllib:
        try:
            makers["rllib"] = rllib
            samplers = {name: make(timesteps) for name, make in makers.items()}
        except Exception as error:  # RLlib's API moves: report, measure the rest
            failures["rllib"] = f"{type(error).__name__}: {error}"
            makers.pop("rllib")
            samplers = {name: make(timesteps) for name, make in makers.items()}
    else:
        samplers = {name: make(timesteps) for name, make in makers.items()}
    for sample in samplers.values():  # warm-up (first forward passes, RLlib's connectors)
        sample()

    def contender(sample: Callable[[], int]) -> Callable[[], float]:
        def timed() -> float:
            start = time.perf_counter_ns()
            frames = sample()
            return frames / ((time.perf_counter_ns() - start) / 1e9)
        return timed

    samples = common.interleaved({name: contender(fn) for name, fn in samplers.items()}, rounds)
    medians = {name: common.median(values) for name, values in samples.items()}
    rows = [{"benchmark": "sample_throughput", "contender": name, "env": ENV_ID, "num_envs": NUM_ENVS,
             "hidden": "-".join(map(str, HIDDEN)), "frames_per_round": timesteps, "repeats": rounds,
             "median_frames_per_s": medians[name], "min_frames_per_s": float(np.min(samples[name])),
             "max_frames_per_s": float(np.max(samples[name]))} for name in samplers]
    for row in rows:
        name = row["contender"]
        if name == "ours":
            continue
        ratio = medians["ours"] / medians[name]
        row |= {"ratio": ratio, "paired_ratio": common.paired_ratio(samples["ours"], samples[name]),
                "target": f"ours/{name} >= {TARGETS[name]:g}", "meets_target": ratio >= TARGETS[name]}
    return rows, failures


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "sample_throughput.csv", 15,
                               "measurement rounds (each contender)")
    parser.add_argument("--timesteps", type=int, default=4000, help="env frames per round and contender")
    parser.add_argument("--no-rllib", action="store_true", help="skip RLlib (ours vs bare only)")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        rows, failures = measure(args.repeats, args.timesteps, not args.no_rllib)
        frame = common.results_frame(rows)
    if "ray" in __import__("sys").modules:
        import ray

        frame = frame.assign(ray=ray.__version__)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        columns = ["contender", "median_frames_per_s", "min_frames_per_s", "max_frames_per_s"]
        columns += [c for c in ("ratio", "paired_ratio", "target", "meets_target") if c in frame.columns]
        common.print_table(f"Sample throughput: {ENV_ID} x {NUM_ENVS}, MLP 4-64-64-2, one worker (env frames/s, "
                           f"medians; ratio = ours / contender)", frame, columns, path)
        for name, message in failures.items():
            print(f"{name} failed: {message}")
    return frame


if __name__ == "__main__":
    main()
