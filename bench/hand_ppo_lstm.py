"""The baseline of ``bench.ppo_lstm_update``: one recurrent PPO update written by hand in plain PyTorch and NumPy.

What rlworkbench's :class:`~rlworkbench.agents.recurrent_learning.RecurrentPPOAgent` does in ``update(batch)``,
written the way one writes it for a single experiment (CleanRL's ``ppo_atari_lstm`` style: ``nn.LSTM`` stepped one
step at a time, the state multiplied by ``1 - reset`` before the steps that begin an episode):

1. episode starts from the batch (a step starts an episode where its state is not the previous step's next state),
   hence ``continues`` and ``bootstraps`` per step;
2. one no-grad pass over the rollout ``(num_envs, length)`` from the zero state: log-probs, values and the LSTM
   state after every step; ``V(next_state)`` of the steps whose return bootstraps, each one LSTM step from the state
   after its step;
3. GAE in NumPy;
4. ``num_epochs`` x ``num_minibatches`` gradient steps, each on shuffled whole sequences of ``sequence_length``
   steps that start from the pass's state before their first step: the clipped surrogate, ``0.5 (V - target)^2``
   times ``value_weight``, the entropy bonus, advantages normalised per minibatch, ``backward()``,
   ``clip_grad_norm_``, Adam.

The network is the agent's ``dense(tanh) -> lstm -> {logits, value}`` with its weights (``weight = kernel.T``;
``weight_ih_l0 = kernel.T``, ``weight_hh_l0 = recurrent_kernel.T``, ``bias_ih_l0 = bias``, ``bias_hh_l0 = 0`` and
frozen: one bias, as the agent has). Sequences are cut and shuffled as the agent does (chunks environment by
environment, ``rng.permutation`` then ``np.array_split`` per epoch), so from the same weights and generator state
both make the same gradient steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn


@dataclass
class Settings:
    """The update's hyper-parameters (both contenders; :meth:`config_update` for the agent)."""

    units: int = 64
    discount: float = 0.98
    gae_lambda: float = 0.8
    clip_ratio: float = 0.2
    value_weight: float = 0.5
    entropy_weight: float = 0.0
    learning_rate: float = 1e-3
    clip_grad_norm: float = 0.5
    num_epochs: int = 4
    num_minibatches: int = 2
    sequence_length: int = 16


class HandPPOLSTM:
    """Recurrent PPO's update by hand; ``weights`` are the agent's (``policy/...`` names). ``cell``: step an
    ``nn.LSTMCell`` instead of a one-step ``nn.LSTM`` (same weights and maths; less Python per step)."""

    def __init__(self, weights: dict[str, np.ndarray], settings: Settings, rng_state: dict[str, Any],
                 cell: bool = False):
        self.settings = s = settings
        self.cell = cell
        kernel = weights["policy/network/dense_0/kernel"]
        obs, units = kernel.shape
        actions = weights["policy/action_adapter/dense/kernel"].shape[1]
        self.encoder = nn.Linear(obs, units)
        self.lstm: nn.Module = nn.LSTMCell(units, units) if cell else nn.LSTM(units, units)
        suffix = "" if cell else "_l0"
        self.lstm_params = {name: getattr(self.lstm, f"{name}{suffix}")
                            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
        self.actor, self.critic = nn.Linear(units, actions), nn.Linear(units, 1)
        with torch.no_grad():
            for linear, name in ((self.encoder, "network/dense_0"), (self.actor, "action_adapter/dense"),
                                 (self.critic, "value_head/dense_0")):
                linear.weight.copy_(torch.from_numpy(weights[f"policy/{name}/kernel"].T.copy()))
                linear.bias.copy_(torch.from_numpy(weights[f"policy/{name}/bias"]))
            lstm = self.lstm_params
            lstm["weight_ih"].copy_(torch.from_numpy(weights["policy/network/lstm_1/kernel"].T.copy()))
            lstm["weight_hh"].copy_(torch.from_numpy(weights["policy/network/lstm_1/recurrent_kernel"].T.copy()))
            lstm["bias_ih"].copy_(torch.from_numpy(weights["policy/network/lstm_1/bias"]))
            lstm["bias_hh"].zero_()
        self.lstm_params["bias_hh"].requires_grad_(False)
        modules = (self.encoder, self.lstm, self.actor, self.critic)
        self.params = [p for m in modules for p in m.parameters() if p.requires_grad]
        self.opt = torch.optim.Adam(self.params, lr=s.learning_rate, eps=1e-8)
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = rng_state
        self.units = units

    def weights(self) -> dict[str, np.ndarray]:
        """The weights under the agent's names (to compare)."""
        pairs = {"network/dense_0": self.encoder, "action_adapter/dense": self.actor, "value_head/dense_0": self.critic}
        out = {}
        for name, linear in pairs.items():
            out[f"policy/{name}/kernel"] = linear.weight.detach().numpy().T
            out[f"policy/{name}/bias"] = linear.bias.detach().numpy()
        out["policy/network/lstm_1/kernel"] = self.lstm_params["weight_ih"].detach().numpy().T
        out["policy/network/lstm_1/recurrent_kernel"] = self.lstm_params["weight_hh"].detach().numpy().T
        out["policy/network/lstm_1/bias"] = self.lstm_params["bias_ih"].detach().numpy()
        return out

    def unroll(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor,
               resets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """States ``(hs, cs)`` after every step, time-major ``(T, B, units)``, of ``x`` ``(B, T, obs)`` from
        ``(h, c)`` ``(B, units)``; ``resets`` ``(B, T)`` zeroes the state before a step."""
        z = torch.tanh(self.encoder(x)).transpose(0, 1)
        keep = (~resets).T.unsqueeze(-1).to(z.dtype)
        hs, cs = [], []
        if self.cell:
            for t in range(z.shape[0]):
                h, c = self.lstm(z[t], (h * keep[t], c * keep[t]))
                hs.append(h)
                cs.append(c)
            return torch.stack(hs), torch.stack(cs)
        h, c = h.unsqueeze(0), c.unsqueeze(0)
        for t in range(z.shape[0]):
            _, (h, c) = self.lstm(z[t:t + 1], (h * keep[t], c * keep[t]))
            hs.append(h[0])
            cs.append(c[0])
        return torch.stack(hs), torch.stack(cs)

    def heads(self, hs: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(log_probs, entropies, values)`` of time-major states ``hs`` and batch-major ``actions``."""
        logits = self.actor(hs).transpose(0, 1)
        log_all = torch.log_softmax(logits, -1)
        log_probs = log_all.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        entropies = -(log_all.exp() * log_all).sum(-1)
        return log_probs, entropies, self.critic(hs).squeeze(-1).transpose(0, 1)

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        s = self.settings
        states = np.asarray(batch["states"], np.float32)
        next_states = np.asarray(batch["next_states"], np.float32)
        actions_np, rewards = np.asarray(batch["actions"], np.int64), np.asarray(batch["rewards"], np.float32)
        terminals = np.asarray(batch["terminals"], bool)
        envs, length = rewards.shape
        resets = np.ones((envs, length), bool)
        resets[:, 1:] = (states[:, 1:] != next_states[:, :-1]).reshape(envs, length - 1, -1).any(-1)
        continues = ~terminals & np.append(~resets[:, 1:], np.zeros((envs, 1), bool), axis=1)
        bootstraps = ~terminals & ~continues
        x, actions, resets_t = torch.from_numpy(states), torch.from_numpy(actions_np), torch.from_numpy(resets)

        with torch.no_grad():
            zeros = torch.zeros(envs, self.units)
            hs, cs = self.unroll(x, zeros, zeros, resets_t)
            log_probs, _, values = (v.numpy() for v in self.heads(hs, actions))
            next_values = np.zeros((envs, length), np.float32)
            rows, steps = np.nonzero(bootstraps)
            if rows.size:
                after = (hs[steps, rows], cs[steps, rows])
                h, _ = self.unroll(torch.from_numpy(next_states[rows, steps][:, None]), *after,
                                   torch.zeros(rows.size, 1, dtype=torch.bool))
                next_values[rows, steps] = self.critic(h[0]).squeeze(-1).numpy()

        # GAE over each row; a step that does not continue ends its sequence (bootstraps folded into its reward)
        rewards = rewards + np.float32(s.discount) * next_values
        discounts = np.where(continues, np.float32(s.discount), np.float32(0.0))
        advantages = np.zeros((envs, length), np.float32)
        running = np.zeros(envs, np.float32)
        for t in reversed(range(length)):
            following = values[:, t + 1] if t + 1 < length else np.zeros(envs, np.float32)
            delta = rewards[:, t] + discounts[:, t] * following - values[:, t]
            running = delta + discounts[:, t] * np.float32(s.gae_lambda) * running
            advantages[:, t] = running
        targets = advantages + values

        size = s.sequence_length
        chunks = envs * length // size
        start_h = torch.cat([zeros[:, None], hs.transpose(0, 1)[:, :-1]], 1)[:, ::size].reshape(chunks, -1)
        start_c = torch.cat([zeros[:, None], cs.transpose(0, 1)[:, :-1]], 1)[:, ::size].reshape(chunks, -1)
        per_chunk = lambda a: torch.as_tensor(a).reshape(chunks, size, *a.shape[2:])  # noqa: E731
        x_c, actions_c, resets_c = per_chunk(x), per_chunk(actions), per_chunk(resets_t)
        old_c, adv_c, targets_c = per_chunk(log_probs), per_chunk(advantages), per_chunk(targets)
        totals: dict[str, float] = {}
        steps_done = 0
        for _ in range(s.num_epochs):
            order = self.rng.permutation(chunks)
            for part in np.array_split(order, min(s.num_minibatches, chunks)):
                idx = torch.from_numpy(part)
                hs_mb, _ = self.unroll(x_c[idx], start_h[idx], start_c[idx], resets_c[idx])
                new, entropies, v = self.heads(hs_mb, actions_c[idx])
                adv = adv_c[idx]
                adv = (adv - adv.mean()) / (adv.sub(adv.mean()).square().mean().sqrt() + 1e-8)
                log_ratio = new - old_c[idx]
                ratio = log_ratio.exp()
                policy = -torch.minimum(ratio * adv, ratio.clamp(1 - s.clip_ratio, 1 + s.clip_ratio) * adv)
                value = 0.5 * (v - targets_c[idx]).square()
                loss = (policy + s.value_weight * value - s.entropy_weight * entropies).mean()
                self.opt.zero_grad()
                loss.backward()
                norm = nn.utils.clip_grad_norm_(self.params, s.clip_grad_norm)
                self.opt.step()
                with torch.no_grad():
                    parts = {"loss": loss.detach(), "policy_loss": policy.mean(), "value_loss": value.mean(),
                             "entropy": entropies.mean(), "approx_kl": (-log_ratio).mean(),
                             "clip_fraction": ((ratio - 1).abs() > s.clip_ratio).float().mean(), "grad_norm": norm}
                for name, part_value in parts.items():
                    totals[name] = totals.get(name, 0.0) + float(part_value)
                steps_done += 1
        metrics = {name: total / steps_done for name, total in totals.items()}
        variance = float(np.var(targets))
        metrics["explained_variance"] = 1.0 - float(np.var(targets - values)) / variance if variance > 0 else 0.0
        metrics.update(rollout_steps=float(envs * length), gradient_steps=float(steps_done))
        return metrics
