"""``promote(prototype, to="local")``: real DQN training on CartPole (torch, one thread) in a background thread —
the call returns at once, metrics grow while the caller works, stop/wait/errors, the live widget and plot,
TensorBoard serving the run, and the whole thing inside a real Jupyter kernel."""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.error
import urllib.request

import nbformat
import numpy as np
import pandas as pd
import pytest
from nbclient import NotebookClient
from run_helpers import SimulatorCrash, StuckCartPole, crashing_cartpole, get_json, small_dqn, wait_until

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.execution.metrics import EPISODE_COLUMNS
from rlworkbench.spaces import from_gymnasium
from rlworkbench.workbench.promote import promote
from rlworkbench.workbench.run import Run
from rlworkbench.workbench.targets import get_target, known_targets, register_target, unregister_target

PNG = b"\x89PNG"


def _cartpole_spaces():
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    try:
        return from_gymnasium(env.observation_space), from_gymnasium(env.action_space)
    finally:
        env.close()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run = promote(small_dqn(), timesteps=1500, seed=0, logdir=tmp_path_factory.mktemp("runs"), summaries_every=20)
    yield run.wait(timeout=120)
    run.close()


def test_promote_returns_at_once_and_trains_while_the_caller_works(tmp_path):
    started = time.perf_counter()
    run = promote(small_dqn(), timesteps=3000, seed=0, logdir=tmp_path, checkpoint_every=1000)
    assert time.perf_counter() - started < 10.0  # config check + env; the build and training are in the thread
    assert isinstance(run, Run) and run.is_running and run.state in ("starting", "running")
    samples, work = [], 0.0
    while run.is_running:  # the caller keeps working and watches the tables grow
        work += float(np.linalg.norm(np.random.default_rng(len(samples)).normal(size=(64, 64))))
        samples.append((run.timesteps, len(run.metrics), len(run.updates)))
        time.sleep(0.05)
    assert work > 0
    grew = [later for earlier, later in itertools.pairwise(samples) if later[1] > earlier[1] > 0]
    assert len(grew) >= 2, samples  # episodes came in over several polls while it ran
    assert run.wait(timeout=60) is run and run.state == "finished" and run.error is None
    assert run.timesteps == 3000
    episodes, updates = run.metrics, run.updates
    assert list(episodes.columns) == list(EPISODE_COLUMNS) and episodes["return"].gt(0).all()
    assert {"loss", "grad_norm", "td_error"} <= set(updates.columns) and len(updates) > 100
    assert run.logdir.parent == tmp_path and run.logdir.name.startswith("dqn-CartPole-v1-torch-")
    assert json.loads((run.logdir / "config.json").read_text()) == small_dqn()
    assert sorted(p.name for p in (run.logdir / "checkpoints").iterdir()) == ["final", "step_1000", "step_2000",
                                                                              "step_3000"]
    assert run.checkpoint == run.logdir / "checkpoints" / "final"
    pd.testing.assert_frame_equal(pd.read_csv(run.logdir / "episodes.csv"), episodes, check_dtype=False)
    assert len(pd.read_csv(run.logdir / "updates.csv")) == len(updates)
    assert list(run.logdir.glob("events.out.tfevents.*"))


def test_stop_ends_early_and_leaves_a_checkpoint_an_agent_loads(tmp_path):
    state_space, action_space = _cartpole_spaces()
    agent = Agent.from_config(small_dqn(), state_space=state_space, action_space=action_space, backend="torch",
                              seed=1)  # unbuilt: the run builds it, then trains it in place
    run = promote(agent, env="CartPole-v1", timesteps=1_000_000, seed=1, logdir=tmp_path)
    with pytest.raises(ConfigError, match="being trained by another run"):
        promote(agent, env="CartPole-v1", logdir=tmp_path)
    wait_until(lambda: len(run.updates) >= 20, 60, "some updates")
    assert run.stop() is run and run.state == "stopped" and not run.is_running
    steps = run.timesteps
    assert 0 < steps < 1_000_000 and agent.timesteps == steps and agent.executor is not None
    assert run.checkpoint == run.logdir / "checkpoints" / "final"
    loaded = Agent.from_checkpoint(run.checkpoint, state_space=state_space, action_space=action_space,
                                   backend="torch")
    assert loaded.timesteps == steps and loaded.updates == agent.updates
    states = np.zeros((3, 4), np.float32)
    np.testing.assert_allclose(loaded.get_q_values(states), agent.get_q_values(states), rtol=1e-6)
    assert run.load_agent().updates == agent.updates
    assert len(pd.read_csv(run.logdir / "episodes.csv")) == len(run.metrics)
    run.wait()  # a stopped run is no error


def test_wait_reraises_a_training_error_with_its_type_and_keeps_the_last_checkpoint(tmp_path):
    run = promote(small_dqn(), env=crashing_cartpole, timesteps=5000, seed=0, logdir=tmp_path, checkpoint_every=100)
    assert run.logdir.name.startswith("dqn-crashing_cartpole-torch-")
    with pytest.raises(SimulatorCrash, match="crashed at step 251") as raised:
        run.wait(timeout=60)
    assert run.state == "failed" and run.error is raised.value and not run.is_running
    assert any(str(run.logdir) in note for note in raised.value.__notes__)
    assert run.timesteps == 250 and run.checkpoint == run.logdir / "checkpoints" / "step_200"
    assert not (run.logdir / "checkpoints" / "final").exists()
    state_space, action_space = _cartpole_spaces()
    assert Agent.from_checkpoint(run.checkpoint, state_space=state_space, action_space=action_space,
                                 backend="torch").timesteps == 200
    assert len(pd.read_csv(run.logdir / "episodes.csv")) == len(run.metrics) > 0
    assert "SimulatorCrash" in repr(run) and "state='failed'" in repr(run)
    run.widget()
    view = run.view
    wait_until(lambda: view.progress.bar_style == "danger", 10, "the failed state in the widget")
    assert "SimulatorCrash: the simulator crashed" in view.label.value


def test_a_wait_that_times_out_says_where_the_run_is_stuck(tmp_path):
    released = threading.Event()
    config = {**small_dqn(), "memory": {"type": "replay_memory", "capacity": 1000}}
    run = promote(config, env=lambda: StuckCartPole(300, released), timesteps=2000, seed=0, logdir=tmp_path,
                  num_envs=1)
    try:
        with pytest.raises(TimeoutError) as raised:
            run.wait(timeout=15)
        message = str(raised.value)
        assert f"the run in {run.logdir} is still running after 15 s; its thread is in " in message
        assert "step (run_helpers.py:" in message, message  # the env's own step, called from our worker
        assert "transitions.py:" in message and "worker.py:" in message, message
    finally:
        released.set()
    assert run.wait(timeout=120).state == "finished" and run.execution.activity() is None


def test_bad_targets_settings_and_prototypes_fail_in_the_call(tmp_path):
    with pytest.raises(ConfigError, match="unknown promote target") as error:
        promote(small_dqn(), to="nowhere", logdir=tmp_path)
    assert error.value.argument == "to" and "local" in error.value.expected
    with pytest.raises(ConfigError) as error:
        promote(small_dqn(), timesteps=0, logdir=tmp_path)
    assert error.value.argument == "timesteps"
    with pytest.raises(ConfigError, match="unknown settings") as error:
        promote(small_dqn(), timestep=100, logdir=tmp_path)
    assert "timestep" in error.value.got and "timesteps" in error.value.expected
    with pytest.raises(ConfigError, match="memory/capacity"):
        promote({**small_dqn(), "memory": {"type": "replay_memory", "capacity": -5}}, logdir=tmp_path)
    with pytest.raises(ConfigError, match="no such config file or shipped config"):
        promote("no_such_config", logdir=tmp_path)
    state_space, action_space = _cartpole_spaces()
    agent = Agent.from_config(small_dqn(), state_space=state_space, action_space=action_space, backend="torch")
    with pytest.raises(ConfigError, match="pass env="):
        promote(agent, logdir=tmp_path)
    with pytest.raises(ConfigError, match="another backend"):
        promote(agent, env="CartPole-v1", backend="tf", logdir=tmp_path)
    with pytest.raises(SpaceError, match="state_space is not the env's"):
        promote(agent, env="Acrobot-v1", logdir=tmp_path)
    with pytest.raises(ConfigError, match="prototype"):
        promote(42, logdir=tmp_path)
    assert not list(tmp_path.iterdir())  # nothing started, no run directory


def test_targets_register_by_name(tmp_path):
    with pytest.raises(ConfigError, match="registered already"):
        register_target("local", get_target("local"))
    register_target("local_copy", get_target("local"))
    try:
        assert "local_copy" in known_targets()
        run = promote(small_dqn(), to="local_copy", timesteps=200, logdir=tmp_path).wait(timeout=60)
        assert run.target == "local_copy" and "target='local_copy'" in repr(run) and run.state == "finished"
    finally:
        unregister_target("local_copy")
    assert "local_copy" not in known_targets()


def test_the_widget_image_changes_while_the_run_goes(tmp_path):
    run = promote(small_dqn(), timesteps=3000, seed=2, logdir=tmp_path)
    assert run._repr_mimebundle_() == {"text/plain": repr(run)}  # outside a kernel: text, no widget
    widget = run.widget(interval=0.25)
    view = run.view
    assert widget.children[2] is view.tables and widget.children[3] is view.image  # tables: empty on local runs
    images = set()
    while run.is_running:
        value = bytes(view.image.value)
        if value:
            images.add(value)
        time.sleep(0.05)
    assert len(images) >= 2 and all(image.startswith(PNG) for image in images)  # refreshed by its own thread
    run.wait(timeout=60)
    # the status line is written after the bar: once it reads finished, the bar is final too
    wait_until(lambda: "finished · 3,000 / 3,000 steps" in view.label.value, 10, "the final refresh")
    assert view.progress.bar_style == "success" and view.progress.value == view.progress.max == 3000


def test_plot_draws_returns_with_their_mean_and_the_losses(finished_run):
    figure = finished_run.plot()
    returns, losses = figure.axes
    assert returns.get_title() == "episode return" and losses.get_title() == "losses"
    assert [line.get_label() for line in returns.lines] == ["return", "mean of 20"]
    episodes = finished_run.metrics
    np.testing.assert_array_equal(returns.lines[0].get_xdata(), episodes["timesteps_total"])
    np.testing.assert_allclose(returns.lines[1].get_ydata()[-1], episodes["return"].tail(20).mean())
    assert [line.get_label() for line in losses.lines] == ["loss"]
    assert len(losses.lines[0].get_xdata()) == len(finished_run.updates)
    assert not figure.stale  # drawn
    picked = finished_run.plot(update_metrics=["td_error", "grad_norm"])
    assert [line.get_label() for line in picked.axes[1].lines] == ["td_error", "grad_norm"]


def test_tensorboard_serves_the_run_and_close_stops_it(finished_run):
    from IPython.display import IFrame

    frame = finished_run.tensorboard()
    assert isinstance(frame, IFrame) and frame.src.startswith("http://127.0.0.1:")
    server = finished_run.tensorboard_server
    assert finished_run.tensorboard() is not frame and finished_run.tensorboard_server is server  # reused
    wait_until(lambda: get_json(frame.src + "data/runs") == ["."], 60, "TensorBoard to list the run")
    tags = get_json(frame.src + "data/plugin/scalars/tags")["."]
    assert {"episode/return", "episode/length", "update/loss"} <= set(tags)
    assert any(tag.startswith("variables/") and tag.endswith("/norm") for tag in tags)  # summaries_every
    histograms = get_json(frame.src + "data/plugin/histograms/tags")["."]
    assert any(tag.endswith("dense_0/kernel") for tag in histograms)
    process = server.process
    finished_run.close()
    assert process.poll() is not None and not server.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(frame.src + "data/runs", timeout=2)


KERNEL_CELLS = [
    """
    from rlworkbench.agents.config import builtin_config
    from rlworkbench.workbench.promote import promote
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 32, "activation": "relu"}]
    config["update"].update(learning_starts=100, batch_size=16)
    run = promote(config, timesteps=4000, seed=0, logdir=LOGDIR)
    run
    """,
    """
    import time
    running_at_start, images = run.is_running, set()
    while run.is_running:
        images.add(bytes(run.view.image.value))
        time.sleep(0.05)
    print(running_at_start, len(images - {b""}))
    """,
    """
    run.wait()
    print(run.state, run.timesteps)
    """,
]


def test_in_a_kernel_the_run_trains_while_other_cells_run_and_its_plot_updates(tmp_path):
    import textwrap

    notebook = nbformat.v4.new_notebook()
    cells = [textwrap.dedent(cell).strip().replace("LOGDIR", repr(str(tmp_path))) for cell in KERNEL_CELLS]
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in cells]
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    shown, watched, waited = (cell.outputs for cell in notebook.cells)
    assert "application/vnd.jupyter.widget-view+json" in shown[0]["data"]  # the live widget, not text
    assert "Run(target='local'" in shown[0]["data"]["text/plain"]
    running_at_start, images = watched[0]["text"].split()
    assert running_at_start == "True" and int(images) >= 2  # the next cell ran during training; the plot moved
    assert waited[0]["text"].strip() == "finished 4000"
