"""Output-space parity: two builds of one component tree, leaf by leaf, at every record of the component graph.

The root's API outputs are not enough: a sub-component's graph function can disagree between backends (a rank
one backend sees and the other does not) and the next component absorb it. So every API call's inputs and
outputs and every graph function's outputs are compared, each leaf by class, dtype, core shape, batch/time ranks
and bounds, and a difference is named by component, call and key path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.core.graph import ComponentGraph
from rlworkbench.core.records import Record
from rlworkbench.spaces import BoxSpace, Space


def leaf_description(space: BoxSpace) -> tuple[Any, ...]:
    """What must agree of one leaf space."""
    bounds = ()
    if hasattr(space, "low"):
        bounds = (np.asarray(space.low).tolist(), np.asarray(space.high).tolist())
    return (type(space).__name__, space.dtype.name, tuple(space.shape), space.has_batch_rank, space.has_time_rank,
            space.has_time_rank and space.time_major, bounds)


def space_differences(torch_space: Space | None, tf_space: Space | None, where: str) -> list[str]:
    if torch_space is None or tf_space is None:
        return [] if torch_space is tf_space else [f"{where}: torch {torch_space!r} vs tf {tf_space!r}"]
    torch_leaves, tf_leaves = torch_space.flatten(), tf_space.flatten()
    if list(torch_leaves) != list(tf_leaves):
        return [f"{where}: structure torch {list(torch_leaves)} vs tf {list(tf_leaves)}"]
    return [f"{where}{f', key {key!r}' if key else ''}: torch {torch_leaves[key]!r} vs tf {tf_leaves[key]!r}"
            for key in torch_leaves if leaf_description(torch_leaves[key]) != leaf_description(tf_leaves[key])]


def _record_spaces(value: Any) -> list[tuple[str, Space | None]]:
    return [(path or "output", leaf.space) for path, leaf in nest.items(value) if isinstance(leaf, Record)]


def graph_space_differences(torch_graph: ComponentGraph, tf_graph: ComponentGraph) -> list[str]:
    """Every record of the two graphs (built from equal trees), leaf by leaf; returns the differences found."""
    assert len(torch_graph.api_calls) == len(tf_graph.api_calls), "the two graphs have other API calls"
    assert len(torch_graph.graph_fn_calls) == len(tf_graph.graph_fn_calls), "the two graphs have other graph fns"
    found: list[str] = []
    for a, b in zip(torch_graph.api_calls, tf_graph.api_calls):
        assert (a.component.path, a.name) == (b.component.path, b.name), "the two graphs differ in their calls"
        where = f"{a.component.path}.{a.name}"
        for param in a.input_records():
            found += space_differences(a.inputs[param].space, b.inputs[param].space, f"{where} input {param!r}")
        for (path, space_a), (_, space_b) in zip(_record_spaces(a.outputs), _record_spaces(b.outputs)):
            found += space_differences(space_a, space_b, f"{where} {path}")
    for a, b in zip(torch_graph.graph_fn_calls, tf_graph.graph_fn_calls):
        for index, (out_a, out_b) in enumerate(zip(a.outputs, b.outputs)):
            found += space_differences(out_a.space, out_b.space,
                                       f"{a.component.path}.{a.name} (graph function) output {index}")
    return list(dict.fromkeys(found))


def assert_same_graph_spaces(torch_graph: ComponentGraph, tf_graph: ComponentGraph) -> None:
    differences = graph_space_differences(torch_graph, tf_graph)
    assert not differences, "output spaces differ between the backends:\n" + "\n".join(differences[:20])
