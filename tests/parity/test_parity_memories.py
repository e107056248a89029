"""Parity of the memories and the segment tree: same inserts and updates → same variables and outputs.

Sampling draws from each backend's own random generator (different streams), so the parity of the replay
memories covers inserts and priority updates (their variables must agree); sampling is checked per backend
in tests/components/memories.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.helpers.segment_tree import SegmentTree
from rlworkbench.components.memories import FIFOQueue, PrioritizedReplay, ReplayMemory, RingBuffer
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple

RECORDS = Dict(obs=FloatBox(shape=(3,)), act=IntBox(4), more=Tuple(BoolBox(), FloatBox(shape=(2, 2))),
               terminals=BoolBox(), add_batch_rank=True)


@pytest.mark.parametrize("reduction", ["sum", "min"])
def test_segment_tree(parity, reduction):
    spaces = {"indices": IntBox(16, add_batch_rank=True), "values": FloatBox(0.0, 3.0, add_batch_rank=True),
              "prefix_sums": FloatBox(0.0, 20.0, add_batch_rank=True)}
    api_methods = ["update", "get", "reduce"] + (["find_prefix_sum"] if reduction == "sum" else [])
    if reduction == "min":
        del spaces["prefix_sums"]
    pair = parity(lambda: SegmentTree(16, reduction), spaces, api_methods=api_methods)
    indices = np.array([1, 5, 5, 9, 1, 15, 0, 5])  # repeats: the last value wins on both
    pair.run("update", indices, spaces["values"].sample(8, seed=1))
    pair.assert_same_weights()
    pair.run("get", np.arange(16))
    pair.run("reduce")
    if reduction == "sum":
        pair.run("find_prefix_sum", np.linspace(0.0, 30.0, 61, dtype=np.float32))


def test_replay_memory(parity):
    pair = parity(lambda: ReplayMemory(6), {"records": RECORDS},
                  api_methods=["insert_records", "get_size"])
    pair.run("insert_records", RECORDS.sample(9, seed=3))
    pair.run("get_size")
    pair.assert_same_weights()


def test_prioritized_replay(parity):
    spaces = {"records": RECORDS, "indices": IntBox(6, add_batch_rank=True),
              "priorities": FloatBox(0.1, 5.0, add_batch_rank=True)}
    pair = parity(lambda: PrioritizedReplay(6, alpha=0.6, beta=0.4), spaces,
                  api_methods=["insert_records", "update_records", "get_size"])
    pair.run("insert_records", RECORDS.sample(4, seed=4))
    pair.run("update_records", np.array([0, 3, 3, 1]), np.array([0.5, 2.0, 4.0, 0.2], np.float32))
    pair.assert_same_weights()


def test_fifo_queue(parity):
    pair = parity(lambda: FIFOQueue(5), {"records": RECORDS, "num_records": IntBox(0, 8)})
    pair.run("enqueue", RECORDS.sample(4, seed=5))
    pair.run("dequeue", 3)
    pair.run_fused(("enqueue", RECORDS.sample(7, seed=6)), ("dequeue", 4), ("get_size", []))
    pair.assert_same_weights()


def test_ring_buffer(parity):
    pair = parity(lambda: RingBuffer(8), {"records": RECORDS, "num_episodes": IntBox(0, 4)})
    for seed, terminals in enumerate([[False, True, False], [True, False, False, True, False, False, True]]):
        records = RECORDS.sample(len(terminals), seed=seed)
        records["terminals"] = np.array(terminals)
        pair.run("insert_records", records)
        for wanted in range(4):
            pair.run("get_episodes", wanted)
        pair.run("get_num_episodes")
    pair.assert_same_weights()
