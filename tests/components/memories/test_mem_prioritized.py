"""PrioritizedReplay: tree contents, sampling frequencies against priorities, importance weights against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api, graph_fn
from rlworkbench.components import from_spec
from rlworkbench.components.memories import PrioritizedReplay
from rlworkbench.components.memories.prioritized_replay import checked_spaces
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

CAPACITY, LEAVES = 6, 8  # the trees round the capacity up to a power of two
ALPHA, BETA = 0.7, 0.5
RECORDS = Dict(id=FloatBox(), obs=Tuple(FloatBox(shape=(3,)), BoolBox((2,))), act=IntBox(4), add_batch_rank=True)
SPACES = {"records": RECORDS, "num_records": IntBox(), **checked_spaces(CAPACITY)}


def batch(ids) -> dict:
    records = RECORDS.sample(len(ids), seed=len(ids))
    records["id"] = np.asarray(ids, np.float32)
    return records


@pytest.fixture
def memory(backend, fresh) -> ComponentTest:
    return fresh(backend, "prioritized", lambda: PrioritizedReplay(CAPACITY, alpha=ALPHA, beta=BETA), SPACES)


def leaves(test: ComponentTest) -> np.ndarray:
    """The leaves of the sum tree, after checking every inner node is the sum of its two children."""
    weights = test.variable_values()
    prefix = "memory/" if "memory/sum_tree/tree" in weights else ""
    tree = weights[f"{prefix}sum_tree/tree"]
    assert tree.dtype == np.float64
    inner = np.arange(1, LEAVES)
    np.testing.assert_allclose(tree[inner], tree[2 * inner] + tree[2 * inner + 1], rtol=1e-12, atol=1e-12)
    return tree[LEAVES:]


def smallest_priority(test: ComponentTest) -> float:
    """The smallest stored powered priority, as sampling reads it (the minimum of the stored that the sum tree's
    ``sample`` returns)."""
    component = test.component if isinstance(test.component, PrioritizedReplay) else test.component.find("memory")
    size = test.executor.call(component, "get_size")
    return float(test.executor.call(component.sum_tree, "sample", np.zeros(1, np.float32), size)[2])


def reference_weights(powered: np.ndarray, size: int, indices: np.ndarray) -> np.ndarray:
    """(N·P(i))^-β / max_k (N·P(k))^-β over the stored records k, straight from the definition."""
    probabilities = powered[:size] / powered[:size].sum()
    weights = (size * probabilities) ** -BETA
    return weights[indices] / weights.max()


def test_new_records_get_the_largest_priority_so_far(memory):
    memory.test(("insert_records", batch([0, 1, 2])))
    np.testing.assert_allclose(leaves(memory), [1, 1, 1, 0, 0, 0, 0, 0])
    assert smallest_priority(memory) == 1.0  # the empty leaves (0) are not stored records
    memory.test(("update_records", [np.array([0, 2]), np.array([0.3, 4.0], np.float32)]))
    assert memory.variable_values("max_priority") == 4.0
    memory.test(("update_records", [np.array([1]), np.array([2.0], np.float32)]))  # below the max: max stays
    memory.test(("insert_records", batch([3, 4, 5, 6])))  # 7 into 6 slots: id 6 overwrites slot 0 (was 0.3)
    assert memory.variable_values("records/id")[0] == 6
    sums = leaves(memory)
    expected = np.array([4.0, 2.0, 4.0, 4.0, 4.0, 4.0]) ** ALPHA
    np.testing.assert_allclose(sums[:CAPACITY], expected, rtol=1e-6)
    assert smallest_priority(memory) == pytest.approx(expected.min(), rel=1e-6)
    assert np.all(sums[CAPACITY:] == 0)
    np.testing.assert_allclose(memory.variable_values("sum_tree/tree")[1], expected.sum(), rtol=1e-6)
    assert memory.test("get_size") == CAPACITY


def test_sampling_frequencies_follow_the_priorities(memory):
    memory.test(("insert_records", batch(range(5))))  # 5 of 6 slots
    priorities = np.array([0.2, 1.0, 3.0, 0.6, 2.0], np.float32)
    memory.test(("update_records", [np.arange(5), priorities]))
    records, indices, weights = memory.test(("get_records", 20000))
    expected = priorities ** ALPHA / np.sum(priorities ** ALPHA)
    counts = np.bincount(indices, minlength=CAPACITY)
    assert counts[5] == 0  # the empty slot is never sampled
    np.testing.assert_allclose(counts[:5] / 20000, expected, atol=0.012)  # ~ 4 standard deviations
    np.testing.assert_array_equal(records["id"], indices.astype(np.float32))  # records come from their slots
    powered = priorities.astype(np.float64) ** ALPHA
    np.testing.assert_allclose(weights, reference_weights(powered, 5, indices), rtol=1e-5)
    assert weights.max() == pytest.approx(1.0) and weights.min() > 0
    assert np.isclose(weights[indices == 2], reference_weights(powered, 5, np.array([2]))).all()


def test_sampled_records_match_their_indices_leaf_for_leaf(memory):
    records = batch(range(4))
    memory.test(("insert_records", records))
    out, indices, weights = memory.test(("get_records", 50))
    for key, values in RECORDS.flatten(out).items():
        np.testing.assert_array_equal(values, RECORDS.flatten(records)[key][indices], err_msg=key)
    np.testing.assert_allclose(weights, np.ones(50))  # equal priorities: equal weights
    spaces = memory.graph.output_space("get_records")
    assert spaces == (RECORDS, IntBox(0, CAPACITY, add_batch_rank=True), FloatBox(0.0, 1.0, add_batch_rank=True))
    assert all(space.contains(value) for space, value in zip(spaces, (out, indices, weights)))


def test_update_then_get_in_one_fused_call_sees_the_new_priorities(memory):
    memory.test(("insert_records", batch(range(6))))
    priorities = np.array([1e-6, 1e-6, 1e6, 1e-6, 1e-6, 1e-6], np.float32)
    _, (records, indices, weights) = memory.executor.execute(
        ("update_records", [np.arange(6), priorities]), ("get_records", 30))
    assert np.all(indices == 2) and np.all(records["id"] == 2)
    np.testing.assert_allclose(weights, reference_weights(priorities.astype(np.float64) ** ALPHA, 6, indices),
                               rtol=1e-5)


def test_repeated_indices_in_an_update_take_the_last_priority(memory):
    memory.test(("insert_records", batch(range(3))))
    memory.test(("update_records", [np.array([1, 1, 0, 1]), np.array([3.0, 0.4, 2.0, 0.8], np.float32)]))
    sums = leaves(memory)
    np.testing.assert_allclose(sums[:3], np.array([2.0, 0.8, 1.0]) ** ALPHA, rtol=1e-6)
    assert smallest_priority(memory) == pytest.approx(0.8 ** ALPHA)
    assert memory.variable_values("max_priority") == 3.0  # the max of all given priorities


def test_beta_zero_gives_unit_weights_and_alpha_zero_uniform_sampling(backend):
    test = ComponentTest(from_spec({"type": "prioritized_replay", "capacity": 4, "alpha": 0.0, "beta": 0.0}),
                         {**SPACES, "indices": IntBox(4, add_batch_rank=True)}, backend=backend)
    test.test(("insert_records", batch(range(4))))
    test.test(("update_records", [np.arange(4), np.array([0.1, 5.0, 1.0, 2.0], np.float32)]))
    _, indices, weights = test.test(("get_records", 8000))
    np.testing.assert_allclose(np.bincount(indices, minlength=4) / 8000, np.full(4, 0.25), atol=0.02)
    np.testing.assert_array_equal(weights, np.ones(8000, np.float32))


def test_a_batch_that_does_not_fit_changes_neither_records_nor_trees(memory):
    memory.test(("insert_records", batch([1, 2])))
    before = memory.variable_values()
    bad = {**batch([3]), "obs": (np.zeros((1, 3), np.float32), np.zeros((1, 3), bool))}
    with pytest.raises(SpaceError) as info:
        memory.test(("insert_records", bad))
    assert info.value.key_path == "obs/1" and info.value.argument == "records"
    with pytest.raises(SpaceError) as info:
        memory.test(("update_records", [np.array([0]), np.array([[1.0]], np.float32)]))
    assert info.value.argument == "priorities"
    for name, value in memory.variable_values().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)


@pytest.mark.parametrize(("method", "indices", "priorities", "argument"), [
    ("update_records", [0, CAPACITY], [1.0, 1.0], "indices"),  # past the end (a padding leaf of the tree)
    ("update_records", [-1], [1.0], "indices"),  # NumPy would take the last leaf
    ("update_records", [0, 1], [1.0, np.nan], "priorities"),
    ("update_records", [0], [-1.0], "priorities"),
    ("insert_records_with_priorities", None, [1.0, np.nan], "priorities"),
])
def test_indices_and_priorities_from_outside_are_checked_before_anything_is_written(memory, method, indices,
                                                                                    priorities, argument):
    memory.test(("insert_records", batch([1, 2])))
    before = memory.variable_values()
    first = batch([3, 4]) if indices is None else np.asarray(indices)
    with pytest.raises(SpaceError, match="out of bounds") as info:
        memory.test((method, [first, np.asarray(priorities, np.float32)]))
    assert (info.value.api_method, info.value.argument) == (method, argument)
    for name, value in memory.variable_values().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)


def test_checked_spaces_refuse_what_would_spoil_the_trees_and_take_any_finite_positive_priority():
    spaces = checked_spaces(CAPACITY)
    assert spaces["indices"] == IntBox(CAPACITY, add_batch_rank=True)
    for bad in (np.inf, 0.0, -1e-3, np.nan):
        with pytest.raises(SpaceError):
            spaces["priorities"].check(np.asarray([1.0, bad], np.float32))
    spaces["priorities"].check(np.asarray([1e-30, 1.0, np.finfo(np.float32).max], np.float32))


def test_checked_must_name_parameters():
    with pytest.raises(TypeError, match=r"checked names no parameter: \['prioritys'\]"):
        api(checked=("prioritys",))(lambda self, indices, priorities: None)


@pytest.mark.parametrize("argument, value", [("alpha", -0.1), ("beta", "high")])
def test_exponents_must_be_non_negative_numbers(argument, value):
    with pytest.raises(ConfigError) as info:
        PrioritizedReplay(8, **{argument: value})
    assert info.value.argument == argument


class _Learner(Component):
    """Samples from its memory and gives the sampled records new priorities, all in one API method: the
    priorities come from the memory's own outputs (the reason ``update_records`` need not be complete)."""

    def __init__(self) -> None:
        super().__init__(PrioritizedReplay(CAPACITY, alpha=ALPHA, beta=BETA, name="memory"), name="learner")

    @api
    def observe(self, records):
        self.sub_components["memory"].insert_records(records)

    @api
    def learn(self, num_records):
        memory = self.sub_components["memory"]
        records, indices, weights = memory.get_records(num_records)
        memory.update_records(indices, self._priorities(records))
        return indices, weights

    @graph_fn
    def _priorities(self, records):
        return self.ops.abs(records["obs"][0][:, 0]) + 0.5


def test_priorities_computed_from_sampled_records_go_back_in_the_same_call(backend):
    test = ComponentTest(_Learner(), {"records": RECORDS, "num_records": IntBox()}, backend=backend)
    records = batch(range(5))
    test.test(("observe", records))
    indices, weights = test.test(("learn", 12))
    np.testing.assert_allclose(weights, np.ones(12))  # sampled before the update: all priorities were 1
    sums = leaves(test)  # scoped below the learner: "memory/sum_tree/tree"
    priorities = np.abs(records["obs"][0][indices, 0]) + 0.5
    expected = np.ones(5)
    expected[indices] = priorities ** ALPHA
    np.testing.assert_allclose(sums[:5], expected, rtol=1e-6)
    assert test.variable_values("memory/max_priority") == pytest.approx(max(1.0, priorities.max()))


class _DivergedLearner(_Learner):
    """Its priorities are NaN and infinite, as a diverged network's TD errors are (the numerical guard refuses such
    an update, but the priorities go back inside the same API method, unchecked)."""

    @graph_fn
    def _priorities(self, records):
        zero = self.ops.abs(records["obs"][0][:, 0]) * 0.0
        return self.ops.concat([zero[:2] / zero[:2], 1.0 / zero[2:]], 0)


def test_non_finite_priorities_from_inside_take_the_largest_so_far_and_the_trees_stay_whole(backend):
    test = ComponentTest(_DivergedLearner(), {"records": RECORDS, "num_records": IntBox()}, backend=backend)
    test.test(("observe", batch(range(5))))
    test.test(("learn", 4))
    np.testing.assert_array_equal(leaves(test)[:5], np.ones(5))  # the largest priority so far (1), powered
    assert test.variable_values("memory/max_priority") == 1.0
    indices, weights = test.test(("learn", 200))
    assert np.isfinite(weights).all() and len(set(indices.tolist())) == 5  # sampling still sees every record


def test_records_inserted_with_their_own_priorities_are_sampled_by_them(memory):
    priorities = np.asarray([0.5, 2.0, 1.0, 4.0], np.float32)
    memory.test(("insert_records_with_priorities", [batch([0, 1, 2, 3]), priorities]))
    np.testing.assert_allclose(leaves(memory), [*(priorities ** ALPHA), 0, 0, 0, 0], rtol=1e-6)
    memory.test(("insert_records", batch([4])))  # the largest priority so far follows the given ones
    np.testing.assert_allclose(leaves(memory)[4], 4.0 ** ALPHA, rtol=1e-6)
    records, indices, _ = memory.test(("get_records", 4000))
    counts = np.bincount(indices, minlength=LEAVES)[:5] / 4000
    expected = np.asarray([*(priorities ** ALPHA), 4.0 ** ALPHA])
    np.testing.assert_allclose(counts, expected / expected.sum(), atol=0.03)
    np.testing.assert_array_equal(records["id"], indices.astype(np.float32))  # each slot holds its record
