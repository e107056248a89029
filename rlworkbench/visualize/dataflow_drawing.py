"""A running plan drawn from its :class:`~rlworkbench.execution.dataflow.DataflowSnapshot` (graphviz, left to right).

Samplers (one cluster, however many) → replay shards / the learner queue → the learner; what flows back (weights to
the samplers, dashed; priorities to the shards, dotted) does not pull the layout. Edges read ``items/s · bytes/s``
in human units; nodes their queue depth (``12 / 64``), busy share (``busy 85 %``) and restarts (a red ``↻ 2``, the
last error in the tooltip). The limiting edge is thick and orange, and its tooltip says ``bottleneck``. Past
:data:`MANY_SAMPLERS` samplers their edges keep their figures in tooltips only (each sampler's rate is in its own
box) and the weights broadcast is one edge to the cluster, so 16 samplers still read.

SVG hooks for views and tests: every node's ``<g>`` has ``id="dataflow-<node id>"`` (spaces as ``-``) and the
classes ``dataflow-<kind>`` and, once restarted, ``dataflow-restarted``; edges have ``dataflow-edge``,
``dataflow-<carries>`` and, on the limiting one, ``dataflow-bottleneck``.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from rlworkbench.extras import require
from rlworkbench.visualize.palette import CHANGED_COLOR, DEFAULT_FILL, STUCK_COLOR, DevicePalette

if TYPE_CHECKING:
    from rlworkbench.execution.dataflow import DataflowSnapshot, FlowEdge, FlowNode

graphviz = require("graphviz", "drawing graphs (rlworkbench.visualize)")

KINDS = ("sampler", "shard", "queue", "learner")  #: drawn left to right in this order
BACKWARD = {"Weights": "dashed", "Priorities": "dotted"}  #: what flows back, and its line style
MANY_SAMPLERS = 6  #: above this, sampler edges carry their figures in tooltips only
BOTTLENECK_COLOR = CHANGED_COLOR
RESTART_COLOR = STUCK_COLOR
BUSY_LIMIT = 0.8  #: a node busier than this gets an orange border
_FONT = "Helvetica"
_EDGE_COLOR = "#475569"
_BACK_COLOR = "#94a3b8"


def rate_text(per_second: float) -> str:
    """Items per second in human units: ``0.5/s``, ``950/s``, ``1.2k/s``, ``3.4M/s``."""
    return f"{_scaled(per_second, ('', 'k', 'M', 'G'))}/s"


def bytes_rate_text(per_second: float) -> str:
    """Bytes per second in decimal units: ``512 B/s``, ``1.2 kB/s``, ``3.4 MB/s``, ``1.1 GB/s``."""
    return f"{_scaled(per_second, (' B', ' kB', ' MB', ' GB', ' TB'))}/s"


def bytes_text(count: float) -> str:
    return _scaled(count, (" B", " kB", " MB", " GB", " TB"))


def _scaled(value: float, units: tuple[str, ...]) -> str:
    step = 0
    while abs(value) >= 999.5 and step < len(units) - 1:
        value, step = value / 1000.0, step + 1
    digits = 0 if step == 0 and (value == int(value) or abs(value) >= 10) else 1
    if step and abs(value) >= 100:
        digits = 0
    return f"{value:.{digits}f}{units[step]}"


def node_name(node_id: str) -> str:
    """The SVG id of a node's group: ``dataflow-sampler-0``."""
    return "dataflow-" + re.sub(r"[^A-Za-z0-9_]+", "-", node_id).strip("-")


def dataflow_dot(snapshot: DataflowSnapshot) -> graphviz.Digraph:
    """The snapshot as a graphviz ``Digraph`` (see the module docstring)."""
    graph = graphviz.Digraph(name=f"dataflow {snapshot.plan}")
    graph.attr(rankdir="LR", compound="true", nodesep="0.15", ranksep="0.9", fontname=_FONT, fontsize="11",
               labelloc="t", labeljust="l", label=_title(snapshot), tooltip=f"{snapshot.plan} dataflow")
    graph.attr("node", shape="box", style="rounded,filled", fontname=_FONT, fontsize="10", margin="0.12,0.05")
    graph.attr("edge", fontname=_FONT, fontsize="9", color=_EDGE_COLOR, fontcolor="#334155", arrowsize="0.7")
    palette = DevicePalette()
    fills = {kind: palette.fill(kind) for kind in KINDS}
    nodes = {node.id: node for node in snapshot.nodes}
    names = {node_id: f"n{index}" for index, node_id in enumerate(_all_ids(snapshot))}
    samplers = [node for node in snapshot.nodes if node.kind == "sampler"]
    many = len(samplers) > MANY_SAMPLERS
    with graph.subgraph(name="cluster_samplers") as cluster:
        total = sum(node.items_per_s for node in samplers)
        cluster.attr(label=f"{len(samplers)} samplers · {rate_text(total)}", style="rounded,dashed",
                     color="#cbd5e1", fontsize="10", tooltip=f"{len(samplers)} samplers")
        for node in samplers:
            _draw_node(cluster, names[node.id], node, fills, show_rate=many)
    for kind in KINDS[1:]:
        with graph.subgraph() as rank:
            rank.attr(rank="same")
            for node in (node for node in snapshot.nodes if node.kind == kind):
                _draw_node(rank, names[node.id], node, fills, show_rate=False)
    for node_id in names:
        if node_id not in nodes:  # an edge's end the plan did not list as a node
            graph.node(names[node_id], label=node_id, fillcolor=DEFAULT_FILL, id=node_name(node_id))
    weights = [edge for edge in snapshot.edges if edge.carries == "Weights"
               and nodes.get(edge.target, None) in samplers]
    merged = many and len(weights) > 1
    for edge in snapshot.edges:
        if merged and edge in weights:
            continue
        from_sampler = edge.source in nodes and nodes[edge.source].kind == "sampler"
        _draw_edge(graph, names, edge, labelled=not (many and from_sampler) or edge.bottleneck)
    if merged:
        _draw_broadcast(graph, names, weights, samplers)
    return graph


def dataflow_svg(snapshot: DataflowSnapshot) -> str:
    """:func:`dataflow_dot` rendered to SVG text."""
    return dataflow_dot(snapshot).pipe(format="svg").decode("utf-8")


def _all_ids(snapshot: DataflowSnapshot) -> list[str]:
    ids = [node.id for node in snapshot.nodes]
    for edge in snapshot.edges:
        ids += [end for end in (edge.source, edge.target) if end not in ids]
    return ids


def _title(snapshot: DataflowSnapshot) -> str:
    notes = "".join(f" · {key.replace('_', ' ')} {value:,.3g}" for key, value in snapshot.notes.items())
    return f"{snapshot.plan} · {snapshot.wall_time:,.1f} s{notes}"


def _draw_node(graph: graphviz.Digraph, name: str, node: FlowNode, fills: dict[str, str], show_rate: bool) -> None:
    lines = [f"<B>{html.escape(node.id)}</B>"]
    if node.depth is not None:
        lines.append(f"{node.depth:,} / {node.capacity:,}" if node.capacity else f"{node.depth:,} waiting")
    if node.busy is not None:
        lines.append(f"busy {node.busy:.0%}".replace("%", " %"))
    if show_rate and node.items_per_s:
        lines.append(rate_text(node.items_per_s))
    if node.restarts:
        lines.append(f'<FONT COLOR="{RESTART_COLOR}">↻ {node.restarts}</FONT>')
    busy = node.busy is not None and node.busy >= BUSY_LIMIT
    full = node.depth is not None and node.capacity is not None and 0 < node.capacity <= node.depth
    classes = f"dataflow-{node.kind}" + (" dataflow-restarted" if node.restarts else "")
    graph.node(name, label=f"<{'<BR/>'.join(lines)}>", fillcolor=fills.get(node.kind, DEFAULT_FILL),
               color=RESTART_COLOR if node.restarts else BOTTLENECK_COLOR if busy or full else "#64748b",
               penwidth="2" if node.restarts or busy or full else "1", tooltip=_node_tooltip(node),
               id=node_name(node.id), **{"class": classes})


def _node_tooltip(node: FlowNode) -> str:
    parts = [f"{node.id} ({node.kind})", f"{rate_text(node.items_per_s)} out"]
    if node.depth is not None:
        parts.append(f"queue depth {node.depth:,}" + (f" of {node.capacity:,}" if node.capacity else ""))
    if node.busy is not None:
        parts.append(f"busy {node.busy:.0%} of the wall clock")
    if node.restarts:
        parts.append(f"restarted {node.restarts} time(s)" + (f"; last error: {node.error}" if node.error else ""))
    return "\n".join(parts)


def _edge_tooltip(edge: FlowEdge) -> str:
    text = (f"{edge.carries}: {edge.source} → {edge.target}\n{edge.items:,} items ({bytes_text(edge.bytes)}) so far"
            f"\n{rate_text(edge.items_per_s)} · {bytes_rate_text(edge.bytes_per_s)}")
    return text + ("\nbottleneck: this edge limits the run" if edge.bottleneck else "")


def _draw_edge(graph: graphviz.Digraph, names: dict[str, str], edge: FlowEdge, labelled: bool) -> None:
    style = BACKWARD.get(edge.carries)
    label = f"{edge.carries}\n{rate_text(edge.items_per_s)} · {bytes_rate_text(edge.bytes_per_s)}"
    attributes = {"tooltip": _edge_tooltip(edge), "labeltooltip": _edge_tooltip(edge),
                  "class": f"dataflow-edge dataflow-{edge.carries}" + (" dataflow-bottleneck" if edge.bottleneck
                                                                        else "")}
    if labelled:
        attributes["label"] = label
    if style:
        attributes.update(style=style, constraint="false", color=_BACK_COLOR, fontcolor="#64748b")
    if edge.bottleneck:
        attributes.update(color=BOTTLENECK_COLOR, fontcolor=BOTTLENECK_COLOR, penwidth="3.5")
    graph.edge(names[edge.source], names[edge.target], **attributes)


def _draw_broadcast(graph: graphviz.Digraph, names: dict[str, str], weights: list[FlowEdge],
                    samplers: list[FlowNode]) -> None:
    """One dashed edge from the learner to the samplers' cluster for all their weights edges."""
    items_per_s, bytes_per_s = sum(e.items_per_s for e in weights), sum(e.bytes_per_s for e in weights)
    sources = sorted({edge.source for edge in weights})
    label = f"Weights to {len(weights)} samplers\n{rate_text(items_per_s)} · {bytes_rate_text(bytes_per_s)}"
    lines = [f"{e.target}: {rate_text(e.items_per_s)} · {bytes_rate_text(e.bytes_per_s)}" for e in weights]
    graph.edge(names[sources[0]], names[samplers[len(samplers) // 2].id], label=label, lhead="cluster_samplers",
               style="dashed", constraint="false", color=_BACK_COLOR, fontcolor="#64748b",
               tooltip="\n".join([label.replace("\n", ": "), *lines]),
               **{"class": "dataflow-edge dataflow-Weights"})
