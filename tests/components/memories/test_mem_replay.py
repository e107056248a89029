"""ReplayMemory: ring-buffer contents against a NumPy reference, uniform sampling, spaces, bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api
from rlworkbench.components import from_spec
from rlworkbench.components.memories import ReplayMemory
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, TextBox, Tuple
from rlworkbench.testing import ComponentTest

CAPACITY = 5
RECORDS = Dict(id=FloatBox(), obs=Dict(pos=FloatBox(-1.0, 1.0, shape=(2,)), grid=IntBox(4, shape=(2, 3))),
               act=IntBox(3), extra=Tuple(BoolBox(), FloatBox(shape=(2, 2))), add_batch_rank=True)
SPACES = {"records": RECORDS, "num_records": IntBox()}
LEAVES = list(RECORDS.flatten())  # key paths: id, obs/pos, obs/grid, act, extra/0, extra/1


def batch(ids, seed: int = 0) -> dict:
    """Sampled records whose ``id`` leaf numbers them."""
    records = RECORDS.sample(len(ids), seed=seed)
    records["id"] = np.asarray(ids, np.float32)
    return records


def flat(records) -> dict[str, np.ndarray]:
    return RECORDS.flatten(records)


@pytest.fixture
def memory(backend, fresh) -> ComponentTest:
    return fresh(backend, "replay", lambda: ReplayMemory(CAPACITY), SPACES)


def reference_slots(batch_sizes: list[int]) -> tuple[list[int | None], int, int]:
    """Which record (by insertion number) each slot holds, the write index and the size."""
    slots: list[int | None] = [None] * CAPACITY
    index = size = number = 0
    for count in batch_sizes:
        for _ in range(count):
            slots[index] = number
            index, size, number = (index + 1) % CAPACITY, min(size + 1, CAPACITY), number + 1
    return slots, index, size


def test_inserts_fill_the_ring_and_wrap_around(memory):
    sizes = [2, 1, 4, 7, 3]  # the fourth batch is larger than the capacity
    inserted = []
    for step, count in enumerate(sizes):
        records = batch(range(len(inserted), len(inserted) + count), seed=step)
        inserted.append(flat(records))
        memory.test(("insert_records", records))
        slots, index, size = reference_slots(sizes[:step + 1])
        assert memory.test("get_size") == size
        weights = memory.variable_values()
        assert (weights["index"], weights["size"]) == (index, size)
        everything = {key: np.concatenate([r[key] for r in inserted]) for key in LEAVES}
        for slot, number in enumerate(slots):
            for key in LEAVES:
                stored = weights[f"records/{key}"][slot]
                expected = np.zeros_like(stored) if number is None else everything[key][number]
                np.testing.assert_array_equal(stored, expected, err_msg=f"step {step}, slot {slot}, {key}")


def test_sampled_records_are_stored_records_leaf_for_leaf(memory):
    memory.test(("insert_records", batch(range(3), seed=1)))
    memory.test(("insert_records", batch(range(3, 9), seed=2)))  # 9 inserted: ids 4 … 8 remain
    out = memory.test(("get_records", 64))
    weights = memory.variable_values()
    ids = out["id"].astype(int)
    assert out["act"].shape == (64,) and set(ids) <= set(range(4, 9)) and len(set(ids)) > 1
    slot_of = {int(i): slot for slot, i in enumerate(weights["records/id"])}
    for key, values in flat(out).items():
        np.testing.assert_array_equal(values, weights[f"records/{key}"][[slot_of[i] for i in ids]], err_msg=key)
        assert values.dtype == RECORDS.flatten()[key].dtype
    assert memory.graph.output_space("get_records") == RECORDS
    assert RECORDS.contains(out)


def test_sampling_is_uniform_over_the_filled_slots(memory):
    memory.test(("insert_records", batch(range(3))))  # 3 of 5 slots filled
    ids = memory.test(("get_records", 6000))["id"].astype(int)
    counts = np.bincount(ids, minlength=3)
    assert len(counts) == 3  # never an empty slot
    np.testing.assert_allclose(counts / 6000, np.full(3, 1 / 3), atol=0.025)  # ~ 4 standard deviations
    memory.test(("insert_records", batch(range(3, 10))))  # full: ids 5 … 9
    ids = memory.test(("get_records", 6000))["id"].astype(int)
    np.testing.assert_allclose(np.bincount(ids, minlength=10)[5:] / 6000, np.full(5, 0.2), atol=0.022)


def test_insert_then_get_in_one_fused_call(memory):
    records = batch([7.0, 8.0])
    none, size, out = memory.executor.execute(("insert_records", records), ("get_size", []), ("get_records", 20))
    assert none is None and size == 2 and set(out["id"].astype(int)) == {7, 8}
    size, out = memory.executor.execute(("get_size", []), ("get_records", 4))
    assert size == 2 and set(out["id"].astype(int)) <= {7, 8}


class _Collector(Component):
    """Inserts and samples in one API method, with the memory as a sub-component."""

    def __init__(self) -> None:
        super().__init__(ReplayMemory(CAPACITY, name="memory"), name="collector")

    @api
    def collect_and_sample(self, records, num_records):
        memory = self.sub_components["memory"]
        memory.insert_records(records)
        return memory.get_records(num_records), memory.get_size()


def test_insert_then_get_inside_one_api_method(backend):
    test = ComponentTest(_Collector(), SPACES, backend=backend)
    out, size = test.test(("collect_and_sample", [batch([3.0, 4.0]), 30]))
    assert size == 2 and set(out["id"].astype(int)) == {3, 4}
    out, size = test.test(("collect_and_sample", [batch([5.0, 6.0, 7.0, 8.0]), 60]))
    assert size == CAPACITY and set(out["id"].astype(int)) == {4, 5, 6, 7, 8}
    assert test.graph.output_space("collect_and_sample") == (RECORDS, IntBox(0, CAPACITY + 1))


def test_sampling_is_reproducible_from_the_build_seed(backend):
    def samples(seed: int) -> np.ndarray:
        test = ComponentTest(ReplayMemory(8), {"records": FloatBox(add_batch_rank=True), "num_records": IntBox()},
                             backend=backend, seed=seed)
        test.test(("insert_records", np.arange(8, dtype=np.float32)))
        return test.test(("get_records", 30))

    first = samples(3)
    np.testing.assert_array_equal(first, samples(3))
    assert not np.array_equal(first, samples(4))


def test_an_empty_memory_gives_zeros(memory):
    out = memory.test(("get_records", 3))
    assert all(not values.any() and values.shape[0] == 3 for values in flat(out).values())


def test_box_records_from_a_spec(backend):
    space = IntBox(10, shape=(2,), add_batch_rank=True)
    test = ComponentTest(from_spec({"type": "replay_memory", "capacity": 4}),
                         {"records": space, "num_records": IntBox()}, backend=backend)
    records = space.sample(6, seed=3)
    test.test(("insert_records", records))
    np.testing.assert_array_equal(test.variable_values("records"), records[[4, 5, 2, 3]])
    out = test.test(("get_records", 10))
    assert out.shape == (10, 2) and all(any((row == r).all() for r in records[2:]) for row in out)
    assert test.graph.output_space("get_records") == space
    assert test.graph.output_space("get_size") == IntBox(0, 5)


@pytest.mark.parametrize("bad, key", [
    ({**batch([1.0]), "act": np.zeros((1, 2), np.int64)}, "act"),  # wrong core shape
    ({**batch([1.0]), "obs": {"pos": np.zeros((1, 2), np.float32), "grid": np.zeros((1, 2, 3), np.float32)}},
     "obs/grid"),  # floats for an int leaf
    ({k: v for k, v in batch([1.0]).items() if k != "act"}, None),  # a key missing
    ({**batch([1.0]), "id": np.float32(1.0)}, "id"),  # no batch rank
], ids=["shape", "dtype", "missing-key", "no-batch"])
def test_a_batch_that_does_not_fit_is_rejected_and_changes_nothing(memory, bad, key):
    memory.test(("insert_records", batch([1.0, 2.0])))
    before = memory.variable_values()
    with pytest.raises(SpaceError) as info:
        memory.test(("insert_records", bad))
    assert (info.value.api_method, info.value.argument) == ("insert_records", "records")
    if key is not None:
        assert info.value.key_path == key
    assert memory.test("get_size") == 2
    for name, value in memory.variable_values().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)


@pytest.mark.parametrize("records, key", [
    (Dict(a=FloatBox(), b=FloatBox(add_batch_rank=True)), "a"),
    (Dict(a=FloatBox(), t=Tuple(FloatBox()), add_batch_rank=True, add_time_rank=True), "a"),
    (Dict(a=FloatBox(), s=TextBox(), add_batch_rank=True), "s"),
    (Dict(add_batch_rank=True), None),
], ids=["no-batch-rank", "time-rank", "text", "empty"])
def test_record_spaces_that_cannot_be_stored(backend, records, key):
    with pytest.raises(SpaceError) as info:
        ComponentTest(ReplayMemory(4, name="mem"), {"records": records, "num_records": IntBox()}, backend=backend)
    assert (info.value.component, info.value.argument, info.value.key_path) == ("mem", "records", key)


@pytest.mark.parametrize("capacity", [0, -3, 2.5, "10"])
def test_capacity_must_be_a_positive_int(capacity):
    with pytest.raises(ConfigError) as info:
        ReplayMemory(capacity)
    assert info.value.argument == "capacity"


def test_zero_size_leaves_are_stored_as_nothing(backend):
    # an empty part of a Dict observation passes through a memory (TF refused a scatter into a zero-size buffer)
    records = Dict(empty=FloatBox(shape=(0,)), grid=IntBox(3, shape=(2, 0)), x=FloatBox(shape=(2,)),
                   add_batch_rank=True)
    test = ComponentTest(ReplayMemory(4), {"records": records, "num_records": IntBox()}, backend=backend)
    inserted = records.sample(3, seed=0)
    test.test(("insert_records", inserted))
    test.test(("insert_records", records.sample(3, seed=1)))  # wraps around
    out = test.test(("get_records", 5))
    assert out["empty"].shape == (5, 0) and out["grid"].shape == (5, 2, 0) and out["x"].shape == (5, 2)
    assert test.test("get_size") == 4
