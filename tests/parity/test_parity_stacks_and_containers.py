"""Parity of PreprocessorStack, ContainerSplitter, ContainerMerger and GreedyActionSelector."""

from __future__ import annotations

import pytest

from rlworkbench import Component, api
from rlworkbench.components import ContainerMerger, ContainerSplitter, GreedyActionSelector, PreprocessorStack
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple


def test_preprocessor_stack_of_categories(parity, ranks):
    stack = [{"type": "clip", "low": 0, "high": 3}, {"type": "one_hot"}, {"type": "flatten"},
             {"type": "divide", "divisor": 2.0}]
    pair = parity(lambda: PreprocessorStack(stack), {"inputs": IntBox(-2, 6, shape=(2,), **ranks)})
    assert pair.tf.graph.output_space("preprocess") == FloatBox(0.0, 0.5, shape=(8,), **ranks)


def test_preprocessor_stack_on_nested_inputs(parity, ranks):
    stack = [{"type": "multiply", "factor": 3.0}, {"type": "clip", "low": -1.0, "high": 1.0},
             {"type": "reshape", "shape": [2, 2]}]
    space = Dict(a=FloatBox(shape=(4,)), b=Tuple(IntBox(-3, 3, shape=(2, 2)), FloatBox(shape=(1, 4))), **ranks)
    parity(lambda: PreprocessorStack(stack), {"inputs": space})


@pytest.mark.parametrize("keys", [("b/1", "a"), ("b",), ("c/x", "b/0")])
def test_container_splitter(parity, ranks, keys):
    space = Dict(a=FloatBox(shape=(2,)), b=Tuple(IntBox(4), BoolBox((2,))), c=Dict(x=FloatBox(shape=(3,))), **ranks)
    pair = parity(lambda: ContainerSplitter(*keys), {"inputs": space})
    expected = tuple(space["b"][int(k[-1])] if k.startswith("b/") else space[k] if "/" not in k else space["c"]["x"]
                     for k in keys)
    assert pair.tf.graph.output_space("split") == (expected[0] if len(expected) == 1 else expected)


@pytest.mark.parametrize("keys", [("obs", "act", "more"), ()])
def test_container_merger(parity, ranks, keys):
    spaces = [FloatBox(shape=(2,), **ranks), IntBox(3, **ranks), Tuple(FloatBox(), BoolBox((2,)), **ranks)]
    parity(lambda: ContainerMerger(*keys), {"inputs": spaces})


def test_container_merger_with_an_unbatched_input(parity):
    parity(lambda: ContainerMerger("constant", "batch"),
           {"inputs": [FloatBox(shape=(7,)), FloatBox(shape=(3,), add_batch_rank=True)]})


class _SplitMerge(Component):
    def __init__(self) -> None:
        super().__init__(ContainerSplitter("b", "a"), ContainerMerger("b", "a"), name="split_merge")

    @api
    def roundtrip(self, inputs):
        b, a = self.sub_components["container_splitter"].split(inputs)
        return self.sub_components["container_merger"].merge(b, a)


def test_split_then_merge(parity, ranks):
    space = Dict(a=IntBox(4, shape=(2,)), b=Tuple(FloatBox(shape=(3,)), IntBox(2)), **ranks)
    parity(_SplitMerge, {"inputs": space})


@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_greedy_action_selector(parity, ranks, shape):
    pair = parity(GreedyActionSelector, {"values": FloatBox(shape=shape, **ranks)})
    assert pair.tf.graph.output_space("select") == IntBox(shape[-1], shape=shape[:-1], **ranks)
