"""SegmentTree: sum and min trees against brute force — leaves, every inner node, reductions, prefix-sum search."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import from_spec
from rlworkbench.components.helpers.segment_tree import SegmentTree
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

CAPACITY = 16
SPACES = {"indices": IntBox(CAPACITY, add_batch_rank=True), "values": FloatBox(0.0, 10.0, add_batch_rank=True),
          "value": FloatBox(0.0, 10.0), "prefix_sums": FloatBox(0.0, 50.0, add_batch_rank=True)}
NEUTRAL = {"sum": 0.0, "min": np.inf}
COMBINE = {"sum": np.sum, "min": np.min}


@pytest.fixture
def trees(backend, fresh):
    """``trees(reduction)``: an empty tree of that reduction, built once per backend."""
    def get(reduction: str) -> ComponentTest:
        api_methods = ["update", "update_distinct", "fill", "get", "reduce"] + (["find_prefix_sum"]
                                                                                if reduction == "sum" else [])
        spaces = {k: v for k, v in SPACES.items() if reduction == "sum" or k != "prefix_sums"}
        return fresh(backend, reduction, lambda: SegmentTree(CAPACITY, reduction), spaces, api_methods=api_methods)

    return get


def brute_force_tree(leaves: np.ndarray, reduction: str) -> np.ndarray:
    """Node ``i`` (1-based heap order) reduces the leaves below it; node 0 is unused (neutral)."""
    nodes = np.full(2 * len(leaves), NEUTRAL[reduction], np.float32)
    nodes[len(leaves):] = leaves
    for node in range(1, len(leaves)):
        depth = int(np.floor(np.log2(node)))
        width = len(leaves) >> depth
        first = (node - (1 << depth)) * width
        nodes[node] = COMBINE[reduction](leaves[first:first + width])
    return nodes


@pytest.mark.parametrize("reduction", ["sum", "min"])
def test_random_batch_updates_match_brute_force(trees, reduction):
    test = trees(reduction)
    np.testing.assert_array_equal(test.test(("get", np.arange(CAPACITY))), np.full(CAPACITY, NEUTRAL[reduction]))
    leaves = np.full(CAPACITY, NEUTRAL[reduction], np.float32)
    rng = np.random.default_rng(0)
    for step, size in enumerate([1, 5, 16, 3, 40]):  # 40 > capacity: many repeated indices
        indices = SPACES["indices"].sample(size, seed=rng)
        values = SPACES["values"].sample(size, seed=rng)
        test.test(("update", [indices, values]))
        for index, value in zip(indices, values):  # in order: the last value of a repeated index wins
            leaves[index] = value
        np.testing.assert_allclose(test.variable_values("tree"), brute_force_tree(leaves, reduction), rtol=1e-6,
                                   err_msg=f"step {step}")
        np.testing.assert_allclose(test.test("reduce"), COMBINE[reduction](leaves), rtol=1e-6)
        picked = rng.integers(0, CAPACITY, 7)
        np.testing.assert_array_equal(test.test(("get", picked)), leaves[picked])


@pytest.mark.parametrize("reduction", ["sum", "min"])
def test_distinct_updates_match_brute_force(trees, reduction):
    """update_distinct (no search for repeats) on distinct indices, as a memory's writes give them."""
    test = trees(reduction)
    leaves = np.full(CAPACITY, NEUTRAL[reduction], np.float32)
    rng = np.random.default_rng(1)
    for step, size in enumerate([1, 4, CAPACITY, 7]):
        indices = rng.permutation(CAPACITY)[:size]
        values = SPACES["values"].sample(size, seed=rng)
        test.test(("update_distinct", [indices, values]))
        leaves[indices] = values
        np.testing.assert_allclose(test.variable_values("tree"), brute_force_tree(leaves, reduction), rtol=1e-6,
                                   err_msg=f"step {step}")


@pytest.mark.parametrize("reduction", ["sum", "min"])
def test_fill_sets_distinct_leaves_to_one_value_like_update_distinct_with_it_repeated(trees, reduction):
    test = trees(reduction)
    leaves = np.full(CAPACITY, NEUTRAL[reduction], np.float32)
    for indices, value in [([3, 4, 5, 6], 2.5), ([0], 7.0), ([15, 1, 8], 0.5), ([4, 5], 9.0)]:
        test.test(("fill", [np.array(indices), np.float32(value)]))
        leaves[indices] = value
        np.testing.assert_allclose(test.variable_values("tree"), brute_force_tree(leaves, reduction), rtol=1e-6)
    np.testing.assert_allclose(test.test("reduce"), COMBINE[reduction](leaves), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["sum", "min"])
def test_repeated_indices_take_the_last_value(trees, reduction):
    test = trees(reduction)
    test.test(("update", [np.array([3, 9, 3, 3, 9]), np.array([7.0, 1.0, 2.0, 5.0, 4.0], np.float32)]))
    np.testing.assert_array_equal(test.test(("get", np.array([3, 9, 0]))), [5.0, 4.0, NEUTRAL[reduction]])
    assert test.test("reduce") == (9.0 if reduction == "sum" else 4.0)


def test_prefix_sum_search_matches_searchsorted(trees):
    test = trees("sum")
    rng = np.random.default_rng(1)
    leaves = rng.integers(0, 4, CAPACITY).astype(np.float32)  # integers (exact sums), some leaves empty
    leaves[[0, 7, 15]] = 0.0
    test.test(("update", [np.arange(CAPACITY), leaves]))
    cumulative = np.cumsum(leaves)
    total = cumulative[-1]
    # halves lie strictly inside the intervals; integers are exactly on their boundaries
    queries = np.concatenate([np.arange(total) + 0.5, np.arange(total)]).astype(np.float32)
    expected = np.searchsorted(cumulative, queries, side="right")  # j with cum[j-1] <= u < cum[j]
    found = test.test(("find_prefix_sum", queries))
    np.testing.assert_array_equal(found, expected)
    assert np.all(leaves[found] > 0)
    # at or past the total (rounding of u = uniform * total) the search stays on the last non-empty leaf
    last = np.flatnonzero(leaves)[-1]
    np.testing.assert_array_equal(test.test(("find_prefix_sum", np.array([total, total + 7], np.float32))),
                                  [last, last])


@pytest.mark.parametrize("capacity", [1, 2, 1 << 10, 1 << 16])  # no stride, one, two (5 + 5), three (6 + 5 + 5)
def test_the_strided_descent_matches_searchsorted_at_every_depth(backend, capacity):
    spaces = {"indices": IntBox(capacity, add_batch_rank=True), "values": FloatBox(0.0, 10.0, add_batch_rank=True),
              "prefix_sums": FloatBox(0.0, 50.0, add_batch_rank=True)}
    test = ComponentTest(SegmentTree(capacity, "sum"), spaces, backend=backend,
                         api_methods=["update_distinct", "find_prefix_sum"])
    rng = np.random.default_rng(capacity)
    leaves = rng.integers(0, 3, capacity).astype(np.float32)  # integers (exact sums), a third of them empty
    leaves[-1] = 0.0 if capacity > 1 else 1.0  # the last leaf empty: the search must stop before it
    test.test(("update_distinct", [np.arange(capacity), leaves]))
    cumulative = np.cumsum(leaves)
    total = cumulative[-1]
    queries = np.concatenate([rng.integers(0, total, 300) + 0.5, rng.integers(0, total, 300), [0.0, total]])
    expected = np.minimum(np.searchsorted(cumulative, queries, side="right"), np.flatnonzero(leaves)[-1])
    found = test.test(("find_prefix_sum", queries.astype(np.float32)))
    np.testing.assert_array_equal(found, expected)
    assert np.all(leaves[found] > 0)


def test_prefix_sum_search_never_finds_an_empty_leaf(trees):
    test = trees("sum")
    np.testing.assert_array_equal(test.test(("find_prefix_sum", np.array([0.0, 3.0], np.float32))), [0, 0])
    test.test(("update", [np.array([11]), np.array([0.25], np.float32)]))  # one non-empty leaf
    queries = SPACES["prefix_sums"].sample(50, seed=2) * np.float32(0.25 / 50.0)
    np.testing.assert_array_equal(test.test(("find_prefix_sum", queries)), np.full(50, 11))


def test_output_spaces(trees):
    graph = trees("sum").graph
    assert graph.output_space("reduce") == FloatBox()
    assert graph.output_space("get") == FloatBox(add_batch_rank=True)
    assert graph.output_space("find_prefix_sum") == IntBox(0, CAPACITY, add_batch_rank=True)
    assert graph.output_space("update") is None


def test_a_one_leaf_tree(backend):
    test = ComponentTest(from_spec({"type": "segment_tree", "capacity": 1, "reduction": "min"}),
                         {"indices": IntBox(1, add_batch_rank=True), "values": FloatBox(add_batch_rank=True)},
                         backend=backend, api_methods=["update", "reduce"])
    assert test.test("reduce") == np.inf
    test.test(("update", [np.array([0, 0]), np.array([3.0, -2.0], np.float32)]))
    assert test.test("reduce") == -2.0


@pytest.mark.parametrize("capacity", [0, 12, -4, 2.0])
def test_capacity_must_be_a_power_of_two(capacity):
    with pytest.raises(ConfigError) as info:
        SegmentTree(capacity)
    assert info.value.argument == "capacity" and info.value.got == capacity


def test_unknown_reduction_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        SegmentTree(8, "max")
    assert info.value.argument == "reduction" and "'max'" in str(info.value)


def test_prefix_sum_search_on_a_min_tree_is_a_config_error(backend):
    with pytest.raises(ConfigError) as info:
        ComponentTest(SegmentTree(8, "min", name="mins"), {"prefix_sums": FloatBox(add_batch_rank=True)},
                      backend=backend, api_methods=["find_prefix_sum"])
    assert info.value.component == "mins" and info.value.argument == "reduction"


def test_a_sum_tree_stays_exact_over_many_updates_and_knows_its_smallest_stored_leaf(backend):
    """Sums are updated by adding the leaves' changes to all ancestors at once (float64): after thousands of
    random updates every inner node still equals the sum of its children."""
    test = ComponentTest(SegmentTree(CAPACITY, "sum"), {**SPACES, "count": IntBox(),
                                                       "uniforms": FloatBox(0.0, 1.0, add_batch_rank=True)},
                         backend=backend)
    rng = np.random.default_rng(1)
    leaves = np.zeros(CAPACITY)
    for _ in range(300):
        indices = rng.integers(0, CAPACITY, 8)
        values = rng.uniform(0.0, 10.0, 8).astype(np.float32)
        test.test(("update", [indices, values]))
        for index, value in zip(indices, values):  # the last of repeated indices wins
            leaves[index] = value
    tree = test.variable_values("tree")
    assert tree.dtype == np.float64
    inner = np.arange(1, CAPACITY)
    np.testing.assert_allclose(tree[inner], tree[2 * inner] + tree[2 * inner + 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tree[CAPACITY:], leaves.astype(np.float32), rtol=1e-7)
    assert test.test(("minimum", 5)) == pytest.approx(leaves.astype(np.float32)[:5].min())
    assert test.test(("minimum", 0)) == np.inf
    # sample: the fused read is the same as reduce, find_prefix_sum, get and minimum called one by one
    uniforms = np.concatenate([rng.random(30), [0.0, 1.0 - 1e-7]]).astype(np.float32)
    indices, values, smallest = test.test(("sample", [uniforms, 11]))
    expected = test.test(("find_prefix_sum", uniforms.astype(np.float64) * test.test("reduce")))
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_allclose(values, test.test(("get", [indices])), rtol=1e-7)
    assert values.dtype == np.float32 and smallest.dtype == np.float32 and smallest.shape == ()
    assert smallest == pytest.approx(leaves.astype(np.float32)[:11].min())


@pytest.mark.parametrize("reduction", ["sum", "min"])
def test_the_smallest_of_the_first_leaves_follows_updates_that_raise_and_lower_block_minima(backend, reduction):
    """``minimum(count)`` reads the minima of whole 64-leaf blocks and the leaves past them: over 1024 leaves (16
    blocks), after updates that raise a block's smallest leaf (its minimum must be recomputed, not just lowered),
    repeated indices and bulk writes, it equals brute force for every count — block edges and 0 included."""
    capacity = 1024
    spaces = {"indices": IntBox(capacity, add_batch_rank=True), "values": FloatBox(0.0, 10.0, add_batch_rank=True),
              "count": IntBox()}
    test = ComponentTest(SegmentTree(capacity, reduction), spaces, backend=backend,
                         api_methods=["update", "update_distinct", "minimum"])
    rng = np.random.default_rng(3)
    leaves = np.full(capacity, NEUTRAL[reduction], np.float32)
    first = rng.uniform(1.0, 10.0, 700).astype(np.float32)  # a bulk write of distinct slots, as a memory fills
    test.test(("update_distinct", [np.arange(700), first]))
    leaves[:700] = first
    counts = [0, 1, 63, 64, 65, 128, 500, 700, 1024]
    for round_ in range(40):
        smallest = int(np.argmin(leaves[:700]))
        indices = np.concatenate([[smallest, smallest], rng.integers(0, 700, 6)])  # the minimum raised, twice
        values = rng.uniform(0.5, 10.0, 8).astype(np.float32)
        test.test(("update", [indices, values]))
        for index, value in zip(indices, values):
            leaves[index] = value
        for count in counts if round_ % 8 == 0 else [700]:
            expected = leaves[:count].min() if count else np.inf
            assert test.test(("minimum", count)) == pytest.approx(expected), (round_, count)
    assert test.test(("minimum", 10**9)) == pytest.approx(leaves.min())  # a count past the leaves: all of them
    blocks = test.variable_values("block_minima")
    np.testing.assert_allclose(blocks, leaves.reshape(-1, 64).min(1), rtol=1e-7)


def test_tensorflow_never_reads_a_trees_or_memorys_variables_whole():
    """On TensorFlow a whole read (``ReadVariableOp``) of a variable that was scattered into copies it: prioritised
    replay's sample, update and insert graphs touch their big variables only by gathers and scatters, so their cost
    does not grow with the capacity (bench/replay_scaling)."""
    import rlworkbench
    from rlworkbench.components.memories import PrioritizedReplay
    from rlworkbench.spaces import BoolBox, Dict

    records = Dict(states=FloatBox(shape=(4,)), actions=IntBox(2), terminals=BoolBox(), add_batch_rank=True)
    capacity = 4096
    executor = rlworkbench.build(PrioritizedReplay(capacity, name="memory"), {
        "records": records, "num_records": IntBox(), "indices": IntBox(capacity, add_batch_rank=True),
        "priorities": FloatBox(add_batch_rank=True)}, backend="tf")
    big = [variable.handle for variable in executor.root.variables().values()
           if np.prod(variable.shape) >= capacity]  # the records and the tree; not counters and block minima
    assert len(big) == 4
    for api_name in ("insert_records", "get_records", "update_records"):
        graph = executor.graph_function(executor.root, api_name).get_concrete_function().graph
        handles = {id(inner) for outer, inner in graph.captures if any(outer is handle for handle in big)}
        whole_reads = [op.name for op in graph.get_operations() if op.type == "ReadVariableOp"
                       and id(op.inputs[0]) in handles]
        assert not whole_reads, (api_name, whole_reads)
