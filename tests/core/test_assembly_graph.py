"""Assembly of a nested composition: components, API methods, graph functions, call edges and records."""

from __future__ import annotations

from core_components import Agent, Linear, Scale, Stack

from rlworkbench.core import CallEdge, assemble
from rlworkbench.core.records import ApiCall, GraphFnCall, Record


def test_components_have_paths_classes_and_devices():
    root = Agent(device="cpu")
    root.head.device = "/CPU:0"
    graph = assemble(root)
    found = {c.path: (type(c), c.device) for c in graph.components}
    assert found == {
        "agent": (Agent, "cpu"),
        "agent/net": (Stack, None),
        "agent/head": (Scale, "/CPU:0"),
        "agent/net/dense_0": (Linear, None),
        "agent/net/dense_1": (Linear, None),
    }
    assert [c.path for c in graph.components][:3] == ["agent", "agent/net", "agent/head"]  # breadth first
    assert graph.component("net/dense_1") is root.net.layers[1]
    assert graph.component("agent/head") is root.head


def test_api_methods_and_graph_functions_are_declared_per_class():
    assert set(Agent.api_methods) == {"act", "value"}
    assert set(Agent.graph_fns) == {"_sum"}
    assert set(Linear.api_methods) == {"apply"} and set(Linear.graph_fns) == {"_dense"}
    assert Agent.api_methods["act"].params == ["states"]


def test_api_calls_and_graph_fn_calls_are_recorded():
    root = Agent()
    graph = assemble(root)
    api_calls = [(c.component.path, c.name) for c in graph.api_calls]
    assert api_calls == [
        ("agent", "act"), ("agent/net", "apply"), ("agent/net/dense_0", "apply"), ("agent/net/dense_1", "apply"),
        ("agent/head", "apply"),
        ("agent", "value"), ("agent/net", "apply"), ("agent/net/dense_0", "apply"), ("agent/net/dense_1", "apply"),
    ]
    fn_calls = [(c.component.path, c.name, c.api_call.name) for c in graph.graph_fn_calls]
    assert fn_calls == [
        ("agent/net/dense_0", "_dense", "apply"), ("agent/net/dense_1", "_dense", "apply"),
        ("agent/head", "_scale", "apply"),
        ("agent/net/dense_0", "_dense", "apply"), ("agent/net/dense_1", "_dense", "apply"),
        ("agent", "_sum", "value"),
    ]
    assert all(isinstance(c, ApiCall) for c in graph.api_calls)
    assert all(isinstance(c, GraphFnCall) for c in graph.graph_fn_calls)


def test_call_edges_are_deduplicated_caller_to_callee():
    graph = assemble(Agent())
    assert graph.edges == [
        CallEdge("agent", "act", "agent/net", "apply"),
        CallEdge("agent/net", "apply", "agent/net/dense_0", "apply"),
        CallEdge("agent/net", "apply", "agent/net/dense_1", "apply"),
        CallEdge("agent", "act", "agent/head", "apply"),
        CallEdge("agent", "value", "agent/net", "apply"),
    ]


def test_records_connect_the_calls():
    graph = assemble(Agent(), api_methods=["act"])
    states = graph.root_inputs["act"]["states"]
    assert isinstance(states, Record)
    assert states.producer is graph.root_call("act")
    dense_0, dense_1, scale = graph.graph_fn_calls
    assert dense_0.args == (states,)
    assert dense_1.args[0] is dense_0.outputs[0]
    assert scale.args[0] is dense_1.outputs[0]
    assert dense_0.outputs[0].producer is dense_0
    assert graph.root_call("act").outputs is scale.outputs[0]
    net_call = graph.calls_of(graph.component("net"))[0]
    assert net_call.inputs == {"inputs": states}
    assert net_call.outputs is dense_1.outputs[0]


def test_assembly_only_builds_what_it_is_asked_for():
    graph = assemble(Agent(), api_methods=["value"])
    assert list(graph.root_inputs) == ["value"]
    assert [c.path for c in graph.called_components] == ["agent", "agent/net", "agent/net/dense_0",
                                                          "agent/net/dense_1"]


def test_records_have_no_spaces_and_components_no_backend_after_assembly():
    root = Agent()
    graph = assemble(root)
    records = [r for inputs in graph.root_inputs.values() for r in inputs.values()]
    records += [r for call in graph.graph_fn_calls for r in call.outputs]
    assert records and all(r.space is None for r in records)
    assert graph.backend_name is None and graph.stuck is None
    assert all(c.backend is None and not c.built and c.input_spaces == {} for c in graph.components)
