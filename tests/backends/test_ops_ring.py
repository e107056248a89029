"""The ring-buffer write on every path it takes: torch's NumPy kernel (CPU tensors), the ops composition torch runs
off the CPU (called here on CPU tensors, as it would run on CUDA) and TensorFlow's, against a plain Python ring."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402
from rlworkbench.core import ring_kernels as kernels  # noqa: E402

CAPACITY = 5
LAYOUT = {"states": ((3,), np.float32), "actions": ((), np.int64), "terminals": ((), np.bool_)}


class Paths:
    """One ring (buffers, cursor, size) per path, written alike."""

    def __init__(self):
        zeros = [np.zeros((CAPACITY, *shape), dtype) for shape, dtype in LAYOUT.values()]
        self.numpy = self._torch(zeros)
        self.composed = self._torch(zeros)
        self.tf = ([tf.Variable(z.copy()) for z in zeros], tf.Variable(np.int64(0)), tf.Variable(np.int64(0)))

    @staticmethod
    def _torch(zeros):
        return [torch.from_numpy(z.copy()) for z in zeros], torch.tensor(0), torch.tensor(0)

    def write(self, values: list[np.ndarray]) -> list[np.ndarray]:
        return [torch_ops.ring_write(*self.numpy, [torch.from_numpy(v) for v in values]).numpy(),
                kernels.ring_write(torch_ops, *self.composed, [torch.from_numpy(v) for v in values]).numpy(),
                tf_ops.ring_write(*self.tf, [tf.constant(v) for v in values]).numpy()]

    def states(self):
        return [([b.numpy() for b in buffers], int(cursor), int(size))
                for buffers, cursor, size in (self.numpy, self.composed, self.tf)]


def batch(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    # values come as the records arrive: float64 states and int32 actions, cast to the buffers' dtypes
    return [rng.normal(size=(count, 3)), rng.integers(0, 9, count).astype(np.int32), rng.random(count) < 0.5]


@pytest.mark.parametrize("counts", [[1, 2, 3, 4], [5, 1], [7], [3, 9, 2], [0, 2]])
def test_every_path_writes_like_a_plain_ring_wrapping_and_keeping_the_last_rows_of_a_large_batch(counts):
    rng = np.random.default_rng(len(counts))
    paths = Paths()
    cursor = size = 0
    truth = [np.zeros((CAPACITY, *shape), dtype) for shape, dtype in LAYOUT.values()]
    for count in counts:
        values = batch(rng, count)
        expected_slots = [(cursor + i) % CAPACITY for i in range(count)][-CAPACITY:]
        for buffer, column in zip(truth, values):
            for slot, value in zip(expected_slots, column[-CAPACITY:]):
                buffer[slot] = value
        cursor, size = (cursor + count) % CAPACITY, min(size + count, CAPACITY)
        for slots in paths.write(values):
            assert slots.dtype == np.int64 and slots.tolist() == expected_slots
        for buffers, got_cursor, got_size in paths.states():
            assert (got_cursor, got_size) == (cursor, size)
            for got, want in zip(buffers, truth):
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)
