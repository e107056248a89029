"""Parity of the helpers BatchSplitter (equal shards of nested batches) and Synchronizable (hard and Polyak
target-network updates, ints copied): same inputs and weights → same shards, same target weights."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api
from rlworkbench.components import BatchSplitter, NeuralNetwork, Synchronizable
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple

LAYERS = [{"type": "dense", "units": 4, "activation": "tanh"}, {"type": "dense", "units": 2}]


@pytest.mark.parametrize("num_shards", [1, 3])
def test_batch_splitter(parity, ranks, num_shards):
    nested = Dict(obs=Dict(image=IntBox(0, 256, shape=(2, 2), dtype="uint8"), vec=FloatBox(shape=(3,))),
                  pair=Tuple(IntBox(4), FloatBox()), **ranks)
    pair = parity(lambda: BatchSplitter(num_shards), {"inputs": [nested, FloatBox(**ranks)]},
                  batch_sizes=(1, 5, 7))  # 1 < 3 shards: empty shards; 5, 7: remainders dropped
    shard = (nested, FloatBox(**ranks))
    assert pair.tf.graph.output_space("split") == (Tuple(*shard) if num_shards == 1 else (Tuple(*shard),) * 3)


class Counted(NeuralNetwork):
    """A network with a non-trainable int counter (copied, never averaged; skipped with ``trainable_only``)."""

    def create_variables(self, input_spaces):
        self.calls = self.create_variable("calls", (), dtype="int64", initializer=3, trainable=False)


class WithTarget(Component):
    """An online network, its target copy and a syncer: ``q_values(states)``, ``sync(tau)``, ``hard_sync()``."""

    def __init__(self, trainable_only: bool):
        self.online = Counted(LAYERS, name="online")
        self.target = self.online.copy(name="target")
        self.syncer = Synchronizable("online", "target", trainable_only=trainable_only)
        super().__init__(self.syncer, self.online, self.target, name="agent")

    @api
    def q_values(self, states):
        return self.online.apply(states), self.target.apply(states)

    @api
    def sync(self, tau):
        self.syncer.sync(tau)

    @api
    def hard_sync(self):
        self.syncer.sync(1.0)


@pytest.mark.parametrize("trainable_only", [False, True])
def test_synchronizable(parity, trainable_only):
    states = FloatBox(-1.0, 1.0, shape=(3,), add_batch_rank=True)
    pair = parity(lambda: WithTarget(trainable_only), {"states": states, "tau": FloatBox(0.0, 1.0)},
                  api_methods=["q_values", "sync"])  # sampled: soft syncs with a random tau
    for test in (pair.torch, pair.tf):
        test.set_variable_values({"target/calls": np.int64(0)})
    for tau in (0.1, 0.25):
        pair.run("sync", np.float32(tau))
        weights = pair.assert_same_weights()
        assert weights["target/calls"] == (0 if trainable_only else 3)
        assert not np.allclose(weights["target/dense_0/kernel"], weights["online/dense_0/kernel"])
    q_online, q_target = pair.run("q_values", states.sample(4, seed=3))[0]
    assert not np.allclose(q_online, q_target)


def test_synchronizable_hard_copy(parity):
    states = FloatBox(-1.0, 1.0, shape=(3,), add_batch_rank=True)
    pair = parity(lambda: WithTarget(False), {"states": states}, api_methods=["q_values", "hard_sync"])
    weights = pair.assert_same_weights()
    for name in ("dense_0/kernel", "dense_1/bias", "calls"):
        np.testing.assert_array_equal(weights[f"target/{name}"], weights[f"online/{name}"])
    q_online, q_target = pair.run("q_values", states.sample(4, seed=3))[0]
    np.testing.assert_array_equal(q_online, q_target)
