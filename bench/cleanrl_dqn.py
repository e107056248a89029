"""The second reference of ``bench.train_overhead``: DQN written the way CleanRL's ``dqn.py`` is, independently of
:mod:`bench.hand_dqn`.

One flat loop over a plain ``gymnasium.vector.SyncVectorEnv`` made here (same-step autoreset, so the true final
observations come in ``infos``), a ``QNetwork`` of ``nn.Sequential``, ``optim.Adam``, a NumPy ring buffer with
``pos``/``full`` as Stable-Baselines3's, ``linear_schedule`` for epsilon, no input checks and no numerical guard.
The algorithm is the one both contenders share (:class:`bench.hand_dqn.Settings`: double-Q targets, Huber loss,
norm clipping, hard target copies; updates owed per env step counted the same way, so every loop makes the same
number of updates). Prioritized replay, which CleanRL's DQN does not have, is the plainest correct form: priorities
in a flat array, ``np.searchsorted`` on their cumulative sum per batch, the minimum read from the array — O(N) per
batch where :mod:`bench.hand_dqn` keeps trees.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from gymnasium.vector import AutoresetMode
from torch import nn, optim

from bench.hand_dqn import Settings


def make_env(env_id: str, num_envs: int, seed: int) -> gym.vector.SyncVectorEnv:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make(env_id) for _ in range(num_envs)],
                                    autoreset_mode=AutoresetMode.SAME_STEP)
    envs.action_space.seed(seed)
    return envs


class QNetwork(nn.Module):
    def __init__(self, envs: gym.vector.SyncVectorEnv, hidden: tuple[int, ...]):
        super().__init__()
        layers: list[nn.Module] = []
        width = int(np.prod(envs.single_observation_space.shape))
        for units in hidden:
            layers += [nn.Linear(width, units), nn.ReLU()]
            width = units
        self.network = nn.Sequential(*layers, nn.Linear(width, int(envs.single_action_space.n)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.network(x)


def linear_schedule(start_e: float, end_e: float, duration: int, t: int) -> float:
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


class ReplayBuffer:
    """Stable-Baselines3's layout: arrays of ``buffer_size``, ``pos`` and ``full``."""

    def __init__(self, buffer_size: int, obs_shape: tuple[int, ...], prioritized: bool, alpha: float):
        self.buffer_size, self.pos, self.full = buffer_size, 0, False
        self.observations = np.zeros((buffer_size, *obs_shape), dtype=np.float32)
        self.next_observations = np.zeros((buffer_size, *obs_shape), dtype=np.float32)
        self.actions = np.zeros(buffer_size, dtype=np.int64)
        self.rewards = np.zeros(buffer_size, dtype=np.float32)
        self.dones = np.zeros(buffer_size, dtype=np.float32)
        self.prioritized, self.alpha = prioritized, alpha
        self.priorities = np.zeros(buffer_size, dtype=np.float64)  # p ** alpha
        self.max_priority = 1.0

    def size(self) -> int:
        return self.buffer_size if self.full else self.pos

    def add(self, obs: np.ndarray, next_obs: np.ndarray, action: np.ndarray, reward: np.ndarray,
            done: np.ndarray) -> None:
        for i in range(len(obs)):
            self.observations[self.pos] = obs[i]
            self.next_observations[self.pos] = next_obs[i]
            self.actions[self.pos], self.rewards[self.pos], self.dones[self.pos] = action[i], reward[i], done[i]
            self.priorities[self.pos] = self.max_priority ** self.alpha
            self.pos += 1
            if self.pos == self.buffer_size:
                self.full, self.pos = True, 0

    def sample(self, batch_size: int, rng: np.random.Generator,
               beta: float) -> tuple[np.ndarray, np.ndarray | None]:
        size = self.size()
        if not self.prioritized:
            return rng.integers(0, size, size=batch_size), None
        priorities = self.priorities[:size]
        cumulative = np.cumsum(priorities)
        indices = np.minimum(np.searchsorted(cumulative, rng.random(batch_size) * cumulative[-1], side="right"),
                             size - 1)
        weights = (priorities[indices] / priorities.min()) ** -beta
        return indices, weights.astype(np.float32)

    def update_priorities(self, indices: np.ndarray, priorities: np.ndarray) -> None:
        self.max_priority = max(self.max_priority, float(priorities.max()))
        self.priorities[indices] = priorities ** self.alpha


class CleanRLDQN:
    """The loop; :meth:`run` takes ``steps`` more env steps. ``timesteps`` and ``updates`` as the other contenders."""

    def __init__(self, envs: gym.vector.SyncVectorEnv, settings: Settings, seed: int = 0):
        self.envs, self.args = envs, settings
        torch.manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self.q_network = QNetwork(envs, settings.hidden)
        self.optimizer = optim.Adam(self.q_network.parameters(), lr=settings.learning_rate)
        self.target_network = QNetwork(envs, settings.hidden)
        self.target_network.load_state_dict(self.q_network.state_dict())
        self.rb = ReplayBuffer(settings.capacity, envs.single_observation_space.shape, settings.prioritized,
                               settings.alpha)
        self.obs, _ = envs.reset(seed=seed)
        self.timesteps = self.updates = 0

    def run(self, steps: int) -> None:
        args, envs, rb = self.args, self.envs, self.rb
        end = self.timesteps + steps
        while self.timesteps < end:
            epsilon = linear_schedule(args.epsilon[0], args.epsilon[1], args.epsilon[2], self.timesteps)
            q_values = self.q_network(torch.Tensor(self.obs))
            actions = torch.argmax(q_values, dim=1).cpu().numpy()
            explore = self.rng.random(envs.num_envs) < epsilon
            actions = np.where(explore, self.rng.integers(0, envs.single_action_space.n, envs.num_envs), actions)
            next_obs, rewards, terminations, _truncations, infos = envs.step(actions)
            real_next_obs = next_obs.copy()
            if "final_obs" in infos:
                for idx in np.flatnonzero(infos["_final_obs"]):
                    real_next_obs[idx] = infos["final_obs"][idx]
            rb.add(self.obs, real_next_obs, actions, rewards, terminations)
            self.obs = next_obs
            self.timesteps += envs.num_envs
            owed = (self.timesteps - args.learning_starts) // args.update_interval + 1
            while self.timesteps >= args.learning_starts and self.updates < owed:
                self.train_step()

    def train_step(self) -> None:
        args, rb = self.args, self.rb
        indices, weights = rb.sample(args.batch_size, self.rng, args.beta)
        observations = torch.from_numpy(rb.observations[indices])
        next_observations = torch.from_numpy(rb.next_observations[indices])
        actions = torch.from_numpy(rb.actions[indices])
        rewards, dones = torch.from_numpy(rb.rewards[indices]), torch.from_numpy(rb.dones[indices])
        with torch.no_grad():
            best = self.q_network(next_observations).argmax(dim=1, keepdim=True)
            target_q = self.target_network(next_observations).gather(1, best).squeeze(1)
            td_target = rewards + args.discount * target_q * (1 - dones)
        old_val = self.q_network(observations).gather(1, actions.unsqueeze(1)).squeeze(1)
        losses = F.huber_loss(old_val, td_target, reduction="none")
        loss = (losses * torch.from_numpy(weights)).mean() if weights is not None else losses.mean()
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.q_network.parameters(), args.clip_grad_norm)
        self.optimizer.step()
        if weights is not None:
            rb.update_priorities(indices, (td_target - old_val).detach().abs().numpy() + args.priority_epsilon)
        self.updates += 1
        if self.updates % args.sync_interval == 0:
            self.target_network.load_state_dict(self.q_network.state_dict())


def make(env_id: str, num_envs: int, settings: Settings, seed: int) -> Any:
    return CleanRLDQN(make_env(env_id, num_envs, seed), settings, seed)
