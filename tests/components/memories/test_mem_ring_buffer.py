"""RingBuffer: the last N complete episodes against a NumPy reference, also when the ring cuts an episode."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import from_spec
from rlworkbench.components.memories import RingBuffer
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

CAPACITY = 10
RECORDS = Dict(id=FloatBox(), state=FloatBox(shape=(2,)), action=Tuple(IntBox(3), FloatBox(-1.0, 1.0)),
               terminals=BoolBox(), add_batch_rank=True)
SPACES = {"records": RECORDS, "num_episodes": IntBox()}


@pytest.fixture
def buffer(backend, fresh) -> ComponentTest:
    return fresh(backend, "ring", lambda: RingBuffer(CAPACITY), SPACES)


def transitions(first_id: int, terminals, seed: int = 0) -> dict:
    records = RECORDS.sample(len(terminals), seed=seed)
    records["id"] = np.arange(first_id, first_id + len(terminals), dtype=np.float32)
    records["terminals"] = np.asarray(terminals, bool)
    return records


def reference_episodes(terminals: list[bool], capacity: int) -> list[list[int]]:
    """Complete episodes (lists of ids, oldest first) among the last ``capacity`` transitions."""
    kept = range(max(len(terminals) - capacity, 0), len(terminals))
    episodes, current = [], []
    starts_clean = not kept or kept[0] == 0 or terminals[kept[0] - 1]
    for number in kept:
        current.append(number)
        if terminals[number]:
            if starts_clean:
                episodes.append(current)
            current, starts_clean = [], True
    return episodes


def check_against_reference(buffer: ComponentTest, terminals: list[bool], where: str) -> None:
    episodes = reference_episodes(terminals, CAPACITY)
    assert buffer.test("get_num_episodes") == len(episodes), where
    for wanted in (0, 1, 2, 3, 50):
        out = buffer.test(("get_episodes", wanted))
        expected = [number for episode in episodes[len(episodes) - min(wanted, len(episodes)):] for number in episode]
        np.testing.assert_array_equal(out["id"], np.asarray(expected, np.float32), err_msg=f"{where}, n={wanted}")
        np.testing.assert_array_equal(out["terminals"], np.asarray(terminals, bool)[expected].reshape(-1))
        assert out["state"].shape == (len(expected), 2) and out["action"][0].dtype == np.int64


def test_random_inserts_against_the_reference(buffer):
    rng = np.random.default_rng(0)
    terminals: list[bool] = []
    check_against_reference(buffer, terminals, "empty")
    for step in range(14):
        count = int(rng.choice([1, 2, 3, 5, 12]))  # 12 > capacity
        flags = list(rng.random(count) < 0.3)
        buffer.test(("insert_records", transitions(len(terminals), flags, seed=step)))
        terminals += flags
        check_against_reference(buffer, terminals, f"step {step}")
        assert buffer.test("get_size") == min(len(terminals), CAPACITY)


def test_episodes_cut_by_the_ring_are_not_complete(buffer):
    buffer.test(("insert_records", transitions(0, [False, False, True, False, False, False, True])))
    assert buffer.test("get_num_episodes") == 2
    buffer.test(("insert_records", transitions(7, [False, False, False, False])))  # id 0 overwritten: ids 1 … 10 stored
    assert buffer.test("get_num_episodes") == 1  # ids 1, 2 are the tail of a cut episode
    np.testing.assert_array_equal(buffer.test(("get_episodes", 5))["id"], [3, 4, 5, 6])
    buffer.test(("insert_records", transitions(11, [False, True])))  # ids 3 … 12 stored; 7 … 12 ends
    np.testing.assert_array_equal(buffer.test(("get_episodes", 2))["id"], [3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    np.testing.assert_array_equal(buffer.test(("get_episodes", 1))["id"], [7, 8, 9, 10, 11, 12])


def test_the_values_of_every_leaf_come_back(buffer):
    records = transitions(0, [False, True, True, False], seed=5)
    buffer.test(("insert_records", records))
    out = buffer.test(("get_episodes", 2))
    for key, values in RECORDS.flatten(out).items():
        np.testing.assert_array_equal(values, RECORDS.flatten(records)[key][:3], err_msg=key)
    assert buffer.graph.output_space("get_episodes") == RECORDS and RECORDS.contains(out)
    assert buffer.graph.output_space("get_num_episodes") == IntBox(0, CAPACITY + 1)


def test_insert_then_get_in_one_fused_call(buffer):
    count, out = buffer.executor.execute(("insert_records", transitions(0, [False, True, False])),
                                         ("get_num_episodes", []), ("get_episodes", 1))[1:]
    assert count == 1
    np.testing.assert_array_equal(out["id"], [0, 1])


def test_a_nested_terminal_key_from_a_spec(backend):
    records = Dict(obs=FloatBox(shape=(3,)), info=Dict(done=BoolBox(), step=IntBox(100)), add_batch_rank=True)
    test = ComponentTest(from_spec({"type": "ring_buffer", "capacity": 6, "terminal_key": "info/done"}),
                         {"records": records, "num_episodes": IntBox()}, backend=backend)
    values = records.sample(5, seed=1)
    values["info"]["done"] = np.array([True, False, True, False, False])
    test.test(("insert_records", values))
    out = test.test(("get_episodes", 1))
    np.testing.assert_array_equal(out["info"]["step"], values["info"]["step"][1:3])
    np.testing.assert_array_equal(out["obs"], values["obs"][1:3])


@pytest.mark.parametrize("records", [
    Dict(state=FloatBox(), add_batch_rank=True),
    Dict(state=FloatBox(), terminals=FloatBox(), add_batch_rank=True),
    Dict(state=FloatBox(), terminals=BoolBox((2,)), add_batch_rank=True),
    BoolBox(add_batch_rank=True),
], ids=["missing", "float", "vector", "box"])
def test_records_need_a_scalar_bool_terminal_flag(backend, records):
    with pytest.raises(SpaceError) as info:
        ComponentTest(RingBuffer(4, name="episodes"), {"records": records, "num_episodes": IntBox()}, backend=backend)
    assert (info.value.component, info.value.argument, info.value.key_path) == ("episodes", "records", "terminals")


def test_a_batch_that_does_not_fit_changes_nothing(buffer):
    buffer.test(("insert_records", transitions(0, [False, True])))
    before = buffer.variable_values()
    with pytest.raises(SpaceError) as info:
        buffer.test(("insert_records", {**transitions(2, [True]), "terminals": np.array([1.0], np.float32)}))
    assert info.value.key_path == "terminals"
    for name, value in buffer.variable_values().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
    np.testing.assert_array_equal(buffer.test(("get_episodes", 3))["id"], [0, 1])
