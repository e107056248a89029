"""The live view's Dataflow section: hidden for a run without a plan, the drawing (every actor, the bottleneck)
once the run's directory or its execution gives a snapshot, redrawn only when the figures change, and a snapshot
that cannot be read said in the section instead of stopping the view."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from rlworkbench.execution.dataflow import DataflowSnapshot
from rlworkbench.workbench import promote
from rlworkbench.workbench.live_dataflow import DataflowPane, dataflow_snapshot_of
from tests.visualize.dataflow_helpers import apex_snapshot
from tests.workbench.run_helpers import small_dqn

ACTORS = ("sampler 0", "sampler 1", "shard 0", "shard 1", "queue", "learner")


def test_a_local_run_has_no_dataflow_until_its_directory_holds_one(tmp_path, monkeypatch):
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(tmp_path / "records"))
    run = promote(small_dqn(), timesteps=200, logdir=tmp_path / "runs", seed=0).wait(timeout=60)
    widget = run.widget(interval=0.05)
    view = run.view
    view.refresh()
    assert view.dataflow.widget in widget.children and not view.dataflow.shown
    assert dataflow_snapshot_of(run) is None and view.dataflow.html.value == ""

    apex_snapshot().write(run.logdir)  # what a Ray run (or a cluster job's mirror) leaves in its directory
    view.refresh()
    assert view.dataflow.shown and view.dataflow.widget.get_title(0) == "Dataflow"
    drawn = html.unescape(view.dataflow.html.value)  # graphviz writes '-' in attributes as &#45;
    assert all(actor in drawn for actor in ACTORS) and "<svg" in drawn and "dataflow-bottleneck" in drawn
    assert "bottleneck: Batch queue → learner" in drawn and "↻ 2" in drawn
    run.close()


@dataclass
class PlanExecution:
    """The one method the view asks a distributed execution for; ``snapshots`` are handed out in turn."""

    snapshots: list[Any] = field(default_factory=list)

    def dataflow_snapshot(self) -> DataflowSnapshot | None:
        item = self.snapshots.pop(0) if len(self.snapshots) > 1 else self.snapshots[0]
        if isinstance(item, Exception):
            raise item
        return item


@dataclass
class PlanRun:
    execution: PlanExecution
    logdir: None = None


def test_the_pane_follows_the_executions_snapshots():
    first, faster = apex_snapshot(), apex_snapshot(scale=3.0, wall_time=13.5)
    run = PlanRun(PlanExecution([None, first, first, faster, RuntimeError("the meter's actor died"), None]))
    pane = DataflowPane()
    pane.refresh(run)
    assert not pane.shown and pane.draws == 0  # None: nothing to draw yet
    pane.refresh(run)
    assert pane.shown and pane.draws == 1 and "1.2k/s · 450 kB/s" in pane.html.value
    pane.refresh(run)
    assert pane.draws == 1  # the same figures: no new drawing
    pane.refresh(run)
    assert pane.draws == 2 and "3.6k/s · 1.4 MB/s" in pane.html.value and "13.5 s" in pane.html.value
    pane.refresh(run)
    assert pane.shown and "cannot draw the dataflow: RuntimeError: the meter&#x27;s actor died" in pane.html.value
    pane.refresh(run)
    assert not pane.shown  # the execution has no plan (any more)
