"""Output spaces are inferred exactly, by one rule on both backends — two sample passes at different batch/time
sizes (run on torch, traced at static sizes on TF) — and where the shapes cannot say, the build stops naming the
graph function and output instead of guessing."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import BuildError, Component, api, build, graph_fn
from rlworkbench.core.space_inference import SAMPLE_SIZES, ranks_of_two_passes
from rlworkbench.spaces import FloatBox

BACKENDS = ["torch", "tf"]


class Reducer(Component):
    """Reductions and reshapes whose output ranks a one-pass guess got wrong."""

    def __init__(self, how: str):
        super().__init__(name="reducer")
        self.how = how

    @api
    @graph_fn
    def run(self, x):
        ops = self.ops
        if self.how == "mean_over_batch":
            return ops.reduce_mean(x, 0)
        if self.how == "sum_over_time":
            return ops.reduce_sum(x, 1)
        if self.how == "flatten_batch_and_time":
            return ops.reshape(x, (-1, 7))
        if self.how == "batch_last":
            return ops.transpose(x, (1, 0))
        if self.how == "first_row":
            return x[:1]
        raise AssertionError(self.how)


def spaces_of(how: str, space: FloatBox) -> dict[str, FloatBox]:
    out = {}
    for backend in BACKENDS:
        executor = build(Reducer(how), {"x": space}, backend=backend, seed=0)
        out[backend] = executor.graph.output_space("run")
    return out


def test_a_mean_over_the_batch_of_seven_values_is_seven_values_on_both_backends():
    """The issue's example: FloatBox((7,)) with a batch rank, x.mean(0). One pass at batch 7 read the 7 as a batch
    rank on torch (FloatBox(())), while TF said (7,)."""
    spaces = spaces_of("mean_over_batch", FloatBox(shape=(7,), add_batch_rank=True))
    assert spaces["torch"] == spaces["tf"] == FloatBox(shape=(7,))


def test_a_reduction_over_time_keeps_the_batch_rank():
    spaces = spaces_of("sum_over_time", FloatBox(shape=(7,), add_batch_rank=True, add_time_rank=True))
    assert spaces["torch"] == spaces["tf"] == FloatBox(shape=(7,), add_batch_rank=True)


def test_a_constant_slice_of_the_batch_is_a_core_dimension_on_both_backends():
    """TF's trace leaves ``x[:1]`` of an unknown batch unknown; a one-pass reading took it for the batch rank."""
    spaces = spaces_of("first_row", FloatBox(shape=(3,), add_batch_rank=True))
    assert spaces["torch"] == spaces["tf"] == FloatBox(shape=(1, 3))


def test_a_mean_over_the_batch_of_a_sequence_keeps_the_time_rank_on_both_backends():
    """One unknown dimension left of a batch-and-time input: TF's trace cannot say which rank it is; the sample
    passes can (a one-pass reading on TF called it the batch rank)."""
    spaces = spaces_of("mean_over_batch", FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True))
    assert spaces["torch"] == spaces["tf"] == FloatBox(shape=(3,), add_time_rank=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("how", ["flatten_batch_and_time", "batch_last"])
def test_shapes_that_cannot_be_a_space_stop_the_build_with_the_graph_function_named(how, backend):
    space = FloatBox(shape=(7,), add_batch_rank=True, add_time_rank=True) if how.startswith("flatten") \
        else FloatBox(shape=(3,), add_batch_rank=True)
    with pytest.raises(BuildError, match="declare output_spaces") as info:
        build(Reducer(how), {"x": space}, backend=backend)
    error = info.value
    assert (error.component, error.graph_fn, error.argument) == ("reducer", "run", "output 0")
    assert error.graph is not None and error.graph.stuck is None


def test_the_two_passes_read_ranks_only_from_sizes_that_follow_the_sample_size():
    (b1, t1), (b2, t2) = SAMPLE_SIZES
    where = {"graph_fn": "f"}
    assert ranks_of_two_passes((b1, t1, 4), (b2, t2, 4), where) == ((True, True, False), 2)
    assert ranks_of_two_passes((t1, b1, 4), (t2, b2, 4), where) == ((True, True, True), 2)
    assert ranks_of_two_passes((b1,), (b2,), where) == ((True, False, False), 1)
    assert ranks_of_two_passes((7, 4), (7, 4), where) == ((False, False, False), 0)  # 7 stays 7: core
    with pytest.raises(BuildError, match="rank changes"):
        ranks_of_two_passes((b1, 2), (b2,), where)
    with pytest.raises(BuildError, match="come first"):
        ranks_of_two_passes((3, b1), (3, b2), where)


def test_sample_passes_leave_no_trace_in_variables_they_wrote():
    class Counter(Component):
        def create_variables(self, input_spaces):
            self.total = self.create_variable("total", (), initializer=0.5, trainable=False)
            self.untouched = self.create_variable("untouched", (3,), initializer=2.0, trainable=False)

        @api
        @graph_fn
        def add(self, x):
            self.ops.assign_add(self.total, self.ops.reduce_sum(x))
            return x + self.total

    counter = Counter(name="counter")
    executor = build(counter, {"x": FloatBox(shape=(2,), add_batch_rank=True)}, backend="torch")
    weights = executor.get_weights()
    assert weights["total"] == 0.5 and np.all(weights["untouched"] == 2.0)
    assert counter.untouched._version == 0  # never written, never copied back
    np.testing.assert_allclose(executor.execute("add", np.ones((1, 2), np.float32)), [[3.5, 3.5]])


class FirstN(Component):
    """``x[:n]``: as many rows as an input *value* says — no space can say that without ``output_spaces``."""

    @api
    @graph_fn
    def run(self, x, n):
        return x[:n]


def test_a_size_that_depends_on_an_input_value_stops_the_tf_build():
    """TF's sample passes hide their values from shape inference: with plain zeros it folded ``n`` = 0 into the
    shape and gave ``(0, 3)`` without a word."""
    from rlworkbench.spaces import IntBox

    with pytest.raises(BuildError, match="dynamic dimension; declare output_spaces") as info:
        build(FirstN(name="first_n"), {"x": FloatBox(shape=(3,), add_batch_rank=True), "n": IntBox(5)}, backend="tf")
    assert (info.value.graph_fn, info.value.argument) == ("run", "output 0")
