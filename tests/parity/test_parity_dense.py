"""Parity of Dense: every activation both backends know, bias or not, any batch/time ranks and core rank."""

from __future__ import annotations

import pytest

from rlworkbench.backends.tf import ops as tf_ops
from rlworkbench.backends.torch import ops as torch_ops
from rlworkbench.components import Dense
from rlworkbench.spaces import FloatBox

ACTIVATIONS = [None, *torch_ops.ACTIVATIONS]


def test_both_backends_offer_the_same_activations():
    assert list(tf_ops.ACTIVATIONS) == list(torch_ops.ACTIVATIONS)
    assert len(ACTIVATIONS) >= 10


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_dense_activation(parity, activation):
    pair = parity(lambda: Dense(5, activation=activation), {"inputs": FloatBox(shape=(3,), add_batch_rank=True)})
    assert list(pair.tf.variable_values()) == ["kernel", "bias"]


@pytest.mark.parametrize("use_bias", [True, False])
def test_dense_ranks(parity, ranks, use_bias):
    pair = parity(lambda: Dense(4, activation="tanh", use_bias=use_bias), {"inputs": FloatBox(shape=(3,), **ranks)})
    assert pair.tf.graph.output_space("apply") == FloatBox(shape=(4,), **ranks)


def test_dense_over_a_core_rank_two_input(parity):
    # rank-3 tensors take TF's tensordot path, torch's matmul broadcast
    pair = parity(lambda: Dense(2, activation="elu"), {"inputs": FloatBox(shape=(2, 3), add_batch_rank=True)})
    assert pair.tf.graph.output_space("apply") == FloatBox(shape=(2, 2), add_batch_rank=True)


def test_dense_initialisers_agree_for_the_same_seed():
    from rlworkbench.testing import ComponentTest

    space = {"inputs": FloatBox(shape=(3,), add_batch_rank=True)}
    torch_test = ComponentTest(Dense(4, bias_initializer="glorot_normal"), space, backend="torch", seed=7)
    tf_test = ComponentTest(Dense(4, bias_initializer="glorot_normal"), space, backend="tf", seed=7)
    for name, value in torch_test.variable_values().items():
        assert (tf_test.variable_values(name) == value).all(), name
