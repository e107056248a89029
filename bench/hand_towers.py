"""Replica towers written by hand in plain PyTorch: the floor any synchronous split pays on one machine.

``HandTowerDQN(settings, towers)`` does the double-Q DQN update of :class:`bench.hand_dqn.HandDQN` with the online
network's calls split over ``towers`` replicas (shards of the batch, in sequence, as on one device): the online
Q-values of the states and of the next states come from the replicas and are concatenated in batch order, the
target network runs once on the whole batch, the loss is taken on the whole batch, the replicas' gradients are
summed into the online network's, clipped, Adam steps once, and the new weights are copied into every replica —
the same work as rlworkbench's :class:`~rlworkbench.components.strategies.ReplicaTowers`, without the library.
``towers=1`` is the plain update (no replicas).
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn

from bench.hand_dqn import Settings, q_network


class HandTowerDQN:
    def __init__(self, settings: Settings, towers: int, inputs: int = 4, actions: int = 2, seed: int = 0):
        torch.manual_seed(seed)
        self.settings, self.towers = settings, towers
        self.online = q_network(inputs, settings.hidden, actions)
        self.target = q_network(inputs, settings.hidden, actions)
        self.replicas = [copy.deepcopy(self.online) for _ in range(towers)] if towers > 1 else []
        self.optimizer = torch.optim.Adam(self.online.parameters(), lr=settings.learning_rate)

    def _split_forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.replicas:
            return self.online(x)
        bounds = [len(x) * index // self.towers for index in range(self.towers + 1)]
        return torch.cat([replica(x[start:stop]) for replica, start, stop
                          in zip(self.replicas, bounds[:-1], bounds[1:], strict=True)])

    def update(self, batch: dict[str, np.ndarray]) -> float:
        s, s2 = torch.from_numpy(batch["states"]), torch.from_numpy(batch["next_states"])
        a, r = torch.from_numpy(batch["actions"]), torch.from_numpy(batch["rewards"])
        t = torch.from_numpy(batch["terminals"].astype(np.float32))
        with torch.no_grad():
            best = self._split_forward(s2).argmax(1, keepdim=True)
            target = r + self.settings.discount * (1.0 - t) * self.target(s2).gather(1, best).squeeze(1)
        q = self._split_forward(s).gather(1, a.unsqueeze(1)).squeeze(1)
        loss = nn.functional.huber_loss(q, target)
        for module in self.replicas or [self.online]:
            module.zero_grad(set_to_none=True)
        loss.backward()
        if self.replicas:
            for parameter, *copies in zip(self.online.parameters(), *(r.parameters() for r in self.replicas),
                                          strict=True):
                parameter.grad = torch.stack([c.grad for c in copies]).sum(0)
        nn.utils.clip_grad_norm_(self.online.parameters(), self.settings.clip_grad_norm)
        self.optimizer.step()
        if self.replicas:
            with torch.no_grad():
                source = list(self.online.parameters())
                for replica in self.replicas:
                    torch._foreach_copy_(list(replica.parameters()), source)
        return float(loss.detach())
