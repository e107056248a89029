"""Parity of the losses and RL helpers: same sampled inputs → same losses, targets and episode bookkeeping on
torch and TensorFlow (batch, batch+time and time-major ranks where they apply)."""

from __future__ import annotations

import pytest

from rlworkbench.components import GAE, ActorCriticLoss, DQNLoss, PPOLoss, SACLoss, SequenceHelper, VTrace, VTraceLoss
from rlworkbench.spaces import BoolBox, FloatBox, IntBox

SEQUENCES = {"batch_time": {"add_batch_rank": True, "add_time_rank": True},
             "time_major": {"add_batch_rank": True, "add_time_rank": True, "time_major": True}}
BATCH = {"add_batch_rank": True}


def test_dqn_loss(parity, ranks):
    q = FloatBox(shape=(5,), **ranks)
    spaces = {"q_values_s": q, "actions": IntBox(5, **ranks), "rewards": FloatBox(**ranks),
              "terminals": BoolBox(**ranks), "q_values_sp": q, "target_q_values_sp": q,
              "importance_weights": FloatBox(0.0, 1.0, **ranks)}
    parity(lambda: DQNLoss(discount=0.9, huber_loss=True, n_step=2), spaces)


@pytest.mark.parametrize("value_clip", [None, 0.2])
def test_ppo_loss(parity, ranks, value_clip):
    spaces = {name: FloatBox(**ranks) for name in ("advantages", "entropies", "values", "value_targets")}
    spaces.update(log_probs=FloatBox(-1.0, 0.0, **ranks), prev_log_probs=FloatBox(-1.0, 0.0, **ranks))
    if value_clip is not None:
        spaces["prev_values"] = FloatBox(**ranks)
    parity(lambda: PPOLoss(value_clip=value_clip), spaces)


def test_actor_critic_loss(parity, ranks):
    names = ("log_probs", "advantages", "entropies", "values", "value_targets")
    parity(ActorCriticLoss, {name: FloatBox(**ranks) for name in names})


def test_sac_loss(parity, ranks):
    q = FloatBox(shape=(2,), **ranks)
    spaces = {"q_values": q, "rewards": FloatBox(**ranks), "terminals": BoolBox(**ranks), "next_target_q_values": q,
              "next_log_probs": FloatBox(**ranks), "log_probs": FloatBox(**ranks), "log_alpha": FloatBox(-1.0, 1.0)}
    parity(lambda: SACLoss(target_entropy=-2.0), spaces)


@pytest.mark.parametrize("layout", sorted(SEQUENCES))
def test_gae_and_sequence_helper(parity, layout):
    ranks = SEQUENCES[layout]
    spaces = {"rewards": FloatBox(**ranks), "values": FloatBox(**ranks), "terminals": BoolBox(**ranks),
              "bootstrap_values": FloatBox(**BATCH)}
    parity(lambda: GAE(0.9, 0.7), spaces)
    del spaces["values"]
    parity(lambda: SequenceHelper(0.9), spaces)


@pytest.mark.parametrize("layout", sorted(SEQUENCES))
def test_vtrace_and_vtrace_loss(parity, layout):
    ranks = SEQUENCES[layout]
    spaces = {name: FloatBox(**ranks) for name in ("rewards", "values", "entropies")}
    spaces.update(log_probs=FloatBox(-2.0, 0.0, **ranks), behaviour_log_probs=FloatBox(-2.0, 0.0, **ranks),
                  discounts=FloatBox(0.0, 1.0, **ranks), bootstrap_values=FloatBox(**BATCH))
    parity(VTraceLoss, spaces)
    del spaces["entropies"]
    parity(lambda: VTrace(clip_rho_threshold=None, clip_c_threshold=0.8), spaces)
