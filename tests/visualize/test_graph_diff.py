"""Graph diffs: what changed between two builds, and how render_graph marks it."""

from __future__ import annotations

import html
import re

from rlworkbench.components import Dense, NeuralNetwork
from rlworkbench.core.builder import build
from rlworkbench.spaces import FloatBox
from rlworkbench.visualize import render_graph
from rlworkbench.visualize.graph_diff import GraphChanges, compare, snapshot
from rlworkbench.visualize.palette import ADDED_COLOR, CHANGED_COLOR

INPUTS = {"inputs": FloatBox((3,), add_batch_rank=True)}


def built(*units: int) -> NeuralNetwork:
    network = NeuralNetwork([Dense(u, name=f"d{i}") for i, u in enumerate(units)], name="net")
    build(network, INPUTS, backend="torch")
    return network


def test_added_changed_and_removed_components_by_path():
    before, after = snapshot(built(8, 4)), snapshot(built(8, 6, 2))
    changes = compare(before, after)
    assert changes.added == {"net/d2"} and changes.changed == {"net", "net/d1"} and changes.removed == ()
    assert compare(after, before).removed == ("net/d2",)
    assert not compare(before, snapshot(built(8, 4)))  # new objects, same fingerprint: nothing changed
    assert compare(None, after) == GraphChanges()
    assert changes.summary() == "+1 added, ~2 changed, -0 removed"


def test_render_marks_changes_and_edges_whose_spaces_changed():
    first = built(8, 4)
    drawing = render_graph(first)
    assert drawing.edge_labels and all(isinstance(k, tuple) and len(k) == 2 for k in drawing.edge_labels)
    second = built(8, 6)
    changes = compare(snapshot(first), snapshot(second), drawing.edge_labels)
    redrawn = render_graph(second, changes=changes)
    svg = redrawn.pipe(format="svg").decode()
    changed_edges = [k for k, label in redrawn.edge_labels.items() if changes.edge_changed(k, label)]
    assert changed_edges and any("d1" in key[0] + key[1] for key in changed_edges)
    assert svg.count(CHANGED_COLOR) >= 3 and "changed (2)" in svg and "space changed" in svg
    assert "added (0)" in svg and svg.count(ADDED_COLOR) == 1  # the legend's entry only: nothing was added
    same = built(8, 4)  # the same composition built again: no component or edge counts as changed
    again = compare(snapshot(first), snapshot(same), drawing.edge_labels)
    redrawn_same = render_graph(same, changes=again)
    assert not again and set(redrawn_same.edge_labels) == set(drawing.edge_labels)
    assert not [k for k, label in redrawn_same.edge_labels.items() if again.edge_changed(k, label)]
    assert CHANGED_COLOR not in redrawn_same.pipe(format="svg").decode().split("cluster_legend")[0]


def test_the_legend_names_removed_components_unambiguously_and_counts_the_rest():
    network = built(8, 4)  # net/d0, net/d1 are drawn
    removed = ("net/left/d1", "net/right/d1", "net/left/extra", *(f"net/old{i}" for i in range(6)))
    svg = render_graph(network, changes=GraphChanges(removed=removed)).pipe(format="svg").decode()
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    at = texts.index("removed:")
    assert texts[at + 1:at + 8] == ["left/d1", "right/d1", "extra", "old0", "old1", "old2", "+3 more"]
    assert "old3" not in texts and "d1" not in texts[at + 1:]  # "d1" alone would also name the drawn net/d1
