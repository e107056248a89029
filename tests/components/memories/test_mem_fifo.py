"""FIFOQueue: enqueue/dequeue sequences against ``collections.deque(maxlen=capacity)``."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from rlworkbench.components import from_spec
from rlworkbench.components.memories import FIFOQueue
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

CAPACITY = 7
RECORDS = Tuple(FloatBox(), Dict(image=IntBox(255, shape=(2, 2), dtype="uint8"), flag=BoolBox()), add_batch_rank=True)
SPACES = {"records": RECORDS, "num_records": IntBox()}


@pytest.fixture
def queue(backend, fresh) -> ComponentTest:
    return fresh(backend, "fifo", lambda: FIFOQueue(CAPACITY), SPACES)


def numbered(first: int, count: int, seed: int = 0) -> tuple:
    """Sampled records whose first item numbers them."""
    records = RECORDS.sample(count, seed=seed)
    return (np.arange(first, first + count, dtype=np.float32), records[1])


def test_enqueue_dequeue_sequences_match_a_bounded_deque(queue):
    rng = np.random.default_rng(0)
    reference: deque[int] = deque(maxlen=CAPACITY)
    images: dict[int, np.ndarray] = {}
    number = 0
    for step in range(25):
        if rng.random() < 0.5:
            count = int(rng.choice([0, 1, 3, 9]))  # 9 > capacity: the oldest are dropped
            records = numbered(number, count, seed=step)
            queue.test(("enqueue", records))
            reference.extend(range(number, number + count))
            images.update(zip(range(number, number + count), records[1]["image"]))
            number += count
        else:
            wanted = int(rng.choice([0, 1, 2, 5, 20, -1]))
            out = queue.test(("dequeue", wanted))
            expected = [reference.popleft() for _ in range(min(max(wanted, 0), len(reference)))]
            np.testing.assert_array_equal(out[0], np.asarray(expected, np.float32), err_msg=f"step {step}")
            assert out[1]["image"].shape == (len(expected), 2, 2) and out[1]["image"].dtype == np.uint8
            for row, n in zip(out[1]["image"], expected):
                np.testing.assert_array_equal(row, images[n])
        assert queue.test("get_size") == len(reference), f"step {step}"


def test_an_empty_queue_returns_no_rows(queue):
    out = queue.test(("dequeue", 3))
    assert out[0].shape == (0,) and out[1]["image"].shape == (0, 2, 2) and out[1]["flag"].dtype == bool
    assert queue.graph.output_space("dequeue") == RECORDS and RECORDS.contains(out)


def test_enqueue_then_dequeue_in_one_fused_call(queue):
    _, out, size = queue.executor.execute(("enqueue", numbered(0, 4)), ("dequeue", 3), ("get_size", []))
    np.testing.assert_array_equal(out[0], [0, 1, 2])
    assert size == 1
    _, out = queue.executor.execute(("enqueue", numbered(4, 2)), ("dequeue", 10))
    np.testing.assert_array_equal(out[0], [3, 4, 5])


def test_box_records_from_a_spec(backend):
    space = FloatBox(shape=(3,), add_batch_rank=True)
    test = ComponentTest(from_spec({"type": "fifo_queue", "capacity": 2}), {"records": space, "num_records": IntBox()},
                         backend=backend)
    values = space.sample(3, seed=1)
    test.test(("enqueue", values))
    np.testing.assert_array_equal(test.test(("dequeue", 5)), values[1:])


def test_a_batch_that_does_not_fit_changes_nothing(queue):
    queue.test(("enqueue", numbered(0, 2)))
    before = queue.variable_values()
    bad = (np.zeros(1, np.float32), {"image": np.zeros((1, 2, 2), np.uint8), "flag": np.zeros((1, 2), bool)})
    with pytest.raises(SpaceError) as info:
        queue.test(("enqueue", bad))
    assert (info.value.api_method, info.value.key_path) == ("enqueue", "1/flag")
    for name, value in queue.variable_values().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
    np.testing.assert_array_equal(queue.test(("dequeue", 5))[0], [0, 1])
