"""What assembly refuses: calls across the tree, graph functions of others, records in containers, bool()."""

from __future__ import annotations

import pytest
from core_components import Agent, Linear, Scale

from rlworkbench import BuildError, Component, api, graph_fn
from rlworkbench.core import assemble
from rlworkbench.core.records import Record


class Parent(Component):
    """``mode`` picks which (allowed or forbidden) call ``run`` makes."""

    def __init__(self, mode: str):
        self.mode = mode
        self.child = Agent(name="child")
        self.sibling = Scale(name="sibling")
        super().__init__(self.child, self.sibling, name="parent")

    @api
    def run(self, x):
        if self.mode == "grandchild":
            return self.child.head.apply(x)
        if self.mode == "graph_fn_of_child":
            return self.child._sum(x)
        if self.mode == "container":
            return self.child.act([x, x])
        if self.mode == "dict_container":
            return self.sibling.apply({"a": x})
        if self.mode == "own_api":
            return self.twice(x)
        return self.child.act(x)

    @api
    def twice(self, x):
        return self.sibling.apply(self.sibling.apply(x))


class SiblingCaller(Component):
    """``left.apply`` calls its sibling ``right`` directly (not allowed)."""

    def __init__(self):
        self.right = Scale(name="right")
        self.left = _CallsOther(self.right)
        super().__init__(self.left, self.right, name="root")

    @api
    def run(self, x):
        return self.left.apply(x)


class _CallsOther(Component):
    def __init__(self, other: Component):
        super().__init__(name="left")
        self.other = other

    @api
    def apply(self, x):
        return self.other.apply(x)


class Truthy(Component):
    @api
    def run(self, x):
        return x if x else None


class GraphFnWithContainer(Component):
    @api
    def run(self, x):
        return self._fn((x, x))

    @graph_fn
    def _fn(self, pair):
        return pair[0]


def test_a_component_may_call_its_own_api_and_its_direct_children():
    graph = assemble(Parent("own_api"))
    edges = {(e.caller_path, e.caller_api, e.callee_path, e.callee_api) for e in graph.edges}
    assert ("parent", "run", "parent", "twice") in edges
    assert ("parent", "twice", "parent/sibling", "apply") in edges
    assemble(Parent("child"))  # a direct child: fine


def test_calling_a_grandchild_is_a_build_error():
    with pytest.raises(BuildError) as info:
        assemble(Parent("grandchild"))
    assert info.value.component == "parent/child/head"
    assert info.value.api_method == "apply"
    assert "'parent'" in str(info.value) and "direct sub-components" in str(info.value)


def test_calling_a_sibling_is_a_build_error():
    with pytest.raises(BuildError) as info:
        assemble(SiblingCaller())
    assert info.value.component == "root/right"
    assert info.value.api_method == "apply"
    assert "root/left" in str(info.value)


def test_calling_a_component_outside_the_graph_is_a_build_error():
    stranger = Scale(name="stranger")

    class Root(Component):
        @api
        def run(self, x):
            return stranger.apply(x)

    with pytest.raises(BuildError) as info:
        assemble(Root(name="root"))
    assert info.value.component == "stranger"


def test_api_method_of_an_unbuilt_component_outside_assembly():
    layer = Linear(3, name="layer")
    with pytest.raises(BuildError) as info:
        layer.apply(1.0)
    assert (info.value.component, info.value.api_method) == ("layer", "apply")
    assert "not built" in str(info.value)


def test_graph_fn_outside_assembly_of_an_unbuilt_component():
    with pytest.raises(BuildError) as info:
        Linear(3, name="layer")._dense(1.0)
    assert (info.value.component, info.value.graph_fn) == ("layer", "_dense")


def test_graph_fn_of_another_component_is_a_build_error():
    with pytest.raises(BuildError) as info:
        assemble(Parent("graph_fn_of_child"))
    assert info.value.component == "parent/child"
    assert info.value.graph_fn == "_sum"
    assert "its own component" in str(info.value)


@pytest.mark.parametrize("mode", ["container", "dict_container"])
def test_records_inside_python_containers_are_a_build_error(mode):
    with pytest.raises(BuildError) as info:
        assemble(Parent(mode))
    assert info.value.argument in ("states", "x")
    assert info.value.api_method in ("act", "apply")
    assert "container" in str(info.value)


def test_records_inside_a_container_passed_to_a_graph_fn():
    with pytest.raises(BuildError) as info:
        assemble(GraphFnWithContainer(name="root"))
    assert info.value.component == "root"
    assert "_fn" in info.value.argument


def test_bool_of_a_record_is_a_type_error():
    with pytest.raises(TypeError, match="no value during assembly"):
        bool(Record())
    with pytest.raises(TypeError, match="graph function"):
        assemble(Truthy(name="root"))


def test_a_failed_assembly_leaves_no_assembly_running():
    with pytest.raises(BuildError):
        assemble(Parent("grandchild"))
    graph = assemble(Parent("child"))  # would raise "an assembly is already running" otherwise
    assert graph.root.path == "parent"
