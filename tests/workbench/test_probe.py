"""Probe driven from code: sampled and given inputs, the table of input and output values, both backends, typed
errors in the widget."""

from __future__ import annotations

import numpy as np
import pytest
from widget_components import STATES, Broken

from rlworkbench import BuildError, SpaceError, build
from rlworkbench.components import ContainerSplitter, Dense
from rlworkbench.demo import QActor
from rlworkbench.spaces import BoolBox, Dict, FloatBox
from rlworkbench.visualize.palette import STUCK_COLOR
from rlworkbench.workbench.probe import Probe
from rlworkbench.workbench.probe_runner import TABLE_COLUMNS, first_rows, leaf_row, value_counts

RECORDS = Dict(obs=FloatBox(shape=(3,)), mask=BoolBox(), add_batch_rank=True)


def outputs(probe: Probe, **settings) -> np.ndarray:
    probe.run(**settings)
    return probe.outputs


@pytest.fixture
def actor():
    actor = QActor(2, hidden=(8,), name="actor")
    executor = build(actor, {"states": STATES}, backend="torch", seed=0)
    return actor, executor


def output_rows(table):
    return table[table["side"] == "output"].reset_index(drop=True)


def test_the_table_shows_the_values_that_went_in_and_came_out(actor):
    root, _ = actor
    probe = Probe(root, "get_q_values", batch_size=5)
    table = probe.run()
    assert list(table.columns) == TABLE_COLUMNS
    assert list(table["side"]) == ["input (sampled)", "output"] and list(table["key_path"]) == ["states", "output"]
    states, q = probe.inputs["states"], probe.outputs
    for row, value in zip(table.itertuples(), (states, q)):
        assert row.shape == value.shape and row.dtype == "float32"
        assert (row.min, row.max) == pytest.approx((value.min(), value.max()), rel=1e-3)
        assert row.first_rows.startswith(f"[{value[0, 0]:.3g}, ") and row.first_rows.endswith("… (+2)")
        assert row.counts == ""  # floats: no value counts
    assert table.loc[0, "call_ms"] == "" and table.loc[1, "call_ms"] > 0
    assert list(output_rows(table)["key_path"]) == list(probe.output_spaces())


def test_discrete_outputs_show_their_values_with_counts_as_an_extra(actor):
    probe = Probe(actor[0], "get_action", batch_size=6)
    row = output_rows(probe.run()).iloc[0]
    actions = probe.outputs
    assert row.first_rows == ", ".join(str(a) for a in actions[:3]) + ", … (+3)"  # the values themselves
    assert (row["min"], row["max"]) == (actions.min(), actions.max()) and isinstance(row["min"], int)
    values, counts = np.unique(actions, return_counts=True)
    assert row.counts == ", ".join(f"{v}: {c}" for v, c in zip(values, counts))
    splitter = Probe(ContainerSplitter("obs", "mask"), input_spaces={"inputs": RECORDS}, batch_size=3)
    table = splitter.run()
    assert list(table["key_path"]) == ["inputs/obs", "inputs/mask", "0", "1"]
    assert list(output_rows(table)["key_path"]) == list(splitter.output_spaces()) == ["0", "1"]
    assert list(table["shape"][2:]) == [(3, 3), (3,)] and list(table["dtype"][2:]) == ["float32", "bool"]
    mask = splitter.outputs[1]
    assert table.loc[3, "counts"] == ", ".join(f"{v}: {c}" for v, c in zip(*np.unique(mask, return_counts=True)))
    assert "first_rows" in splitter.output_html and "input (sampled)" in splitter.output_html


def test_cells_of_the_table_for_any_value():
    assert first_rows(np.arange(10)) == "0, 1, 2, … (+7)" and first_rows(np.float32(2.5)) == "2.5"
    assert first_rows(np.array(["a", "bb"], dtype=object)) == "'a', 'bb'"
    wide = first_rows(np.zeros((2, 1000)))
    assert "..." in wide and len(wide) < 160  # long rows are elided
    assert value_counts(np.array([1.0, np.nan, np.inf, np.nan])) == "NaN: 2, inf: 1"
    assert value_counts(np.arange(20)) == "" and value_counts(np.array([True, True])) == "True: 2"
    row = leaf_row("output", "x", np.array([np.nan, -1.0, 3.0]))
    assert (row["min"], row["max"], row["counts"]) == (-1.0, 3.0, "NaN: 1")


def test_time_ranked_spaces_take_the_time_size():
    space = FloatBox(shape=(4,), add_batch_rank=True, add_time_rank=True)
    probe = Probe(Dense(3), input_spaces={"inputs": space}, batch_size=2, time_size=6)
    assert not probe.time_slider.disabled
    assert output_rows(probe.run()).loc[0, "shape"] == (2, 6, 3)
    assert Probe(Dense(3), input_spaces={"inputs": STATES}).time_slider.disabled


def test_the_seed_decides_the_sampled_inputs(actor):
    root, _ = actor
    probe = Probe(root.network)
    first, again, other = outputs(probe, seed=3), outputs(probe, seed=3), outputs(probe, seed=4)
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, other)
    space = probe.runner.arguments("apply")[0].space  # the network's: the preprocessor's outputs, in [-1, 1]
    np.testing.assert_array_equal(probe.inputs["inputs"], space.sample(4, seed=np.random.default_rng(4)))


def test_a_sub_component_runs_in_place_with_the_real_weights(actor):
    root, executor = actor
    probe = Probe(root, path="network", executor=executor, in_place=True)
    states = np.clip(STATES.sample(3, seed=1), -1, 1)
    probe.set_inputs({"inputs": states})
    probe.run(backend="torch")
    np.testing.assert_allclose(probe.outputs, executor.call("network", "apply", states), atol=1e-6)
    assert "in place" in probe.status and "given" in probe.output_html


@pytest.mark.parametrize("make", ["dense", "network", "network_on_tf", "policy"])
def test_torch_and_tf_give_the_same_outputs(make, actor):
    if make == "dense":  # not built: both backends build a copy from the same seed
        probe = Probe(Dense(5, activation="tanh"), input_spaces={"inputs": STATES})
        assert probe.runner.home_backend is None
    elif make == "network":  # built on torch: TF runs a copy with the weights copied over
        probe = Probe(actor[0].network)
    elif make == "network_on_tf":  # built on TF: in place on TF, torch runs the copy
        tf_actor = QActor(2, hidden=(8,), name="actor")
        build(tf_actor, {"states": STATES}, backend="tf", seed=5)
        probe = Probe(tf_actor, path="network")
        assert probe.runner.home_backend == "tf" and probe.backend_menu.value == "tf"
    else:
        from rlworkbench.agents import Agent

        agent = Agent.from_env("CartPole-v1", "dqn_dueling_per_cartpole", backend="torch", seed=0).build()
        probe = Probe(agent, "get_parameters", path="policy")
        assert probe.target.executor() is agent.executor
    torch_out = outputs(probe, backend="torch", seed=7)
    np.testing.assert_allclose(outputs(probe, backend="tf", seed=7), torch_out, rtol=1e-5, atol=1e-5)
    assert probe.table.attrs["backend"] == "tf"


def test_a_bad_user_value_shows_the_space_error_naming_argument_and_key_path():
    probe = Probe(ContainerSplitter("obs", "mask", name="splitter"), input_spaces={"inputs": RECORDS})
    probe.value_box.value = '{"inputs": {"obs": [[1, 2]], "mask": [true]}}'  # obs needs 3 floats
    probe.run_button.click()  # shown in the widget, not raised
    assert isinstance(probe.error, SpaceError)
    assert (probe.error.argument, probe.error.key_path) == ("inputs", "obs")
    assert "argument &#x27;inputs&#x27;, key &#x27;obs&#x27;" in probe.error_html
    assert "expected (?, 3), got (1, 2)" in probe.status and STUCK_COLOR in probe.error_html
    with pytest.raises(SpaceError, match="key 'obs'"):
        probe.run()
    probe.value_box.value = '{"inputs": {"obs": [[1, 2, 3]], "mask": [true]}}'  # JSON ints fit a FloatBox
    assert output_rows(probe.run()).loc[0, "shape"] == (1, 3) and probe.error is None and probe.error_html == ""


def test_a_single_unbatched_value_gets_a_batch_of_one_and_text_must_parse(actor):
    probe = Probe(actor[0], "get_action")
    probe.set_inputs("[0.1, 0.2, 0.3, 0.4]")
    assert output_rows(probe.run()).loc[0, "shape"] == (1,)
    probe.set_inputs("not a value")
    with pytest.raises(SpaceError, match="neither JSON nor a Python literal"):
        probe.run()
    probe.set_inputs(None)
    assert output_rows(probe.run()).loc[0, "shape"] == (4,)


def test_a_build_error_is_shown_with_the_stuck_component_in_red():
    probe = Probe(Broken(name="broken"), input_spaces={"inputs": STATES})
    probe.run_button.click()
    assert isinstance(probe.error, BuildError) and probe.error.component == "broken"
    assert "graph function failed" in probe.status and "broken on purpose" in probe.error_html
    assert STUCK_COLOR in probe.error_html and "<svg" in probe.error_html


def test_the_run_button_updates_the_page(actor):
    probe = Probe(actor[0], "get_action")
    assert probe.status == "" and probe.output_html == ""
    probe.run_button.click()
    first = probe.status
    assert first.startswith("run #1") and "<table" in probe.output_html
    probe.run_button.click()
    assert probe.status.startswith("run #2")
    assert "application/vnd.jupyter.widget-view+json" in probe._repr_mimebundle_()


def test_probing_a_live_agent_never_changes_it():
    from rlworkbench.agents import Agent

    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0).build()
    before = agent.get_weights()
    probe = Probe(agent, "insert_records")
    probe.run(batch_size=8, seed=0)
    probe.run(api="update_from_memory", batch_size=8, seed=0)
    assert "weight-synchronised copy" in probe.status
    assert int(agent.executor.execute("get_memory_size")) == 0
    after = agent.get_weights()
    assert all(np.array_equal(before[name], after[name]) for name in before)


@pytest.mark.parametrize("call, argument", [
    (lambda probe: probe.run(api="nope"), "api"),
    (lambda probe: probe.run(backend="jax"), "backend"),
    (lambda probe: probe.run(batch_size=0), "batch_size"),
    (lambda probe: Probe(probe.component, api="nope"), "api"),
])
def test_bad_choices_are_typed_errors_naming_the_argument(call, argument, actor):
    from rlworkbench.errors import ConfigError

    probe = Probe(actor[0].network)
    with pytest.raises(ConfigError) as info:
        call(probe)
    assert info.value.argument == argument and info.value.component == "actor/network"


def test_an_unbuilt_agent_asks_to_be_built():
    from rlworkbench.agents import Agent
    from rlworkbench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"agent.build\(\)"):
        Probe(Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch"), "act")


def test_keyword_only_and_optional_inputs_are_probed_by_name():
    """DQNLoss: the Q-values at s' are keyword-only; importance weights are optional (given in one of the two calls
    a DQN graph makes, left out in the other, the one probed). Both backends, in place and mirrored; unbuilt."""
    from rlworkbench.agents import Agent

    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0).build()
    probe = Probe(agent, "loss", path="loss")
    torch_outputs = outputs(probe, batch_size=4, seed=0)
    tf_outputs = outputs(probe, batch_size=4, seed=0, backend="tf")
    np.testing.assert_allclose(tf_outputs[1], torch_outputs[1], rtol=1e-5, atol=1e-6)
    spaces = {name: space for name, space in agent.root.loss.input_spaces.items() if name != "importance_weights"}
    unbuilt = Probe(agent.root.loss.copy(), input_spaces=spaces, batch_size=3)  # an optional input needs no space
    assert list(output_rows(unbuilt.run(seed=0))["shape"])[:2] == [(), (3,)]


LSTM_UNITS = 6
SEQUENCES = {"add_batch_rank": True, "add_time_rank": True}


@pytest.fixture
def recurrent():
    """A built RecurrentPolicy (dense, lstm) over sequences, with its start state and resets as inputs."""
    from rlworkbench.components.policies import RecurrentPolicy
    from rlworkbench.spaces import IntBox

    policy = RecurrentPolicy([{"type": "dense", "units": 5, "activation": "tanh"},
                              {"type": "lstm", "units": LSTM_UNITS}], IntBox(2), value_units=[], name="policy")
    spaces = {"states": FloatBox(shape=(2,), **SEQUENCES), "internal_states": policy.internal_state_space,
              "resets": BoolBox(**SEQUENCES)}
    executor = build(policy, spaces, backend="torch", seed=0,
                     api_methods=["get_stochastic_action", "get_deterministic_action", "get_step_states"])
    return policy, executor


def test_a_recurrent_policy_is_probed_with_sampled_sequences_and_start_states(recurrent):
    """Issue 29: states with batch and time ranks are sampled as whole sequences of the chosen sizes, the start
    state (h, c) from its space, resets per step; the acting outputs show the actions per step and the final
    state, the same as calling the graph with those inputs, on both backends."""
    policy, executor = recurrent
    probe = Probe(policy, "get_stochastic_action", batch_size=3, time_size=5)
    assert not probe.time_slider.disabled
    table = probe.run(seed=1)
    assert list(zip(table["side"], table["key_path"], table["shape"])) == [
        ("input (sampled)", "states", (3, 5, 2)), ("input (sampled)", "internal_states/0", (3, LSTM_UNITS)),
        ("input (sampled)", "internal_states/1", (3, LSTM_UNITS)), ("input (sampled)", "resets", (3, 5)),
        ("output", "0", (3, 5)), ("output", "1/0", (3, LSTM_UNITS)), ("output", "1/1", (3, LSTM_UNITS))]
    inputs = probe.inputs
    assert np.abs(inputs["internal_states"][0]).max() > 0  # a sampled state, not zeros
    actions, (h, c) = outputs(probe, api="get_deterministic_action", batch_size=4, time_size=7, seed=2)
    assert actions.shape == (4, 7) and h.shape == c.shape == (4, LSTM_UNITS)
    args = [probe.inputs[name] for name in ("states", "internal_states", "resets")]
    want_actions, (want_h, want_c) = executor.call(policy, "get_deterministic_action", *args)
    np.testing.assert_array_equal(actions, want_actions)
    np.testing.assert_allclose(h, want_h, atol=1e-6)
    np.testing.assert_allclose(c, want_c, atol=1e-6)
    step_h, _ = executor.call(policy, "get_step_states", *args)
    np.testing.assert_allclose(h, step_h[:, -1], atol=1e-6)  # the final state is the state after the last step
    _, (tf_h, tf_c) = outputs(probe, backend="tf", seed=2)
    np.testing.assert_allclose(tf_h, h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf_c, c, rtol=1e-5, atol=1e-5)


def test_a_given_start_state_decides_the_batch_of_the_sampled_sequences(recurrent):
    """A zero start state for 2 rows (the slider says 3): the sequences and resets are sampled for 2 rows (the
    status says so; the slider stays for the next sampled runs); a reset at the first step makes any start state
    the zero state."""
    policy, _ = recurrent
    probe = Probe(policy, "get_deterministic_action", batch_size=3, time_size=4)
    zeros = tuple(np.zeros((2, LSTM_UNITS), np.float32) for _ in range(2))
    probe.set_inputs({"internal_states": zeros})
    table = probe.run(seed=0)
    assert dict(zip(table["key_path"], table["shape"]))["states"] == (2, 4, 2)
    assert probe.batch_slider.value == 3 and "sampled with batch 2 of the given values" in probe.status
    resets = np.zeros((2, 4), bool)
    resets[:, 0] = True
    probe.set_inputs({"states": probe.inputs["states"], "resets": resets})  # start state sampled, then reset
    sampled_start = outputs(probe, seed=5)
    probe.set_inputs({"states": probe.inputs["states"], "resets": resets, "internal_states": zeros})
    zero_start = outputs(probe, seed=5)
    assert np.abs(probe.inputs["internal_states"][0]).max() == 0
    np.testing.assert_array_equal(sampled_start[0], zero_start[0])
    np.testing.assert_allclose(sampled_start[1][1], zero_start[1][1], atol=1e-6)
