"""The dataflow drawing (real graphviz) of Ape-X-shaped snapshots: every actor named, rates in human units on the
edges, queue depth and learner busy share on the nodes, restarts in red with the last error in the tooltip, the
bottleneck thick and orange, weights drawn back dashed, and 16 samplers in one cluster with one weights edge."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from rlworkbench.execution.dataflow import DataflowSnapshot, FlowEdge, FlowNode
from rlworkbench.visualize.dataflow_drawing import (
    BOTTLENECK_COLOR,
    RESTART_COLOR,
    bytes_rate_text,
    dataflow_dot,
    dataflow_svg,
    node_name,
    rate_text,
)
from tests.visualize.dataflow_helpers import ERROR, apex_snapshot

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"


def groups(svg: str, css_class: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [g for g in root.iter(f"{SVG}g") if css_class in (g.get("class") or "").split()]


def texts(element: ET.Element) -> list[str]:
    return ["".join(text.itertext()) for text in element.iter(f"{SVG}text")]


def tooltip(element: ET.Element) -> str:
    return next(a.get(XLINK_TITLE) for a in element.iter(f"{SVG}a"))


@pytest.mark.parametrize(("value", "items", "rate"), [
    (0.5, "0.5/s", "0.5 B/s"), (950, "950/s", "950 B/s"), (1234, "1.2k/s", "1.2 kB/s"),
    (450_000, "450k/s", "450 kB/s"), (3_400_000, "3.4M/s", "3.4 MB/s"), (1.1e9, "1.1G/s", "1.1 GB/s")])
def test_human_units(value, items, rate):
    assert rate_text(value) == items and bytes_rate_text(value) == rate


def test_every_actor_is_named_with_its_figures():
    snapshot = apex_snapshot()
    svg = dataflow_svg(snapshot)
    for node in snapshot.nodes:
        drawn = groups(svg, f"dataflow-{node.kind}")
        assert node.id in [texts(g)[0] for g in drawn], node.id
    assert "12 / 16" in texts(groups(svg, "dataflow-queue")[0])  # the queue's depth / capacity
    assert "busy 90 %" in texts(groups(svg, "dataflow-learner")[0])
    transitions = groups(svg, "dataflow-Transitions")
    assert len(transitions) == 2 and "1.2k/s · 450 kB/s" in texts(transitions[0])
    assert "apex · 12.5 s · updates per s 30" in svg


def test_restarts_are_red_with_the_last_error_in_the_tooltip():
    svg = dataflow_svg(apex_snapshot(restarts=3))
    (restarted,) = groups(svg, "dataflow-restarted")
    assert restarted.get("id") == node_name("sampler 1") == "dataflow-sampler-1"
    marker = next(t for t in restarted.iter(f"{SVG}text") if t.text == "↻ 3")
    assert marker.get("fill") == RESTART_COLOR
    assert ERROR in tooltip(restarted) and "restarted 3 time(s)" in tooltip(restarted)
    assert not groups(dataflow_svg(apex_snapshot(restarts=0)), "dataflow-restarted")


@pytest.mark.parametrize(("busy", "source", "target"), [(0.9, "queue", "learner"), (0.3, "sampler 0", "shard 0")])
def test_the_bottleneck_edge_stands_out(busy, source, target):
    snapshot = apex_snapshot(busy=busy)
    assert (snapshot.bottleneck.source, snapshot.bottleneck.target) == (source, target)
    svg = dataflow_svg(snapshot)
    (edge,) = groups(svg, "dataflow-bottleneck")
    assert f"{source} → {target}" in tooltip(edge) and "bottleneck" in tooltip(edge)
    path = next(edge.iter(f"{SVG}path"))
    assert path.get("stroke") == BOTTLENECK_COLOR and float(path.get("stroke-width")) >= 3
    others = [g for g in groups(svg, "dataflow-edge") if "dataflow-bottleneck" not in g.get("class")]
    assert len(others) == len(snapshot.edges) - 1 and all("bottleneck" not in tooltip(g) for g in others)
    assert all(next(g.iter(f"{SVG}path")).get("stroke") != BOTTLENECK_COLOR for g in others)


def test_weights_go_back_dashed_and_do_not_pull_the_layout():
    snapshot = apex_snapshot()
    svg = dataflow_svg(snapshot)
    weights = groups(svg, "dataflow-Weights")
    assert len(weights) == 2 and all(next(g.iter(f"{SVG}path")).get("stroke-dasharray") for g in weights)
    source = dataflow_dot(snapshot).source
    assert source.count("constraint=false") == 4  # 2 weights + 2 priorities edges


def positions(svg: str, kind: str) -> list[float]:
    return [float(next(g.iter(f"{SVG}text")).get("x")) for g in groups(svg, f"dataflow-{kind}")]


def test_left_to_right_samplers_shards_queue_learner():
    svg = dataflow_svg(apex_snapshot())
    xs = [positions(svg, kind) for kind in ("sampler", "shard", "queue", "learner")]
    assert max(xs[0]) < min(xs[1]) and max(xs[1]) < min(xs[2]) and max(xs[2]) < min(xs[3])


def test_sixteen_samplers_stay_legible():
    snapshot = apex_snapshot(samplers=16)
    svg = dataflow_svg(snapshot)
    assert all(f"sampler {i}" in svg for i in range(16))
    cluster = next(g for g in groups(svg, "cluster") if "16 samplers" in " ".join(texts(g)))
    assert "16 samplers · 20.4k/s" in texts(cluster)
    (broadcast,) = groups(svg, "dataflow-Weights")  # one dashed edge to the cluster, not 16
    assert "Weights to 16 samplers" in texts(broadcast) and "sampler 15: 0.5/s" in tooltip(broadcast)
    transitions = groups(svg, "dataflow-Transitions")
    assert len(transitions) == 16 and all(not texts(g) for g in transitions)  # figures in their tooltips
    assert "1.2k/s" in texts(groups(svg, "dataflow-sampler")[0])  # each sampler's rate in its own box
    height = float(ET.fromstring(svg).get("height").removesuffix("pt"))
    assert height < 60 * 16  # one row per sampler, not one per sampler edge label


def test_an_edge_end_the_plan_did_not_list_is_drawn_by_its_id():
    snapshot = DataflowSnapshot("impala", 1.0, (FlowNode("learner", "learner"),),
                                (FlowEdge("aggregator", "learner", "Batch", items_per_s=4.0),))
    svg = dataflow_svg(snapshot)
    assert "aggregator" in texts(ET.fromstring(svg)) or "aggregator" in svg
    assert not groups(svg, "dataflow-bottleneck")
    slow = replace(snapshot, edges=(replace(snapshot.edges[0], bottleneck=True),))
    assert len(groups(dataflow_svg(slow), "dataflow-bottleneck")) == 1
