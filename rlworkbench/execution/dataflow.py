"""What a running distributed plan looks like as dataflow: its actors and operators as nodes, what flows between
them as edges with live rates — the figures behind ``run.dataflow()``, the live drawing and the runs panel's tab.

A :class:`DataflowSnapshot` is plain data (no Ray): nodes (samplers, replay shards, the learner queue, the learner)
with their restarts, busy fraction and queue depth; edges with what they carry (``Fragment``, ``Transitions``,
``Batch``, ``Priorities``, ``Weights``), items and bytes so far and per second; and the edge that limits the run
(``bottleneck``), chosen by :func:`bottleneck_of`. It round-trips through JSON (``dataflow.json`` in a Ray run's
directory) so the lab extension's server can draw a run it did not start.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Literal

import pandas as pd

NodeKind = Literal["sampler", "shard", "queue", "learner"]
Carries = Literal["Fragment", "Transitions", "Batch", "Priorities", "Weights", "SampleReport"]

FILE_NAME = "dataflow.json"
EDGE_COLUMNS = ("source", "target", "carries", "items", "bytes", "items_per_s", "bytes_per_s", "bottleneck")
NODE_COLUMNS = ("node", "kind", "restarts", "busy", "depth", "capacity", "items_per_s", "error")

LEARNER_BUSY = 0.8      #: a learner working this share of the wall clock is the limit


@dataclass(frozen=True)
class FlowNode:
    """One actor or operator: ``id`` (``"sampler 0"``, ``"shard 1"``, ``"queue"``, ``"learner"``) and its kind;
    ``busy``: share of the wall clock it spent working (None where unknown); ``depth``/``capacity``: items waiting
    in a queue; ``items_per_s``: what it produced; ``error``: its last error (the reason of its last restart)."""

    id: str
    kind: NodeKind
    restarts: int = 0
    busy: float | None = None
    depth: int | None = None
    capacity: int | None = None
    items_per_s: float = 0.0
    error: str = ""


@dataclass(frozen=True)
class FlowEdge:
    """What flowed from ``source`` to ``target``: ``items`` of kind ``carries`` (``bytes`` of them) so far."""

    source: str
    target: str
    carries: Carries
    items: int = 0
    bytes: int = 0
    items_per_s: float = 0.0
    bytes_per_s: float = 0.0
    bottleneck: bool = False


@dataclass(frozen=True)
class DataflowSnapshot:
    """A plan's dataflow at ``wall_time`` seconds into its run (see the module docstring)."""

    plan: str
    wall_time: float
    nodes: tuple[FlowNode, ...] = ()
    edges: tuple[FlowEdge, ...] = ()
    notes: dict[str, float] = field(default_factory=dict)  #: plan-wide figures (updates/s, replay ratio, …)

    @property
    def bottleneck(self) -> FlowEdge | None:
        return next((edge for edge in self.edges if edge.bottleneck), None)

    def node(self, node_id: str) -> FlowNode:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"no node {node_id!r} in the {self.plan} plan; nodes: {[n.id for n in self.nodes]}")

    def edges_frame(self) -> pd.DataFrame:
        """One row per edge: ``source, target, carries, items, bytes, items_per_s, bytes_per_s, bottleneck``."""
        return pd.DataFrame([[getattr(edge, column) for column in EDGE_COLUMNS] for edge in self.edges],
                            columns=list(EDGE_COLUMNS))

    def nodes_frame(self) -> pd.DataFrame:
        """One row per node: ``node, kind, restarts, busy, depth, capacity, items_per_s, error``."""
        rows = [[node.id, node.kind, node.restarts, node.busy, node.depth, node.capacity, node.items_per_s,
                 node.error] for node in self.nodes]
        return pd.DataFrame(rows, columns=list(NODE_COLUMNS))

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> DataflowSnapshot:
        data = json.loads(text)
        return cls(plan=str(data["plan"]), wall_time=float(data["wall_time"]),
                   nodes=tuple(FlowNode(**node) for node in data.get("nodes", ())),
                   edges=tuple(FlowEdge(**edge) for edge in data.get("edges", ())),
                   notes={str(key): float(value) for key, value in (data.get("notes") or {}).items()})

    def write(self, directory: str | Path) -> Path:
        """Writes ``dataflow.json`` into ``directory`` atomically (a reader never sees half a file)."""
        path = Path(directory) / FILE_NAME
        partial = path.with_suffix(".json.partial")
        partial.write_text(self.to_json())
        partial.replace(path)
        return path


def read_dataflow(directory: str | Path) -> DataflowSnapshot | None:
    """The snapshot a run wrote into ``directory``, or None where it wrote none (a local run, an older run)."""
    path = Path(directory) / FILE_NAME
    return DataflowSnapshot.from_json(path.read_text()) if path.is_file() else None


def bottleneck_of(nodes: tuple[FlowNode, ...], edges: tuple[FlowEdge, ...]) -> tuple[FlowEdge, ...]:
    """``edges`` with the limiting one marked: the learner's input when the learner is busy at least
    :data:`LEARNER_BUSY` of the time; else a straggling sampler's output (below :data:`STRAGGLER_RATIO` of its
    peers' median rate); else the slowest sampler's output (sampling limits a run whose learner waits)."""
    by_id = {node.id: node for node in nodes}
    learner = next((node for node in nodes if node.kind == "learner"), None)
    chosen: FlowEdge | None = None
    if learner is not None and learner.busy is not None and learner.busy >= LEARNER_BUSY:
        chosen = max((edge for edge in edges if edge.target == learner.id), key=lambda e: e.items, default=None)
    if chosen is None:
        outputs = [edge for edge in edges if by_id.get(edge.source, FlowNode("", "queue")).kind == "sampler"
                   and edge.carries in ("Fragment", "Transitions")]
        if outputs:  # the slowest while working: a straggler in a synchronous plan waits for none
            chosen = min(outputs, key=lambda edge: edge.items_per_s / max(by_id[edge.source].busy or 1.0, 1e-3))
    return tuple(replace(edge, bottleneck=edge is chosen) for edge in edges)
