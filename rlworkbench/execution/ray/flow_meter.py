"""Counts what flows through a running plan — items and bytes per edge, working seconds per node, queue depths,
restarts — and turns the counts into a :class:`~rlworkbench.execution.dataflow.DataflowSnapshot`.

Operators report into one :class:`FlowMeter` as they move values (:meth:`FlowMeter.flow`, :meth:`FlowMeter.work`);
rates are taken over a recent window (the last :data:`WINDOW` seconds or more), so the drawing follows a run
whose pace changes instead of averaging its whole history.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rlworkbench.execution.dataflow import Carries, DataflowSnapshot, FlowEdge, FlowNode, NodeKind, bottleneck_of

WINDOW = 10.0  #: seconds of history behind a rate


@dataclass
class _Edge:
    carries: Carries
    items: int = 0
    bytes: int = 0


@dataclass
class _Node:
    kind: NodeKind
    busy_seconds: float = 0.0
    produced: int = 0


@dataclass
class _Mark:
    """The counts at one moment: rates are taken from the newest of two marks at least a window old (between one
    and two windows of history; less only in a run's first window)."""

    time: float
    edges: dict[tuple[str, str], tuple[int, int]]
    produced: dict[str, int]


class FlowMeter:
    """The dataflow counts of one run of plan ``plan``; ``clock`` gives seconds (a test may pass its own)."""

    def __init__(self, plan: str, clock: Callable[[], float] = time.perf_counter):
        self.plan, self.clock = plan, clock
        self.started = clock()
        self._marks = [_Mark(self.started, {}, {}), _Mark(self.started, {}, {})]
        self.nodes: dict[str, _Node] = {}
        self.edges: dict[tuple[str, str], _Edge] = {}
        self.depths: dict[str, tuple[int, int]] = {}
        self.restarts: dict[str, int] = {}
        self.errors: dict[str, str] = {}
        self.notes: dict[str, float] = {}
        self._lock = threading.Lock()  # the run's thread writes, a notebook's thread reads

    def node(self, node_id: str, kind: NodeKind) -> None:
        """Declares a node (an actor or an operator), so it is drawn before anything flowed through it."""
        with self._lock:
            self.nodes.setdefault(node_id, _Node(kind))

    def flow(self, source: str, target: str, carries: Carries, items: int = 1, nbytes: int = 0) -> None:
        """``items`` of kind ``carries`` (``nbytes`` in all) went from ``source`` to ``target``."""
        with self._lock:
            edge = self.edges.setdefault((source, target), _Edge(carries))
            edge.items += int(items)
            edge.bytes += int(nbytes)

    def work(self, node_id: str, seconds: float, produced: int = 0) -> None:
        """Node ``node_id`` worked ``seconds`` and produced ``produced`` units (env steps, updates)."""
        with self._lock:
            node = self.nodes[node_id]
            node.busy_seconds += float(seconds)
            node.produced += int(produced)

    def depth(self, node_id: str, depth: int, capacity: int) -> None:
        with self._lock:
            self.depths[node_id] = (int(depth), int(capacity))

    def restarted(self, node_id: str, error: str = "") -> None:
        with self._lock:
            self.restarts[node_id] = self.restarts.get(node_id, 0) + 1
        if error:
            self.failed(node_id, error)

    def failed(self, node_id: str, error: str) -> None:
        """Keeps ``error`` as the node's last one (shown with its restarts)."""
        with self._lock:
            self.errors[node_id] = error

    def snapshot(self) -> DataflowSnapshot:
        """The plan's dataflow now: rates over the recent window, busy shares over the whole run."""
        with self._lock:
            now = self.clock()
            older, newer = self._marks
            mark = newer if now - newer.time >= WINDOW else older  # the newest at least a window old
            window, elapsed = max(now - mark.time, 1e-9), max(now - self.started, 1e-9)
            nodes = tuple(FlowNode(
                node_id, node.kind, restarts=self.restarts.get(node_id, 0),
                busy=min(node.busy_seconds / elapsed, 1.0) if node.busy_seconds else None,
                depth=self.depths.get(node_id, (None, None))[0], capacity=self.depths.get(node_id, (None, None))[1],
                items_per_s=(node.produced - mark.produced.get(node_id, 0)) / window,
                error=self.errors.get(node_id, "")) for node_id, node in self.nodes.items())
            edges = tuple(FlowEdge(source, target, edge.carries, edge.items, edge.bytes,
                                   (edge.items - mark.edges.get((source, target), (0, 0))[0]) / window,
                                   (edge.bytes - mark.edges.get((source, target), (0, 0))[1]) / window)
                          for (source, target), edge in self.edges.items())
            if now - self._marks[1].time >= WINDOW:  # the window slides
                self._marks = [self._marks[1], _Mark(now, {key: (e.items, e.bytes) for key, e in self.edges.items()},
                                                     {key: n.produced for key, n in self.nodes.items()})]
            return DataflowSnapshot(self.plan, now - self.started, nodes, bottleneck_of(nodes, edges),
                                    dict(self.notes))
