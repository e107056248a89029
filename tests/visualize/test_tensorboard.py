"""TensorBoard export: per-component variable summaries and the backend graph, read back with TensorBoard's
EventAccumulator, on both backends; and the Worker's ``summaries_every`` hook."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from tb_helpers import SMALL_DQN, StackedValues, own_weights, randomize_weights, read_events, scope_paths, small_dqn

from rlworkbench import build
from rlworkbench.agents.random_agent import RandomAgent
from rlworkbench.errors import BuildError, ConfigError
from rlworkbench.execution import Worker, make_vector_env
from rlworkbench.execution.tensorboard import EventWriter, write_graph, write_variable_summaries
from rlworkbench.spaces import FloatBox

_FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}


@pytest.fixture(params=["torch", "tf"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    if importlib.util.find_spec(_FRAMEWORKS[request.param]) is None:
        pytest.skip(f"backend '{request.param}' needs {_FRAMEWORKS[request.param]}")
    if request.param != "torch":
        yield request.param
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield request.param
    finally:
        torch.set_num_threads(before)


@pytest.fixture
def torch_backend() -> Iterator[str]:
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield "torch"
    finally:
        torch.set_num_threads(before)


# ----- variable summaries -------------------------------------------------------------------------------------------
def test_summaries_have_a_histogram_per_variable_and_scalars_per_component(backend, tmp_path):
    agent = small_dqn(backend)
    weights = randomize_weights(agent, seed=1)
    written = write_variable_summaries(agent, tmp_path, step=7)
    events = read_events(tmp_path)

    assert set(events.Tags()["histograms"]) == {f"dqn/{name}" for name in weights}
    for name, value in weights.items():
        value = value.astype(np.float64)  # noqa: PLW2901 (bools and ints are counted as numbers)
        (event,) = events.Histograms(f"dqn/{name}")
        histogram = event.histogram_value
        assert event.step == 7
        assert histogram.num == value.size == sum(histogram.bucket)
        assert histogram.min == pytest.approx(value.min()) and histogram.max == pytest.approx(value.max())
        assert histogram.sum == pytest.approx(value.sum(), rel=1e-5, abs=1e-6)

    expected = {}
    for path, values in own_weights(agent.root, weights).items():
        floats = np.concatenate([v.ravel().astype(np.float64) for v in values.values() if v.dtype.kind == "f"])
        expected[path] = {"norm": np.linalg.norm(floats), "mean_abs": np.abs(floats).mean(),
                          "max_abs": np.abs(floats).max()}
    assert {"dqn/policy/network/dense_0", "dqn/target_policy/action_adapter/dense", "dqn/memory",
            "dqn/optimizer"} <= set(expected)
    assert set(events.Tags()["scalars"]) == {f"variables/{path}/{key}" for path in expected for key in
                                             ("norm", "mean_abs", "max_abs")}
    assert written.keys() == expected.keys()
    for path, statistics in expected.items():
        for key, value in statistics.items():
            (event,) = events.Scalars(f"variables/{path}/{key}")
            assert event.step == 7
            assert event.value == pytest.approx(value, rel=1e-5)
            assert written[path][key] == pytest.approx(value, rel=1e-9)


def test_trainable_only_leaves_out_memory_and_optimizer_state(torch_backend, tmp_path):
    agent = small_dqn(torch_backend)
    write_variable_summaries(agent.executor, tmp_path, step=0, trainable_only=True)
    tags = read_events(tmp_path).Tags()
    assert set(tags["histograms"]) == {f"dqn/{name}" for name in agent.get_weights(trainable_only=True)}
    assert not any("memory" in tag or "optimizer" in tag for tag in tags["histograms"] + tags["scalars"])


def test_summaries_go_into_an_open_writer_at_each_step(torch_backend, tmp_path):
    agent = small_dqn(torch_backend)
    norms = []
    log = EventWriter(tmp_path)
    try:
        for step in (3, 9):
            weights = randomize_weights(agent, seed=step)
            write_variable_summaries(agent.root, log, step)
            norms.append(np.linalg.norm(np.concatenate([weights[f"policy/network/dense_0/{v}"].ravel()
                                                        for v in ("kernel", "bias")])))
    finally:
        log.close()
    events = read_events(tmp_path)
    assert len(list(tmp_path.iterdir())) == 1
    scalars = events.Scalars("variables/dqn/policy/network/dense_0/norm")
    assert [e.step for e in scalars] == [3, 9]
    np.testing.assert_allclose([e.value for e in scalars], norms, rtol=1e-5)
    assert [e.step for e in events.Histograms("dqn/policy/network/dense_0/kernel")] == [3, 9]


# ----- graphs -------------------------------------------------------------------------------------------------------
def test_graph_of_the_acting_method_names_component_scopes(backend, tmp_path):
    agent = small_dqn(backend)
    assert write_graph(agent, tmp_path) == tmp_path  # default: the agent's acting method, act_greedy
    events = read_events(tmp_path)
    assert events.Tags()["graph"] and len(list(tmp_path.glob("events.out.tfevents.*"))) == 1
    paths = scope_paths(events)
    for scope in ("dqn/policy/network/dense_0/", "dqn/policy/action_adapter/dense/", "dqn/policy/distribution/"):
        assert any(path.startswith(scope) for path in paths), (scope, paths)
    assert not any(path.startswith(("dqn/target_policy/", "dqn/memory/", "dqn/optimizer/")) for path in paths)


def test_torch_graph_scopes_name_component_classes_and_hold_the_variables(torch_backend, tmp_path):
    agent = small_dqn(torch_backend)
    write_graph(agent.executor, tmp_path, "get_q_values")
    names = [node.name for node in read_events(tmp_path).Graph().node]
    scope = f"{type(agent.root).__name__}[dqn]/Policy[policy]/NeuralNetwork[network]/Dense[dense_0]/"
    assert any(name.startswith(scope + "kernel/") for name in names), names
    assert any(name.startswith(scope + "bias/") for name in names)
    assert not any("distribution" in name for name in names)  # get_q_values never samples


def test_torch_graph_leaves_stateful_components_as_they_were(torch_backend, tmp_path):
    from rlworkbench.backends.torch.export import EXAMPLE_SIZES

    batch = EXAMPLE_SIZES[0][0]
    executor = build(StackedValues(batch, name="stacked"), {"states": FloatBox(shape=(2,), add_batch_rank=True)},
                     backend="torch", seed=0)
    executor.execute("values", np.ones((batch, 2), np.float32))  # the stack holds ones, no longer fresh
    before = executor.get_weights()
    write_graph(executor, tmp_path)  # the root's only API method
    after = executor.get_weights()
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    paths = scope_paths(read_events(tmp_path))
    assert any(path.startswith("stacked/stack/") for path in paths)
    assert any(path.startswith("stacked/network/dense_0/") for path in paths)



def test_graph_is_written_while_another_thread_acts_and_updates_the_agent(backend, tmp_path):
    """write_graph traces the agent a training thread is acting with and updating at the same time: both finish
    without error, the loop goes on while graphs are written, and every event file holds the graph."""
    agent = small_dqn(backend)
    states = agent.state_space.sample(40, seed=0).astype(np.float32)
    agent.observe(states, agent.get_actions(states), np.ones(40, np.float32), np.zeros(40, bool), states)
    stop, errors, rounds = threading.Event(), [], []

    def train() -> None:
        try:
            while not stop.is_set():
                actions = agent.get_actions(states[:8])
                agent.observe(states[:8], actions, np.ones(8, np.float32), np.zeros(8, bool), states[:8])
                metrics = agent.update()
                assert np.isfinite(metrics["loss"]) and actions.shape == (8,)
                rounds.append(agent.updates)
        except BaseException as error:  # reported in the test's thread
            errors.append(error)

    thread = threading.Thread(target=train, daemon=True)
    thread.start()
    try:
        while not rounds and not errors:
            time.sleep(0.001)
        before, written = len(rounds), 0
        while written < 3 or (len(rounds) - before < 3 and written < 20 and not errors):
            write_graph(agent, tmp_path / f"graph_{written}")  # the acting method, which the thread also runs
            written += 1
        during = len(rounds) - before
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive() and not errors, errors
    assert during >= 3, "the training loop did not run while the graphs were written"
    assert agent.updates == rounds[-1] and agent.updates >= during
    for index in range(written):
        paths = scope_paths(read_events(tmp_path / f"graph_{index}"))
        assert any(path.startswith("dqn/policy/network/dense_0/") for path in paths), index

def test_tf_graph_of_an_update_has_optimizer_and_loss_scopes(tmp_path):
    pytest.importorskip("tensorflow")
    agent = small_dqn("tf")
    write_graph(agent, tmp_path, api_method="update_from_batch")
    paths = scope_paths(read_events(tmp_path))
    for scope in ("dqn/optimizer/", "dqn/policy/network/dense_0/", "dqn/target_policy/network/dense_0/"):
        assert any(path.startswith(scope) for path in paths), scope


def test_export_errors_name_what_is_wrong(torch_backend, tmp_path):
    from rlworkbench.agents import Agent

    agent = small_dqn(torch_backend)
    with pytest.raises(ConfigError, match="pass the executor") as error:
        write_graph(agent.root, tmp_path)
    assert error.value.component == "dqn"
    with pytest.raises(ConfigError, match="which API method") as error:
        write_graph(agent.executor, tmp_path)
    assert "act_greedy" in error.value.expected and "get_q_values" in error.value.expected
    with pytest.raises(BuildError, match="no such built API method") as error:
        write_graph(agent, tmp_path, "fly")
    assert error.value.api_method == "fly"
    unbuilt = Agent.from_env("CartPole-v1", SMALL_DQN, backend="torch")
    with pytest.raises(BuildError, match="call build"):
        write_graph(unbuilt, tmp_path)
    with pytest.raises(BuildError, match="call build"):
        write_variable_summaries(unbuilt, tmp_path, 0)
    with pytest.raises(BuildError, match="built component"):
        write_variable_summaries(unbuilt.root, tmp_path, 0)
    with pytest.raises(ConfigError, match="cannot find the variables"):
        write_variable_summaries(object(), tmp_path, 0)
    with pytest.raises(ConfigError, match="cannot write summaries") as error:
        write_variable_summaries(agent, object(), 0)
    assert error.value.argument == "logdir_or_writer"
    assert not list(tmp_path.iterdir())


# ----- the worker hook ----------------------------------------------------------------------------------------------
def test_worker_writes_summaries_every_n_updates_without_tensorflow(tmp_path):
    """A torch agent's worker writes histograms every 3rd update, at the worker's timesteps, and TensorFlow (which
    TensorBoard's own writers import) stays out of the process."""
    pytest.importorskip("torch")
    code = textwrap.dedent(f"""
        import sys, torch
        torch.set_num_threads(1)
        sys.path.insert(0, {str(__import__("pathlib").Path(__file__).parent)!r})
        from tb_helpers import small_dqn
        from rlworkbench.execution import Worker, make_vector_env
        env = make_vector_env("CartPole-v1", 2, seed=0)
        with Worker(small_dqn("torch"), env, seed=0, logdir={str(tmp_path / "run")!r}, progress=False,
                    summaries_every=3) as worker:
            worker.run(timesteps=120)
        worker.updates.to_csv({str(tmp_path / "updates.csv")!r}, index=False)
        print(sorted(m for m in ("tensorflow", "ray") if m in sys.modules))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    updates = pd.read_csv(tmp_path / "updates.csv")
    assert len(updates) >= 6
    expected_steps = updates["timesteps_total"].iloc[2::3].tolist()
    events = read_events(tmp_path / "run")
    assert len(list((tmp_path / "run").iterdir())) == 1  # the worker's own event file
    assert {"update/loss", "episode/return"} <= set(events.Tags()["scalars"])
    kernel = events.Histograms("dqn/policy/network/dense_0/kernel")
    assert [e.step for e in kernel] == expected_steps
    assert all(e.histogram_value.num == 4 * 16 for e in kernel)
    norms = [e.value for e in events.Scalars("variables/dqn/policy/network/dense_0/norm")]
    assert len(norms) == len(expected_steps) and len(set(norms)) == len(norms)  # it learns between summaries


def test_worker_summaries_are_off_by_default_and_checked_up_front(torch_backend, tmp_path):
    env = make_vector_env("CartPole-v1", 1, seed=0)
    try:
        with Worker(RandomAgent.from_env(env, seed=0), env, logdir=tmp_path, progress=False) as worker:
            worker.run(timesteps=20)
        assert not read_events(tmp_path).Tags()["histograms"]
        with pytest.raises(ConfigError, match="run directory") as error:
            Worker(RandomAgent.from_env(env), env, summaries_every=5)
        assert error.value.argument == "summaries_every"
        with pytest.raises(ConfigError, match="bad summary interval"):
            Worker(RandomAgent.from_env(env), env, logdir=tmp_path, summaries_every=0)
        with pytest.raises(ConfigError, match="cannot find the variables"):  # no component root to summarise
            Worker(RandomAgent.from_env(env), env, logdir=tmp_path, summaries_every=5)
    finally:
        env.close()


def test_a_resumed_writer_makes_tensorboard_forget_the_points_past_its_checkpoint(tmp_path):
    """A killed run wrote steps 0..90; its resumed part goes on from the checkpoint at step 50 in a file of its own,
    is killed at 120 and resumed again from 80: TensorBoard shows one line, each killed part's points past its
    checkpoint gone — as the notebook's reader and as TensorBoard's server (its plugin accumulator) load them."""
    parts = [(None, range(0, 100, 10)), (50, range(60, 130, 10)), (80, range(90, 160, 10))]
    for number, (checkpoint, steps) in enumerate(parts):
        if number:
            time.sleep(1.1)  # a later part's file is newer: TensorBoard reads files in name (time) order
        writer = EventWriter(tmp_path)
        if checkpoint is not None:
            writer.restart_at(checkpoint)
        for step in steps:
            writer.scalar("update/loss", float(step + 1000 * number), step)
        writer.close()
    expected = [(s, float(s)) for s in range(0, 60, 10)] + [(s, float(s + 1000)) for s in range(60, 90, 10)] + \
        [(s, float(s + 2000)) for s in range(90, 160, 10)]
    assert [(p.step, p.value) for p in read_events(tmp_path).Scalars("update/loss")] == expected
    from tensorboard.backend.event_processing.plugin_event_accumulator import EventAccumulator
    from tensorboard.util.tensor_util import make_ndarray

    served = EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    served.Reload()
    assert [(t.step, float(make_ndarray(t.tensor_proto))) for t in served.Tensors("update/loss")] == expected
