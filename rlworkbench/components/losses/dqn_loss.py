"""The (double) DQN temporal-difference loss, with n-step returns and importance weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.losses.common import (
    check_box,
    check_config,
    check_items,
    check_vectors,
    ranks_of,
)
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


@register("dqn_loss")
class DQNLoss(Component):
    """``loss(q_values_s, actions, rewards, terminals, *, q_values_sp, target_q_values_sp, importance_weights=None)
    -> (loss, loss_per_item, td_errors)`` (Mnih et al. 2015; double Q: van Hasselt et al. 2016).

    Per item, with ``Q = q_values_s`` (online net at ``s``), ``Q' = q_values_sp`` (online net at ``s'``) and
    ``Qt' = target_q_values_sp`` (target net at ``s'``)::

        target    = rewards + discount**n_step * (1 - terminals) * Qt'[argmax Q'] (double_q)  or  max Qt'
        td_errors = target - Q[actions]                   (the target carries no gradient)
        loss_per_item = huber(td_errors, huber_delta) if huber_loss else 0.5 * td_errors**2,
                        times importance_weights when given

    ``loss`` is the mean. ``td_errors`` (no gradient) give the priorities of prioritized replay (use their
    absolute values). With n-step returns the rewards come already summed over the n steps (``sum_k discount**k
    r[t+k]``) and ``s'`` is the state n steps later. ``importance_weights`` are optional (uniform replay leaves
    them out). The Q-values at ``s'`` are keyword-only: they share the space of ``q_values_s``, so a swap could not
    be caught otherwise. ``q_values_sp`` is only read with ``double_q``. Dueling heads belong to the policy: this
    loss takes whatever Q-values it produces.

    Inputs (same ranks: batch, or batch+time): Q-values FloatBox ``(num_actions,)``; ``actions`` IntBox ``()``;
    ``rewards`` and ``importance_weights`` FloatBox ``()``; ``terminals`` BoolBox (or 0/1 numbers) ``()``.
    """

    def __init__(self, discount: float = 0.99, double_q: bool = True, huber_loss: bool = False,
                 huber_delta: float = 1.0, n_step: int = 1, **kwargs: Any):
        super().__init__(**{"name": "dqn_loss", **kwargs})
        check_config(0.0 <= discount <= 1.0, self.name, "discount", "a number in [0, 1]", discount)
        check_config(huber_delta > 0, self.name, "huber_delta", "a number > 0", huber_delta)
        check_config(isinstance(n_step, int) and n_step >= 1, self.name, "n_step", "an int >= 1", n_step)
        self.discount, self.double_q, self.n_step = float(discount), bool(double_q), n_step
        self.huber_loss, self.huber_delta = bool(huber_loss), float(huber_delta)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        q_space = input_spaces["q_values_s"]
        ranks = ranks_of(q_space)
        check_vectors(q_space, "q_values_s", ranks, "one Q-value per action")
        for name in ("q_values_sp", "target_q_values_sp"):
            check_box(input_spaces[name], name, "f", q_space.shape, ranks)
        check_box(input_spaces["rewards"], "rewards", "f", (), ranks)
        check_items(input_spaces, "rewards", actions="iu", terminals="biuf", importance_weights="f")
        self.dtype = str(q_space.dtype)
        low = np.asarray(getattr(input_spaces["actions"], "low", 0), dtype=np.float64)
        # Discrete(n, start=k): actions k..k+n-1 are Q-columns 0..n-1 (an unbounded space has no offset)
        self.action_offset = int(low.min()) if low.size and np.all(np.isfinite(low)) else 0

    @api
    @graph_fn(returns=3)
    def loss(self, q_values_s: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, *, q_values_sp: Tensor,
             target_q_values_sp: Tensor, importance_weights: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """``(loss, loss_per_item, td_errors)`` of the (double) Q-learning target."""
        ops = self.ops
        if self.double_q:
            best = ops.select_by_index(target_q_values_sp, ops.argmax(q_values_sp, -1))
        else:
            best = ops.reduce_max(target_q_values_sp, -1)
        not_done = 1.0 - ops.cast(terminals, self.dtype)
        target = ops.stop_gradient(rewards + self.discount ** self.n_step * not_done * best)
        if self.action_offset:
            actions = actions - self.action_offset
        td_errors = target - ops.select_by_index(q_values_s, actions)
        per_item = ops.huber(td_errors, self.huber_delta) if self.huber_loss else 0.5 * ops.square(td_errors)
        if importance_weights is not None:
            per_item = per_item * ops.stop_gradient(importance_weights)
        return ops.reduce_mean(per_item), per_item, ops.stop_gradient(td_errors)
