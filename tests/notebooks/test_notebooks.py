"""The guided notebooks: stored without outputs, and each one executes headless from top to bottom.

Each runs in a fresh kernel (papermill), in a temporary working directory so training runs write there; the
training notebook gets a smaller budget through its ``parameters`` cell. The checks on the outputs make sure
the pictures really came out (graphs as SVG, widgets as widget views, tables as HTML).
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import papermill
import pytest

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
PARAMETERS = {"train_dqn_cartpole.ipynb": {"TIMESTEPS": 3000, "LIVE_SECONDS": 4},
              "graph_builder.ipynb": {"TIMESTEPS": 1500},
              "multi_device.ipynb": {"TIMESTEPS": 2000},
              "distributed.ipynb": {"TIMESTEPS": 3000, "IMPALA_TIMESTEPS": 6000, "PLAN_TIMESTEPS": 3000,
                                    "GROUP_TIMESTEPS": 1024},
              "cluster.ipynb": {"TIMESTEPS": 10**7, "EPISODES_TO_WATCH": 5},
              "experiments.ipynb": {"BUDGET": 800, "COMPARE_BUDGET": 600},
              "recurrent.ipynb": {"TIMESTEPS": 10_000}}
WIDGET = "application/vnd.jupyter.widget-view+json"


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def test_the_four_guided_notebooks_are_there():
    assert {p.name for p in notebook_paths()} >= {"quickstart.ipynb", "subgraph_testing.ipynb",
                                                  "visual_debugging.ipynb", "train_dqn_cartpole.ipynb"}


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear outputs before commit"


def executed(path: Path, tmp_path: Path) -> nbformat.NotebookNode:
    output = tmp_path / path.name
    papermill.execute_notebook(str(path), str(output), parameters=PARAMETERS.get(path.name, {}), cwd=str(tmp_path),
                               kernel_name="python3", progress_bar=False, execution_timeout=300)
    return nbformat.read(output, as_version=4)


def mime_outputs(notebook: nbformat.NotebookNode, mime: str) -> list[str]:
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if mime in data:
                value = data[mime]
                found.append(value if isinstance(value, str) else json.dumps(value))
    return found


def errors(notebook: nbformat.NotebookNode) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in notebook.cells for o in c.get("outputs", [])
            if o.get("output_type") == "error"]


def test_quickstart(tmp_path):
    notebook = executed(NOTEBOOKS / "quickstart.ipynb", tmp_path)
    assert not errors(notebook)
    svgs = mime_outputs(notebook, "image/svg+xml")
    assert any("not built" in svg for svg in svgs) and any("built on torch" in svg for svg in svgs)
    assert "largest difference torch vs tf" in json.dumps(notebook.cells)


def test_subgraph_testing(tmp_path):
    notebook = executed(NOTEBOOKS / "subgraph_testing.ipynb", tmp_path)
    assert not errors(notebook)
    tables = mime_outputs(notebook, "text/html")
    assert sum("key_path" in table and "call_ms" in table for table in tables) >= 2


def test_visual_debugging(tmp_path):
    notebook = executed(NOTEBOOKS / "visual_debugging.ipynb", tmp_path)
    assert not errors(notebook)
    svgs = mime_outputs(notebook, "image/svg+xml")
    assert any("PrioritizedReplay" in svg for svg in svgs)
    assert any("/CPU:1" in svg and "memory (PrioritizedReplay)" in svg for svg in svgs)  # the full agent, mapped
    assert any("same as policy" in svg for svg in svgs)  # the target network folded
    assert any("stuck on torch" in svg and "priorities" in svg for svg in svgs)  # the broken build
    assert len(mime_outputs(notebook, WIDGET)) >= 2  # GraphExplorer and Probe


def test_train_dqn_cartpole(tmp_path):
    notebook = executed(NOTEBOOKS / "train_dqn_cartpole.ipynb", tmp_path)
    assert not errors(notebook)
    assert mime_outputs(notebook, WIDGET)  # the live run view
    assert list((tmp_path / "runs").glob("*/checkpoints/final"))


def test_multi_device(tmp_path):
    notebook = executed(NOTEBOOKS / "multi_device.ipynb", tmp_path)
    assert not errors(notebook)
    svgs = mime_outputs(notebook, "image/svg+xml")
    assert any("tower_0 (Tower)" in svg and "tower_1 (Tower)" in svg and "/CPU:1" in svg for svg in svgs)
    assert "largest weight difference after 5 updates" in json.dumps(notebook.cells)
    assert "devices=['/CPU:0', '/CPU:1']" in json.dumps(notebook.cells)  # the two-tower TF agent was promoted
    assert mime_outputs(notebook, WIDGET)  # the live run view
    assert list((tmp_path / "runs").glob("*/checkpoints/final"))


@pytest.mark.solo  # its kernel starts a Ray session
def test_distributed(tmp_path):
    notebook = executed(NOTEBOOKS / "distributed.ipynb", tmp_path)
    assert not errors(notebook)
    assert len(mime_outputs(notebook, WIDGET)) >= 1  # the live run view, its per-worker table inside
    tables = mime_outputs(notebook, "text/html")
    assert any("weights_behind" in table and "env_steps_per_s" in table for table in tables)  # run.workers
    assert any("capacity" in table and "fill" in table for table in tables)  # run.shards
    assert "ActorDiedError" in json.dumps(notebook.cells)  # the killed IMPALA sampler, restarted
    assert any("bottleneck" in table and "Fragment" in table for table in tables)  # run.dataflow()
    assert any("sampler 0" in svg and "learner" in svg for svg in mime_outputs(notebook, "image/svg+xml"))
    assert any("two_fragment_impala" in table for table in tables)  # the user's plan, registered
    assert "state='finished'" in json.dumps(notebook.cells)  # and run to the end
    assert any("allreduce_s" in table and "pid" in table for table in tables)  # run.learners: the group's ranks
    assert any("learner rank 1" in svg for svg in mime_outputs(notebook, "image/svg+xml"))
    assert len(list((tmp_path / "runs").glob("*/checkpoints/final"))) == 4


def test_cluster(tmp_path, ray_head, monkeypatch):
    monkeypatch.setenv("RLWORKBENCH_CLUSTER_ADDRESS", ray_head.address)  # the kernel inherits them
    monkeypatch.setenv("RAY_AUTH_TOKEN", ray_head.auth_token)
    notebook = executed(NOTEBOOKS / "cluster.ipynb", tmp_path)
    assert not errors(notebook)
    assert len(mime_outputs(notebook, WIDGET)) >= 2  # the submitted run's live view and the attached one's
    text = json.dumps(notebook.cells)
    assert "state='stopped'" in text and "Running entrypoint" in text and "greedy return" in text
    tables = mime_outputs(notebook, "text/html")
    assert any("submission_id" in table and "stopped" in table for table in tables)  # list_runs
    assert any("weights_behind" in table for table in tables)  # the Ape-X job's workers, followed from its log
    assert len(list((tmp_path / "runs").glob("*/checkpoints/final"))) == 1  # the job's own directory, shared


def test_recurrent(tmp_path):
    notebook = executed(NOTEBOOKS / "recurrent.ipynb", tmp_path)
    assert not errors(notebook)
    svgs = mime_outputs(notebook, "image/svg+xml")
    assert any("rlw&#45;recurrent" in svg and "state (f32[B,8], f32[B,8])" in svg for svg in svgs)  # the policy
    assert any("rlw&#45;recurrent" in svg and "state (f32[B,64], f32[B,64])" in svg for svg in svgs)  # the agent
    assert mime_outputs(notebook, WIDGET)  # the Probe
    tables = mime_outputs(notebook, "text/html")
    assert any("internal_states/0" in table and "input (given)" in table for table in tables)  # a given start state
    assert any("|h|" in table for table in tables) and any("last_20_mean" in table for table in tables)
    text = json.dumps(notebook.cells)
    assert "RecurrentPPOAgent" in text and "after a reset it is the fresh one:     True" in text
    assert mime_outputs(notebook, "image/png")  # the brief run's returns
    assert list((tmp_path / "runs").glob("*/checkpoints/final"))


def test_graph_builder(tmp_path):
    notebook = executed(NOTEBOOKS / "graph_builder.ipynb", tmp_path)
    assert not errors(notebook)
    text = json.dumps(notebook.cells)
    assert "advantage_stream" in text and "update/batch_size" in text and "value out of range" in text
    assert "build failed" in text and "grayscale_0" in text and "built on tf" in text
    assert mime_outputs(notebook, WIDGET)  # the builder, the run's live view
    assert json.loads((tmp_path / "dqn_from_builder.json").read_text())["policy"]["dueling"] is True
    assert list((tmp_path / "runs").glob("*/checkpoints/final"))


@pytest.mark.solo  # its kernel starts Ray Tune
def test_experiments(tmp_path):
    notebook = executed(NOTEBOOKS / "experiments.ipynb", tmp_path)
    assert not errors(notebook)
    text = json.dumps(notebook.cells)
    assert "optimizer/learning_rate" in text and "value out of range" in text and "target/sync_intervall" in text
    assert mime_outputs(notebook, WIDGET)  # the experiment's live view
    tables = mime_outputs(notebook, "text/html")
    assert any("best_return" in table and "target/sync_interval" in table for table in tables)  # trials
    assert any("iqm_low" in table and "optimality_gap_high" in table for table in tables)  # the IQM table
    assert any("overlap" in table and "verdict" in table for table in tables)  # the pairs
    assert mime_outputs(notebook, "image/png")  # the comparison's figure: intervals and profiles
    assert len(list((tmp_path / "runs" / "asha-lr-sync" / "trials").glob("*/seed_*/checkpoints/final"))) == 8
    assert len(list((tmp_path / "runs" / "dueling-or-not" / "trials").glob("*/seed_*/checkpoints/final"))) == 6
