"""ContainerMerger: separate values into one Dict (by keys) or Tuple; exact spaces out; arity errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api
from rlworkbench.components import ContainerMerger, ContainerSplitter, from_spec
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest


@pytest.mark.parametrize("size, ranks", [(4, {"add_batch_rank": True}),
                                         ((2, 3), {"add_batch_rank": True, "add_time_rank": True})])
def test_merge_into_dict(backend, size, ranks):
    spaces = [FloatBox(shape=(2,), **ranks), IntBox(3, **ranks), Tuple(FloatBox(), IntBox(2, shape=(2,)), **ranks)]
    test = ComponentTest(ContainerMerger("obs", "act", "more"), input_spaces={"inputs": spaces}, backend=backend)
    a, b, c = (space.sample(size, seed=i) for i, space in enumerate(spaces))
    test.test(("merge", [a, b, c]), expected_outputs={"obs": a, "act": b, "more": c})
    assert test.graph.output_space("merge") == Dict(obs=spaces[0], act=spaces[1], more=spaces[2])


def test_merge_into_tuple(backend):
    spaces = [IntBox(5, add_batch_rank=True), FloatBox(shape=(3,), add_batch_rank=True)]
    test = ComponentTest(ContainerMerger(), input_spaces={"inputs": spaces}, backend=backend)
    a, b = spaces[0].sample(4, seed=1), spaces[1].sample(4, seed=2)
    out = test.test(("merge", [a, b]), expected_outputs=(a, b))
    assert isinstance(out, tuple) and out[0].dtype == np.int64
    assert test.graph.output_space("merge") == Tuple(*spaces)


def test_merge_keeps_each_inputs_own_ranks(backend):
    # an unbatched input whose size happens to equal a probe batch size must not be taken for a batch
    spaces = [FloatBox(shape=(7,)), FloatBox(shape=(3,), add_batch_rank=True)]
    test = ComponentTest(ContainerMerger("constant", "batch"), input_spaces={"inputs": spaces}, backend=backend)
    a, b = spaces[0].sample(seed=1), spaces[1].sample(2, seed=2)
    test.test(("merge", [a, b]), expected_outputs={"constant": a, "batch": b})
    out = test.graph.output_space("merge")
    assert out["constant"] == FloatBox(shape=(7,)) and out["batch"] == spaces[1]


@pytest.mark.parametrize("count", [1, 3])
def test_merge_with_the_wrong_number_of_inputs(backend, count):
    spaces = [FloatBox(shape=(2,), add_batch_rank=True)] * count
    with pytest.raises(SpaceError) as info:
        ComponentTest(ContainerMerger("a", "b"), input_spaces={"inputs": spaces}, backend=backend)
    error = info.value
    assert (error.component, error.api_method, error.expected, error.got) == ("container_merger", "merge", 2, count)
    assert "container_merger" in str(error)


def test_merger_from_a_spec_takes_a_list_of_keys(backend):
    merger = from_spec({"type": "container_merger", "keys": ["q", "v"]})
    spaces = [FloatBox(shape=(2,), add_batch_rank=True), FloatBox(add_batch_rank=True)]
    test = ComponentTest(merger, input_spaces={"inputs": spaces}, backend=backend)
    a, b = spaces[0].sample(3, seed=4), spaces[1].sample(3, seed=5)
    test.test(("merge", [a, b]), expected_outputs={"q": a, "v": b})


class _SplitMerge(Component):
    def __init__(self) -> None:
        super().__init__(ContainerSplitter("b", "a"), ContainerMerger("b", "a"), name="split_merge")

    @api
    def roundtrip(self, inputs):
        b, a = self.sub_components["container_splitter"].split(inputs)
        return self.sub_components["container_merger"].merge(b, a)


def test_split_then_merge_round_trips(backend):
    space = Dict(a=IntBox(4, shape=(2,)), b=Tuple(FloatBox(shape=(3,)), IntBox(2)), add_batch_rank=True)
    test = ComponentTest(_SplitMerge(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(5, seed=3)
    test.test(("roundtrip", x), expected_outputs={"b": x["b"], "a": x["a"]})
    assert test.graph.output_space("roundtrip") == Dict(b=space["b"], a=space["a"])
