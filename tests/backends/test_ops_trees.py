"""The sum-tree ops on every path they take: torch's CPU kernels (compiled with numba where it is installed, as
here), the NumPy kernels (torch's CPU path without numba), the ops composition torch runs off the CPU (called here
on CPU tensors, as it would run on CUDA) and TensorFlow's, all against a brute-force tree."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402
from rlworkbench.core import sum_tree_kernels as kernels  # noqa: E402

NUMPY = kernels.NUMPY_KERNELS


class Paths:
    """One sum tree (plus block minima) per path, changed alike."""

    def __init__(self, leaves: int, block: int):
        self.leaves, self.block = leaves, block
        zeros = np.zeros(2 * leaves), np.zeros(leaves // block)
        self.cpu = [torch.from_numpy(a.copy()) for a in zeros]  # ops.tree_sum_set on CPU: the compiled kernels
        self.numpy = [a.copy() for a in zeros]  # the NumPy kernels
        self.composed = [torch.from_numpy(a.copy()) for a in zeros]  # the composition torch runs off the CPU
        self.tf = [tf.Variable(a.copy()) for a in zeros]

    def set(self, indices: np.ndarray, values: np.ndarray, distinct: bool) -> None:
        nodes = indices + self.leaves
        torch_ops.tree_sum_set(*self.cpu, torch.from_numpy(nodes), torch.from_numpy(values), distinct)
        NUMPY.sum_set(*self.numpy, nodes, values, distinct)
        kernels.sum_set(torch_ops, *self.composed, torch.from_numpy(nodes), torch.from_numpy(values), distinct)
        tf_ops.tree_sum_set(*self.tf, tf.constant(nodes), tf.constant(values), distinct)

    def search(self, prefix_sums: np.ndarray) -> list[np.ndarray]:
        return [torch_ops.tree_prefix_search(self.cpu[0], torch.from_numpy(prefix_sums)).numpy(),
                NUMPY.prefix_search(self.numpy[0], prefix_sums),
                kernels.prefix_search(torch_ops, self.composed[0], torch.from_numpy(prefix_sums)).numpy(),
                tf_ops.tree_prefix_search(self.tf[0], tf.constant(prefix_sums)).numpy()]

    def minimum(self, count: int) -> list[float]:
        return [float(torch_ops.tree_block_minimum(*self.cpu, count)),
                NUMPY.block_minimum(*self.numpy, count),
                float(kernels.block_minimum(torch_ops, *self.composed, torch.tensor(count))),
                float(tf_ops.tree_block_minimum(*self.tf, tf.constant(count)))]

    def sample(self, uniforms: np.ndarray, count: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
        found = [torch_ops.tree_sample(*self.cpu, torch.from_numpy(uniforms), count),
                 NUMPY.sample(*self.numpy, uniforms, count),
                 kernels.sample(torch_ops, *self.composed, torch.from_numpy(uniforms), torch.tensor(count)),
                 tf_ops.tree_sample(*self.tf, tf.constant(uniforms), tf.constant(count))]
        return [(np.asarray(leaves), np.asarray(values), float(minimum)) for leaves, values, minimum in found]

    def states(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(np.asarray(tree), np.asarray(minima)) for tree, minima in (self.cpu, self.numpy, self.composed,
                                                                            self.tf)]


def brute_force_tree(leaves: np.ndarray) -> np.ndarray:
    tree = np.zeros(2 * len(leaves))
    tree[len(leaves):] = leaves
    for node in range(len(leaves) - 1, 0, -1):
        tree[node] = tree[2 * node] + tree[2 * node + 1]
    return tree


@pytest.mark.parametrize("leaves, block", [(1, 1), (8, 4), (4096, 64), (1 << 17, 64)])
def test_every_path_sets_leaves_like_a_brute_force_tree_and_finds_the_same_leaves_and_minima(leaves, block):
    rng = np.random.default_rng(leaves)
    paths, truth = Paths(leaves, block), np.zeros(leaves)
    for round_ in range(6):
        count = int(rng.integers(1, 70))
        distinct = round_ % 2 == 0
        indices = (rng.choice(leaves, min(count, leaves), replace=False) if distinct
                   else rng.integers(0, min(leaves, 300), count))  # repeats: the last value wins
        values = np.where(rng.random(len(indices)) < 0.2, 0.0, rng.uniform(0.01, 10.0, len(indices)))
        paths.set(indices, values, distinct)
        last = np.unique(indices[::-1], return_index=True)[1]  # each index's last occurrence, counted backwards
        truth[indices[::-1][last]] = values[::-1][last]
        expected_tree = brute_force_tree(truth)
        for tree, minima in paths.states():
            np.testing.assert_allclose(tree[1:], expected_tree[1:], rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(minima, truth.reshape(-1, block).min(1), rtol=1e-12)  # leaf += change
        for count in {-3, 0, 1, block - 1, block, block + 1, int(rng.integers(0, leaves)), leaves, leaves + 5}:
            expected = truth[:max(count, 0)].min(initial=np.inf)
            assert paths.minimum(count) == pytest.approx([expected] * 4, rel=1e-12), count
        if not truth.any():
            continue  # an empty tree: the test below
        ends = np.cumsum(truth)
        prefix_sums = np.concatenate([rng.uniform(0, ends[-1], 64), [0.0, ends[-1], 2 * ends[-1]]])
        wanted = np.minimum(np.searchsorted(ends, prefix_sums, side="right"), np.flatnonzero(truth)[-1])
        for found in paths.search(prefix_sums):
            np.testing.assert_array_equal(found, wanted)
            assert (truth[found] > 0).all()  # never an empty leaf
        uniforms = np.concatenate([rng.random(40), [0.0, 1.0 - 1e-7]]).astype(np.float32)
        wanted = paths.search(uniforms.astype(np.float64) * ends[-1])[0]
        count = int(rng.integers(0, leaves + 1))
        for found, values, smallest in paths.sample(uniforms, count):  # the fused read: search, values, minimum
            np.testing.assert_array_equal(found, wanted)
            assert values.dtype == np.float32
            np.testing.assert_allclose(values, truth[found].astype(np.float32), rtol=1e-7)
            assert smallest == pytest.approx(np.float32(truth[:count].min(initial=np.inf)), rel=1e-7)


def test_an_empty_tree_gives_leaf_zero_on_every_path():
    paths = Paths(64, 8)
    for found in paths.search(np.array([0.0, 0.5, 3.0])):
        np.testing.assert_array_equal(found, [0, 0, 0])


def test_torch_takes_the_compiled_kernels_where_numba_is_installed_and_numpy_when_told(monkeypatch):
    pytest.importorskip("numba")
    kernels.cpu_kernels.cache_clear()
    assert kernels.cpu_kernels().compiled
    monkeypatch.setenv(kernels.COMPILED_ENV_VAR, "0")
    kernels.cpu_kernels.cache_clear()
    try:
        assert kernels.cpu_kernels() is NUMPY
    finally:
        kernels.cpu_kernels.cache_clear()


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("index", [-1, 8, 1 << 40])
def test_a_leaf_out_of_range_is_an_index_error_and_changes_nothing(compiled, index, monkeypatch):
    if compiled:
        pytest.importorskip("numba")
    kernels.cpu_kernels.cache_clear()
    monkeypatch.setenv(kernels.COMPILED_ENV_VAR, "1" if compiled else "0")
    try:
        tree, minima = torch.zeros(16, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
        torch_ops.tree_sum_set(tree, minima, torch.tensor([8, 9]), torch.tensor([1.0, 2.0]), True)
        before = tree.clone(), minima.clone()
        with pytest.raises(IndexError):  # a valid leaf first: nothing of the call may be written
            torch_ops.tree_sum_set(tree, minima, torch.tensor([10, index + 8]), torch.tensor([5.0, 5.0]), False)
        torch.testing.assert_close((tree, minima), before)
    finally:
        kernels.cpu_kernels.cache_clear()


@pytest.mark.parametrize("given, tracked, largest", [
    ([0.5, np.nan, 3.0, np.inf, -np.inf], [0.5, 2.0, 3.0, 2.0, 2.0], 3.0),  # non-finite: the largest before
    ([0.5, 1.0], [0.5, 1.0], 2.0),  # all smaller: the largest stays
    ([np.nan], [2.0], 2.0),
    ([], [], 2.0),  # none: unchanged
])
def test_track_max_gives_non_finite_values_the_largest_so_far_and_follows_the_rest_on_every_path(given, tracked,
                                                                                                 largest):
    values = np.array(given, np.float32)
    paths = {"cpu": (torch.tensor(2.0), lambda v: torch_ops.track_max(v, torch.from_numpy(values.copy()))),
             "composed": (torch.tensor(2.0), lambda v: kernels.track_max(torch_ops, v, torch.from_numpy(values))),
             "tf": (tf.Variable(2.0), lambda v: tf_ops.track_max(v, tf.constant(values)))}
    for name, (variable, track) in paths.items():
        found = np.asarray(track(variable))
        assert found.dtype == np.float32, name
        np.testing.assert_array_equal(found, np.array(tracked, np.float32), err_msg=name)
        assert float(np.asarray(variable)) == largest, name


def test_one_value_for_every_node_on_every_path():
    leaves, block = 4096, 64
    paths, truth = Paths(leaves, block), np.zeros(leaves)
    for indices, value in [(np.arange(10, 20), 2.0), (np.array([5, 4000, 11]), 0.25), (np.array([64]), 3.0)]:
        paths.set(indices, np.array(value), distinct=True)
        truth[indices] = value
        for tree, minima in paths.states():
            np.testing.assert_allclose(tree[1:], brute_force_tree(truth)[1:], rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(minima, truth.reshape(-1, block).min(1), rtol=1e-12)


@pytest.mark.parametrize("failure", [ImportError("Numba needs NumPy 2.3 or less"),
                                     RuntimeError("cannot cache function 'sum_set': no locator available")])
def test_compiled_kernels_that_do_not_load_leave_the_numpy_kernels_with_a_warning(failure, monkeypatch):
    pytest.importorskip("numba")

    def failing(name: str):
        raise failure

    monkeypatch.setattr(kernels.importlib, "import_module", failing)
    kernels.cpu_kernels.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="NumPy kernels"):
            assert kernels.cpu_kernels() is NUMPY
    finally:
        kernels.cpu_kernels.cache_clear()


def test_the_compiled_update_refuses_values_that_fit_neither_the_nodes_nor_one_for_all():
    pytest.importorskip("numba")
    kernels.cpu_kernels.cache_clear()
    tree, minima = np.zeros(16), np.zeros(2)
    with pytest.raises(ValueError, match="one value per node or one for all"):
        kernels.cpu_kernels().sum_set(tree, minima, np.array([8, 9, 10]), np.array([1.0, 2.0]), True)
    assert not tree.any()
