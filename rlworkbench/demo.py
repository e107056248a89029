"""The demo: compose preprocessing → neural network → action selection for a real Gymnasium env, build it
from the env's spaces, push sampled inputs through the whole graph and through one sub-component, act in the
env, and print the component graph; then train the shipped DQN config on the env and print what it learned.

Run with ``make demo`` or ``python -m rlworkbench.demo [--train-timesteps N]``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import numpy as np

from rlworkbench import Component, api, build
from rlworkbench.components import GreedyActionSelector, NeuralNetwork, PreprocessorStack
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import IntBox, Space, from_gymnasium

if TYPE_CHECKING:
    from rlworkbench.execution.train import TrainResult


class QActor(Component):
    """Preprocessing → Q-network → greedy action: ``get_action(states)``, ``get_q_values(states)``."""

    def __init__(self, num_actions: int, hidden: tuple[int, ...] = (64, 64), **kwargs: object):
        self.preprocessor = PreprocessorStack([{"type": "clip", "low": -5.0, "high": 5.0},
                                               {"type": "divide", "divisor": 5.0}], name="preprocessor")
        layers = [{"type": "dense", "units": units, "activation": "relu"} for units in hidden]
        self.network = NeuralNetwork(layers + [{"type": "dense", "units": num_actions}], name="network")
        self.selector = GreedyActionSelector(name="selector")
        super().__init__(self.preprocessor, self.network, self.selector, **kwargs)

    @api
    def get_q_values(self, states: Tensor) -> Tensor:
        return self.network.apply(self.preprocessor.preprocess(states))

    @api
    def get_action(self, states: Tensor) -> Tensor:
        return self.selector.select(self.get_q_values(states))


def run(env_id: str = "CartPole-v1", backend: str = "torch", seed: int = 0, steps: int = 20) -> dict[str, object]:
    """Builds the actor for ``env_id`` and exercises it; returns what it saw (used by the tests)."""
    import gymnasium as gym

    env = gym.make(env_id)
    state_space: Space = from_gymnasium(env.observation_space, add_batch_rank=True)
    action_space = from_gymnasium(env.action_space)
    if not isinstance(action_space, IntBox) or action_space.num_categories is None:
        raise SystemExit(f"the demo needs a discrete action space; {env_id} has {action_space}")

    actor = QActor(action_space.num_categories, name="actor")
    executor = build(actor, {"states": state_space}, backend=backend, seed=seed)
    print(executor.summary(), end="\n\n")

    states = state_space.sample(8, seed=seed)
    actions = executor.execute("get_action", states)
    q_values = executor.execute("get_q_values", states)
    assert all(action_space.contains(a) for a in actions), actions
    print(f"whole graph: get_action on 8 sampled states -> {actions.tolist()}")

    preprocessed = executor.call("preprocessor", "preprocess", states)
    sub_q = executor.call("network", "apply", preprocessed)
    assert np.allclose(sub_q, q_values, atol=1e-6)
    print(f"sub-graph:   network.apply on the preprocessed states -> Q-values {sub_q.shape}, "
          f"equal to get_q_values: {np.allclose(sub_q, q_values, atol=1e-6)}")

    observation, _ = env.reset(seed=seed)
    episode_return, taken = 0.0, []
    for _ in range(steps):
        action = int(executor.execute("get_action", observation[None])[0])
        taken.append(action)
        observation, reward, terminated, truncated, _ = env.step(action)
        episode_return += float(reward)
        if terminated or truncated:
            break
    env.close()
    print(f"real env:    {len(taken)} greedy steps in {env_id}, return {episode_return:.1f} (untrained weights)")
    weights = executor.get_weights()
    print(f"weights:     {len(weights)} variables, {sum(w.size for w in weights.values()):,} values")
    return {"actions": actions, "q_values": q_values, "steps": len(taken), "graph": executor.graph}


def train_dqn(env_id: str = "CartPole-v1", backend: str = "torch", seed: int = 0, timesteps: int = 12_000,
              logdir: str = "runs") -> TrainResult:
    """Trains the shipped ``dqn_cartpole`` config (4 envs) and prints the summary table; returns the result."""
    from rlworkbench.execution import train

    print(f"\ntraining dqn_cartpole on {env_id} with {backend} for {timesteps:,} env steps (run dir under {logdir}/)")
    result = train("dqn_cartpole", env_id, backend=backend, timesteps=timesteps, logdir=logdir, num_envs=4, seed=seed)
    episodes = result.episodes
    print(result.summary_table())
    first, last = episodes["return"].head(10).mean(), episodes["return"].tail(10).mean()
    print(f"mean return: first 10 episodes {first:.1f} → last 10 episodes {last:.1f}  (run: {result.run_dir})")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="rlworkbench demo", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--backend", default="torch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-timesteps", type=int, default=12_000, help="0 skips the training part")
    parser.add_argument("--logdir", default="runs")
    args = parser.parse_args(argv)
    run(args.env, args.backend, args.seed)
    if args.train_timesteps > 0:
        train_dqn(args.env, args.backend, args.seed, args.train_timesteps, args.logdir)


if __name__ == "__main__":
    main()
