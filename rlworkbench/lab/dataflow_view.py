"""A run's dataflow for the lab extension's Dataflow tab: the ``dataflow.json`` a Ray run keeps in its directory
(about once a second), drawn by :mod:`rlworkbench.visualize.dataflow_drawing`, with its nodes and edges as rows."""

from __future__ import annotations

import json
from pathlib import Path

from rlworkbench.execution.dataflow import FILE_NAME, read_dataflow


def has_dataflow(logdir: str | None) -> bool:
    """Whether the run directory ``logdir`` holds a ``dataflow.json``."""
    return bool(logdir) and (Path(str(logdir)) / FILE_NAME).is_file()


def dataflow_payload(logdir: str | Path) -> dict[str, object] | None:
    """``{"plan", "wall_time", "svg", "nodes": [row …], "edges": [row …], "bottleneck": edge row | None,
    "notes"}`` of the snapshot in ``logdir``; None when there is none. Rows are ``nodes_frame``/``edges_frame``'s."""
    from rlworkbench.visualize.dataflow_drawing import dataflow_svg

    snapshot = read_dataflow(logdir)
    if snapshot is None:
        return None
    edges = json.loads(snapshot.edges_frame().to_json(orient="records"))
    return {"plan": snapshot.plan, "wall_time": snapshot.wall_time, "svg": dataflow_svg(snapshot),
            "nodes": json.loads(snapshot.nodes_frame().to_json(orient="records")), "edges": edges,
            "bottleneck": next((edge for edge in edges if edge["bottleneck"]), None), "notes": snapshot.notes}
