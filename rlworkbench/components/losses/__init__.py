"""Losses and the v-trace helper.

A loss is stateless: its API takes the tensors it needs (Q-values, actions, rewards, log-probabilities,
advantages, …) and returns ``(loss, loss_per_item, extras)``: the mean as a scalar, one value per item (batch, or
batch+time) and what an agent wants besides (TD errors for priorities, the parts of a combined loss). Targets
never carry gradients. Optional inputs default to ``None`` (left out, they need no space), and inputs that share a
space with an earlier one are keyword-only, so that a swap fails loudly.
"""

from rlworkbench.components.losses.actor_critic_loss import ActorCriticLoss
from rlworkbench.components.losses.dqn_loss import DQNLoss
from rlworkbench.components.losses.ppo_loss import PPOLoss
from rlworkbench.components.losses.sac_loss import SACLoss
from rlworkbench.components.losses.vtrace import VTrace
from rlworkbench.components.losses.vtrace_loss import VTraceLoss

__all__ = ["ActorCriticLoss", "DQNLoss", "PPOLoss", "SACLoss", "VTrace", "VTraceLoss"]
