"""The baseline of ``bench.train_overhead``: DQN written by hand in plain PyTorch and NumPy, in CleanRL's style.

Everything rlworkbench's DQN agent does in a training step, and nothing more: epsilon-greedy acting on a vector
env, transitions into a NumPy ring buffer (the true final observation where an episode ended), one update per
``update_interval`` env steps from ``learning_starts`` on — uniform or prioritized (a NumPy sum/min tree) replay,
double-Q targets with a Huber loss, Adam with gradient-norm clipping — and a hard target sync every
``sync_interval`` updates. Episode returns are accounted per env, as a worker must.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn


@dataclass
class Settings:
    """The one set of hyper-parameters both contenders of ``bench.train_overhead`` use."""

    hidden: tuple[int, ...] = (256, 256)
    batch_size: int = 64
    learning_rate: float = 1e-3
    clip_grad_norm: float = 10.0
    discount: float = 0.99
    capacity: int = 100_000
    learning_starts: int = 1000
    update_interval: int = 4
    sync_interval: int = 100
    epsilon: tuple[float, float, int] = (1.0, 0.04, 5000)  # from, to, over env steps (linear)
    prioritized: bool = False
    alpha: float = 0.6
    beta: float = 0.4
    priority_epsilon: float = 1e-6

    def config(self) -> dict[str, Any]:
        """The same settings as an rlworkbench DQN config (1-step, double Q, Huber)."""
        start, end, steps = self.epsilon
        memory: dict[str, Any] = {"type": "replay_memory", "capacity": self.capacity}
        if self.prioritized:
            memory = {"type": "prioritized_replay", "capacity": self.capacity, "alpha": self.alpha,
                      "beta": self.beta, "priority_epsilon": self.priority_epsilon}
        return {"type": "dqn", "discount": self.discount,
                "policy": {"network": [{"type": "dense", "units": u, "activation": "relu"} for u in self.hidden]},
                "loss": {"double_q": True, "n_step": 1, "huber_loss": True},
                "memory": memory,
                "exploration": {"epsilon": {"type": "linear_decay", "from_value": start, "to_value": end,
                                            "end_time_step": steps}},
                "optimizer": {"type": "adam", "learning_rate": self.learning_rate,
                              "clip_grad_norm": self.clip_grad_norm},
                "update": {"batch_size": self.batch_size, "learning_starts": self.learning_starts,
                           "update_interval": self.update_interval, "gradient_steps": 1},
                "target": {"sync_interval": self.sync_interval, "tau": 1.0}}


def q_network(inputs: int, hidden: tuple[int, ...], actions: int) -> nn.Module:
    layers: list[nn.Module] = []
    for units in hidden:
        layers += [nn.Linear(inputs, units), nn.ReLU()]
        inputs = units
    return nn.Sequential(*layers, nn.Linear(inputs, actions))


class Replay:
    """A ring buffer of transitions in NumPy arrays, sampled uniformly."""

    def __init__(self, capacity: int, obs_shape: tuple[int, ...], rng: np.random.Generator):
        self.capacity, self.rng, self.index, self.size = capacity, rng, 0, 0
        self.states = np.zeros((capacity, *obs_shape), np.float32)
        self.next_states = np.zeros((capacity, *obs_shape), np.float32)
        self.actions = np.zeros(capacity, np.int64)
        self.rewards = np.zeros(capacity, np.float32)
        self.terminals = np.zeros(capacity, np.float32)

    def add(self, states: np.ndarray, actions: np.ndarray, rewards: np.ndarray, terminals: np.ndarray,
            next_states: np.ndarray) -> np.ndarray:
        slots = (self.index + np.arange(len(rewards))) % self.capacity
        self.states[slots], self.next_states[slots] = states, next_states
        self.actions[slots], self.rewards[slots], self.terminals[slots] = actions, rewards, terminals
        self.index = int((self.index + len(rewards)) % self.capacity)
        self.size = min(self.size + len(rewards), self.capacity)
        return slots

    def sample_slots(self, count: int) -> tuple[np.ndarray, np.ndarray | None]:
        return self.rng.integers(0, self.size, count), None

    def batch(self, slots: np.ndarray) -> tuple[np.ndarray, ...]:
        return (self.states[slots], self.actions[slots], self.rewards[slots], self.terminals[slots],
                self.next_states[slots])

    def update_priorities(self, slots: np.ndarray, priorities: np.ndarray) -> None:
        """Uniform replay keeps no priorities."""


class PrioritizedReplay(Replay):
    """Proportional prioritized replay on a NumPy sum tree and min tree (updates level by level, vectorised)."""

    def __init__(self, capacity: int, obs_shape: tuple[int, ...], rng: np.random.Generator, alpha: float,
                 beta: float):
        super().__init__(capacity, obs_shape, rng)
        self.alpha, self.beta, self.max_priority = alpha, beta, 1.0
        self.leaves = 1 << (capacity - 1).bit_length()
        self.sum_tree = np.zeros(2 * self.leaves, np.float64)
        self.min_tree = np.full(2 * self.leaves, np.inf)

    def add(self, *transition: np.ndarray) -> np.ndarray:
        slots = super().add(*transition)
        self._set(slots, np.full(len(slots), self.max_priority ** self.alpha))
        return slots

    def _set(self, slots: np.ndarray, powered: np.ndarray) -> None:
        nodes = slots + self.leaves
        self.sum_tree[nodes], self.min_tree[nodes] = powered, powered
        for _ in range(self.leaves.bit_length() - 1):
            nodes = np.unique(nodes // 2)
            self.sum_tree[nodes] = self.sum_tree[2 * nodes] + self.sum_tree[2 * nodes + 1]
            self.min_tree[nodes] = np.minimum(self.min_tree[2 * nodes], self.min_tree[2 * nodes + 1])

    def sample_slots(self, count: int) -> tuple[np.ndarray, np.ndarray | None]:
        remaining = self.rng.random(count) * self.sum_tree[1]
        nodes = np.ones(count, np.int64)
        while nodes[0] < self.leaves:
            left = 2 * nodes
            right = remaining >= self.sum_tree[left]
            remaining = np.where(right, remaining - self.sum_tree[left], remaining)
            nodes = np.where(right, left + 1, left)
        slots = nodes - self.leaves
        weights = (self.sum_tree[nodes] / self.min_tree[1]) ** -self.beta
        return slots, weights.astype(np.float32)

    def update_priorities(self, slots: np.ndarray, priorities: np.ndarray) -> None:
        self.max_priority = max(self.max_priority, float(priorities.max()))
        self._set(slots, priorities.astype(np.float64) ** self.alpha)


class HandDQN:
    """DQN on a vector env, by hand. :meth:`run` takes ``steps`` more env steps (acting, storing, learning)."""

    def __init__(self, env: Any, settings: Settings, seed: int = 0, device: str = "cpu"):
        self.env, self.settings, self.device = env, settings, torch.device(device)
        torch.manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        obs_shape = env.single_observation_space.shape
        self.num_actions = int(env.single_action_space.n)
        self.online = q_network(int(np.prod(obs_shape)), settings.hidden, self.num_actions).to(self.device)
        self.target = q_network(int(np.prod(obs_shape)), settings.hidden, self.num_actions).to(self.device)
        self.target.load_state_dict(self.online.state_dict())
        self.optimizer = torch.optim.Adam(self.online.parameters(), lr=settings.learning_rate)
        self.replay = (PrioritizedReplay(settings.capacity, obs_shape, self.rng, settings.alpha, settings.beta)
                       if settings.prioritized else Replay(settings.capacity, obs_shape, self.rng))
        self.timesteps = self.updates = self.episodes = 0
        self.returns = np.zeros(env.num_envs, np.float64)
        self.states, _ = env.reset(seed=seed)

    def epsilon(self) -> float:
        start, end, steps = self.settings.epsilon
        return start + (end - start) * min(self.timesteps / steps, 1.0)

    def act(self, states: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            greedy = self.online(torch.from_numpy(states).to(self.device)).argmax(1).cpu().numpy()
        explore = self.rng.random(len(states)) < self.epsilon()
        return np.where(explore, self.rng.integers(0, self.num_actions, len(states)), greedy)

    def run(self, steps: int) -> None:
        settings, env = self.settings, self.env
        end = self.timesteps + steps
        while self.timesteps < end:
            actions = self.act(self.states)
            observations, rewards, terminated, truncated, infos = env.step(actions)
            next_states = observations
            if "final_obs" in infos:  # SAME_STEP autoreset: the true final observation of ended episodes
                next_states = observations.copy()
                for row in np.flatnonzero(infos["_final_obs"]):
                    next_states[row] = infos["final_obs"][row]
            self.replay.add(self.states, actions, rewards, terminated, next_states)
            self.returns += rewards
            done = terminated | truncated
            if done.any():
                self.episodes += int(done.sum())
                self.returns[done] = 0.0
            self.states = observations
            self.timesteps += env.num_envs
            rounds = (self.timesteps - settings.learning_starts) // settings.update_interval + 1
            while self.timesteps >= settings.learning_starts and self.updates < rounds:
                self.update(*self.sample())

    def sample(self) -> tuple[Any, ...]:
        slots, weights = self.replay.sample_slots(self.settings.batch_size)
        return (*self.replay.batch(slots), weights, slots)

    def update(self, states: np.ndarray, actions: np.ndarray, rewards: np.ndarray, terminals: np.ndarray,
               next_states: np.ndarray, weights: np.ndarray | None = None, slots: np.ndarray | None = None) -> float:
        """One gradient step on a batch of NumPy arrays (as a memory gives it); returns the loss."""
        s, s2, a, r, t = (torch.from_numpy(array).to(self.device)
                          for array in (states, next_states, actions, rewards, terminals))
        with torch.no_grad():
            best = self.online(s2).argmax(1, keepdim=True)
            target = r + self.settings.discount * (1.0 - t) * self.target(s2).gather(1, best).squeeze(1)
        q = self.online(s).gather(1, a.unsqueeze(1)).squeeze(1)
        td = target - q
        per_item = nn.functional.huber_loss(q, target, reduction="none")
        loss = (per_item * torch.from_numpy(weights).to(self.device)).mean() if weights is not None else per_item.mean()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.online.parameters(), self.settings.clip_grad_norm)
        self.optimizer.step()
        if self.settings.prioritized and slots is not None:
            self.replay.update_priorities(slots, td.detach().abs().cpu().numpy() + self.settings.priority_epsilon)
        self.updates += 1
        if self.updates % self.settings.sync_interval == 0:
            self.target.load_state_dict(self.online.state_dict())
        return float(loss.detach())
