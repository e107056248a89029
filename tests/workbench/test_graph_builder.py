"""GraphBuilder: the form generated from the agent's schema, live rebuilds with the changes marked, errors at their
fields, partial graphs, devices, probe, export, promote, code-composed components and the debounce."""

from __future__ import annotations

import asyncio
import html
import json
import re

import ipywidgets as w
import pytest

from rlworkbench.agents import Agent, known_agents
from rlworkbench.agents.config import known_types_of
from rlworkbench.agents.registry import agent_class
from rlworkbench.components import Dense, NeuralNetwork
from rlworkbench.core import Component, api, graph_fn
from rlworkbench.core.builder import build
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox
from rlworkbench.visualize.graph_diff import compare, snapshot
from rlworkbench.visualize.palette import ADDED_COLOR, CHANGED_COLOR, STUCK_COLOR
from rlworkbench.workbench import GraphBuilder
from rlworkbench.workbench.builder.config_form import ConfigForm
from rlworkbench.workbench.builder.form_schema import form_schema
from rlworkbench.workbench.builder.lazy_choices import LIBRARY_LAYOUT_WARNING

VALUE_STREAM = "component-dqn/policy/action_adapter/value_stream"

@pytest.fixture
def builder():
    made = GraphBuilder("dqn_cartpole", backend="torch")
    yield made
    made.close()


def clusters(svg: str) -> set[str]:
    return set(re.findall(r'<g id="(component-[^"]+)" class="cluster"', html.unescape(svg)))


def edge_labels_with(svg: str, text: str) -> int:
    return sum(text in label for label in re.findall(r"<text[^>]*>([^<]*)</text>", svg))


# ----- the form ------------------------------------------------------------------------------------------------
def test_the_form_is_generated_from_the_schema_with_bounds_enums_toggles_and_sections(builder):
    form = builder.form
    assert isinstance(form.field("policy/dueling"), w.Checkbox) and form.field("policy/dueling").value is False
    assert isinstance(form.field("update/batch_size"), w.IntText) and form.field("update/batch_size").value == 64
    assert isinstance(form.field("discount"), w.FloatText)
    labels = [x.value for x in _walk(form.widget) if isinstance(x, w.Label)]
    assert "discount ≥ 0 ≤ 1" in labels  # bounds in the label, not a clamping widget
    assert isinstance(form.field("policy/network/0/activation"), w.Dropdown)
    assert isinstance(form.field("policy"), w.Accordion) and isinstance(form.field("policy/network"), w.Accordion)
    layer_type = _type_menu(builder, "policy/network/0")
    assert set(layer_type.options) == set(known_types_of("layer")) and layer_type.value == "dense"


@pytest.mark.parametrize(("agent", "section", "inside"), [
    ("dqn", "exploration", "exploration/epsilon"), ("impala", "update", "update/rollout_length"),
    ("sac", "policy", "policy/network")])
def test_a_section_of_one_field_has_its_own_collapsible_header(agent, section, inside):
    form = ConfigForm(agent_class(agent).schema, {})
    header, field = form.field(section), form.field(inside)
    assert isinstance(header, w.Accordion) and header.titles == (section,) and field is not header
    assert _contains(header, field) and header.selected_index == 0  # a top-level section starts open
    assert list(form.schema["properties"][section]["properties"]) == [inside.split("/")[1]]  # one field


@pytest.mark.filterwarnings(f"ignore:{LIBRARY_LAYOUT_WARNING}:DeprecationWarning")  # the library's eager form
def test_every_agent_types_schema_makes_a_form():
    import ipywidgets_jsonschema

    for name in known_agents():
        schema = form_schema(agent_class(name).schema)
        ipywidgets_jsonschema.Form(schema)  # raises on anything the library cannot draw


def test_json_text_fields_carry_arguments_without_a_checkable_annotation(builder):
    network = builder.export()["policy"]["network"]
    network[0]["kernel_initializer"] = "zeros"
    assert builder.set("policy/network", network), builder.status
    text = builder.field("policy/network/0/kernel_initializer").value
    assert text == '"zeros"' and builder.config["policy"]["network"][0]["kernel_initializer"] == "zeros"
    assert not builder.agent.root.get_weights()["policy/network/dense_0/kernel"].any()
    assert "kernel_initializer" not in builder.form.data["policy"]["network"][1]  # at its default: left out


# ----- live rebuilds with the changes marked -------------------------------------------------------------------
def test_toggling_dueling_in_the_form_adds_the_streams_and_marks_them(builder):
    before = clusters(builder.svg)
    assert VALUE_STREAM not in before
    builder.field("policy/dueling").value = True  # as a click would
    assert builder.error is None and builder.builds == 1
    after = clusters(builder.svg)
    assert {VALUE_STREAM, "component-dqn/policy/action_adapter/advantage_stream"} <= after
    assert "dqn/policy/action_adapter/value_stream" in builder.changes.added
    assert ADDED_COLOR in builder.svg and "added (" in builder.svg
    assert builder.changes.removed == ("dqn/policy/action_adapter/dense", "dqn/target_policy/action_adapter/dense")
    texts = _texts(builder.svg)  # the two removed heads by their distinct paths, not "dense" twice
    at = texts.index("removed:")
    assert texts[at + 1:at + 3] == ["policy/action_adapter/dense", "target_policy/action_adapter/dense"]
    assert builder.config["policy"]["dueling"] is True and builder.agent.config["policy"]["dueling"] is True
    assert builder.redraw_seconds is not None and "built on torch" in builder.status


def test_a_bad_value_is_an_error_at_its_field_and_the_last_good_graph_stays(builder):
    svg, agent = builder.svg, builder.agent
    field = builder.field("update/batch_size")
    field.value = 0
    assert list(builder.field_errors) == ["update/batch_size"] and ">= 1" in builder.field_errors["update/batch_size"]
    assert "2px solid" in field.layout.border
    note = builder.form._locate("update/batch_size")[0].widgets[1]
    assert "value out of range" in note.value and note.layout.display == "block"
    assert builder.svg == svg and builder.agent is agent and builder.config["update"]["batch_size"] == 64
    field.value = 32
    assert builder.field_errors == {} and "solid" not in (field.layout.border or "") and note.value == ""
    assert builder.agent is not agent and builder.config["update"]["batch_size"] == 32


def test_an_error_deep_in_folded_sections_opens_the_way_to_its_field(builder):
    field = builder.field("policy/network/1/units")
    folded = [x for x in _walk(builder.form.widget) if isinstance(x, w.Accordion) and _contains(x, field)]
    assert folded and any(a.selected_index is None for a in folded)  # the layer's arguments start folded
    field.value = 0
    assert list(builder.field_errors) == ["policy/network/1/units"]
    assert all(a.selected_index is not None for a in folded)


def test_adding_a_dense_layer_changes_the_networks_output_space_on_the_edges(builder):
    assert edge_labels_with(builder.svg, "f32[B,24]") == 0
    _add_button(builder, "policy/network").click()  # a new dense layer (the first type of the menu)
    assert "dqn/policy/network/dense_2" in builder.changes.added and ADDED_COLOR in builder.svg
    builder.field("policy/network/2/units").value = 24
    assert builder.error is None, builder.status
    assert [layer["units"] for layer in builder.config["policy"]["network"]] == [256, 256, 24]
    assert edge_labels_with(builder.svg, "f32[B,24]") > 0
    assert "dqn/policy/network/dense_2" in builder.changes.changed
    changed_edges = [k for k, label in builder.explorer.edge_labels.items() if builder.changes.edge_changed(k, label)]
    assert any(key[1].endswith("network/apply") or key[0].endswith("network/apply") for key in changed_edges)
    assert CHANGED_COLOR in builder.svg


def test_a_component_type_changes_from_its_menu_with_that_types_arguments(builder):
    menu = _type_menu(builder, "memory")
    assert "memory: replay_memory" in menu.options
    menu.value = "memory: prioritized_replay"
    assert builder.error is None, builder.status
    assert builder.config["memory"]["type"] == "prioritized_replay"
    assert isinstance(builder.field("memory/alpha"), w.FloatText)
    assert type(builder.agent.root.find("memory")).__name__ == "PrioritizedReplay"
    assert "dqn/memory" in builder.changes.changed | builder.changes.added


def test_a_layers_type_changes_from_its_menu_with_that_types_own_arguments(builder):
    assert isinstance(builder.field("policy/network/0/units"), w.IntText)
    _type_menu(builder, "policy/network/0").value = "clip"
    assert builder.error is None and builder.builds == 1, builder.status
    assert isinstance(builder.field("policy/network/0/low"), w.FloatText)  # clip's arguments, not dense's
    with pytest.raises(ConfigError, match="no such field"):
        builder.field("policy/network/0/units")
    drawn = clusters(builder.svg)
    assert "component-dqn/policy/network/clip_0" in drawn and "component-dqn/policy/network/dense_0" not in drawn
    assert "dqn/policy/network/clip_0" in builder.changes.added
    assert "dqn/policy/network/dense_0" in builder.changes.removed
    builder.field("policy/network/0/low").value = -2.0  # its arguments are live too
    assert builder.config["policy"]["network"][0] == {"type": "clip", "low": -2.0, "high": 1.0}
    assert type(builder.agent.root.find("policy/network/clip_0")).__name__ == "Clip"


def test_the_lstm_layer_is_in_the_network_menu_with_its_arguments_and_makes_ppo_recurrent():
    """Issue 29: choosing ``lstm`` for a PPO network layer shows the LSTM's own arguments (units, its two
    initializers as JSON text, unit_forget_bias as a toggle), builds the recurrent agent and draws its state as a
    loop edge labelled with its space; its arguments are live and the policy probes with sequences and a state."""
    made = GraphBuilder("ppo_cartpole", backend="torch")
    try:
        menu = _type_menu(made, "policy/network/0")
        assert "lstm" in menu.options
        menu.value = "lstm"
        made.flush()
        assert made.error is None, made.status
        assert isinstance(made.field("policy/network/0/units"), w.IntText)
        assert made.field("policy/network/0/units").value == 64
        assert made.field("policy/network/0/kernel_initializer").value == '"glorot_uniform"'
        assert made.field("policy/network/0/recurrent_initializer").value == '"orthogonal"'
        assert isinstance(made.field("policy/network/0/unit_forget_bias"), w.Checkbox)
        with pytest.raises(ConfigError, match="no such field"):
            made.field("policy/network/0/activation")  # dense's, not the LSTM's
        assert type(made.agent).__name__ == "RecurrentPPOAgent"
        assert "component-ppo/policy/network/lstm_0" in clusters(made.svg)
        assert 'class="edge rlw&#45;recurrent"' in made.svg
        assert edge_labels_with(made.svg, "state (f32[B,64], f32[B,64])") >= 1
        made.field("policy/network/0/units").value = 16
        made.flush()
        assert made.error is None and made.export()["policy"]["network"][0]["units"] == 16, made.status
        assert edge_labels_with(made.svg, "state (f32[B,16], f32[B,16])") >= 1
        assert edge_labels_with(made.svg, "f32[B,64], f32[B,64]") == 0
        table = made.probe("get_stochastic_action", path="policy", batch_size=2, time_size=3).run()
        shapes = dict(zip(table["key_path"], table["shape"]))
        assert shapes["states"] == (2, 3, 4) and shapes["internal_states/0"] == shapes["1/1"] == (2, 16)
    finally:
        made.close()


def test_the_decay_and_optimizer_types_change_from_their_menus(builder):
    _type_menu(builder, "exploration/epsilon").value = "epsilon: exponential_decay"
    assert builder.error is None and builder.builds == 1, builder.status
    assert builder.form.choice_menu("exploration/epsilon/half_life").value == "none"  # its default, not 0
    assert builder.config["exploration"]["epsilon"]["type"] == "exponential_decay"
    assert type(builder.agent.root.find("exploration/epsilon")).__name__ == "ExponentialDecay"
    assert builder.changes.changed == {"dqn/exploration/epsilon"} and CHANGED_COLOR in builder.svg
    _type_menu(builder, "optimizer").value = "optimizer: rmsprop"
    assert builder.error is None and builder.builds == 2, builder.status
    assert isinstance(builder.field("optimizer/decay"), w.FloatText)
    assert builder.config["optimizer"]["type"] == "rmsprop"
    assert type(builder.agent.root.find("optimizer")).__name__ == "RMSProp"
    assert builder.changes.changed == {"dqn/optimizer"} and CHANGED_COLOR in builder.svg


def test_a_preprocessor_added_with_the_add_entry_button_joins_the_graph(builder):
    assert builder.config["preprocessing"] == [] and "component-dqn/preprocessor" not in clusters(builder.svg)
    _add_button(builder, "preprocessing").click()  # the first type of the preprocessor menu
    assert builder.error is None and builder.builds == 1, builder.status
    assert [spec["type"] for spec in builder.config["preprocessing"]] == ["clip"]
    assert {"component-dqn/preprocessor", "component-dqn/preprocessor/clip_0"} <= clusters(builder.svg)
    assert {"dqn/preprocessor", "dqn/preprocessor/clip_0"} <= builder.changes.added and ADDED_COLOR in builder.svg
    assert type(builder.agent.root.find("preprocessor/clip_0")).__name__ == "Clip"


def test_a_failed_build_draws_the_partial_graph_with_the_stuck_component_in_view(builder):
    good = builder.agent
    assert builder.set("preprocessing", [{"type": "grayscale"}]) is False
    assert builder.error is not None and builder.error.component == "dqn/preprocessor/grayscale_0"
    assert "component-dqn/preprocessor/grayscale_0" in clusters(builder.svg) and STUCK_COLOR in builder.svg
    assert builder.explorer.graph_pane.focus == "dqn/preprocessor/grayscale_0"
    assert builder.agent is good and "build failed" in builder.status
    assert builder.set("preprocessing", [])
    assert builder.error is None


def test_switching_the_backend_keeps_the_config(builder):
    builder.set("policy/dueling", True)
    assert builder.set_backend("tf")
    assert builder.agent.executor.backend.name == "tf" and builder.config["policy"]["dueling"] is True
    assert builder.view.backend_menu.value == "tf" and VALUE_STREAM in clusters(builder.svg)
    with pytest.raises(ConfigError, match="unknown backend"):
        builder.set_backend("jax")


# ----- devices, probe, export, promote ---------------------------------------------------------------------------
def test_device_picks_follow_config_changes(builder):
    builder.set("policy/network/2", {"type": "dense", "units": 8, "activation": "relu"})
    builder.explorer.set_device("dqn/policy", "cpu")
    builder.explorer.set_device("dqn/policy/network/dense_2", "cpu")
    builder.rebuild()
    assert builder.explorer.device_map == {"policy": "cpu", "policy/network/dense_2": "cpu"}
    builder.set("policy/network", builder.config["policy"]["network"][:2])  # dense_2 is gone
    assert builder.explorer.device_map == {"policy": "cpu"}  # its entry with it; the policy's stays
    assert builder.agent.root.find("policy").resolved_device == "cpu"
    builder.rebuild()  # the explorer builds with the map that is left
    assert builder.error is None


def test_a_probe_runs_on_the_current_graph(builder):
    builder.set("policy/dueling", True)
    probe = builder.probe("get_q_values")
    table = probe.run()
    assert len(table) >= 1 and builder.view.tabs.titles[builder.view.tabs.selected_index] == "probe"
    builder.set("policy/dueling", False)  # a rebuild closes the probe of the old graph
    assert builder._probe is None


def test_export_validates_and_builds_to_the_same_graph(builder, tmp_path):
    builder.set("policy/dueling", True)
    builder.set("memory", {"type": "prioritized_replay", "capacity": 5000})
    path = tmp_path / "exported.json"
    config = builder.export(path)
    assert json.loads(path.read_text()) == config
    again = Agent.from_config(path, state_space=builder.source.state_space, action_space=builder.source.action_space,
                              backend="torch").build()
    assert not compare(snapshot(builder.agent), snapshot(again))
    assert builder.export_code().startswith("config = {") and "'dueling': True" in builder.export_code()
    assert builder.view.copy_button.text == builder.export_code()


def test_promote_from_the_builder_starts_a_run(builder, tmp_path):
    builder.set("update/learning_starts", 50)
    run = builder.promote(timesteps=200, logdir=tmp_path, seed=1)
    run.wait(timeout=120)
    assert run.state == "finished" and run.spec.config["update"]["learning_starts"] == 50
    assert builder.run is run and builder.view.run_output.children == (run.widget(),)  # its live view below
    run.close()


def test_promote_to_multi_gpu_from_the_builder_runs_on_two_towers_and_stops_cleanly(builder, tmp_path):
    run = builder.promote("multi_gpu", devices=["cpu", "cpu"], timesteps=50_000, logdir=tmp_path)
    try:
        assert run.is_running and run.target == "multi_gpu" and run.devices == ["cpu", "cpu"]
        assert builder.run is run and builder.view.run_output.children == (run.view.widget,)
        assert _contains(builder.view.widget, run.view.widget)  # the live view is part of the builder
        run.view.refresh()
        assert "2 towers on cpu, cpu" in run.view.label.value
        run.stop()
        assert run.state == "stopped" and run.error is None and run.timesteps < 50_000
    finally:
        run.close()


def test_it_opens_a_config_dict_a_json_path_and_an_agent(tmp_path):
    from rlworkbench.agents.config import builtin_config

    config = builtin_config("dqn_cartpole")
    config["policy"]["dueling"] = True
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(config))
    agent = Agent.from_env("CartPole-v1", config, backend="torch")
    built = Agent.from_env("CartPole-v1", config, backend="torch").build()
    for prototype in (config, path, agent, built):
        made = GraphBuilder(prototype)
        try:
            assert made.config["policy"]["dueling"] is True and VALUE_STREAM in clusters(made.svg)
            assert made.field("policy/dueling").value is True
        finally:
            made.close()
    assert agent.executor is not None  # an unbuilt agent is built as it is, the first graph is its own
    assert GraphBuilder(path).source.name == "mine"


def _units(builder: GraphBuilder) -> list[int]:
    return [layer["units"] for layer in builder.config["policy"]["network"]]


def _buttons(builder: GraphBuilder, icon: str) -> list[w.Button]:
    return [b for b in _walk(builder.field("policy/network")) if isinstance(b, w.Button) and b.icon == icon]


def test_layers_are_removed_and_reordered_with_the_lists_buttons(builder):
    builder.set("policy/network", [{"type": "dense", "units": u, "activation": "relu"} for u in (32, 16, 8)])
    _buttons(builder, "arrow-up")[1].click()  # the second layer first: rebuilt at once
    assert _units(builder) == [16, 32, 8]
    _buttons(builder, "arrow-down")[2].click()  # the last one down: nowhere to go, nothing changes
    _buttons(builder, "arrow-up")[0].click()  # the first one up: neither
    assert _units(builder) == [16, 32, 8] and builder.form.data["policy"]["network"][2]["units"] == 8
    _buttons(builder, "trash")[0].click()  # removing notifies: rebuilt at once
    assert _units(builder) == [32, 8] and "dqn/policy/network/dense_2" in builder.changes.removed


def test_a_layer_added_in_the_form_can_be_moved_at_once(builder):
    _add_button(builder, "policy/network").click()
    builder.field("policy/network/2/units").value = 24
    assert _units(builder) == [256, 256, 24]
    _buttons(builder, "arrow-up")[2].click()  # the new entry's own button
    assert _units(builder) == [256, 24, 256]


def test_export_cell_puts_the_config_into_the_next_cell(builder):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        code = builder.export_cell()
        assert shell.rl_next_input == code and code.startswith("config = {")
        namespace: dict = {}
        exec(code, namespace)  # the cell runs: the dict builds to the same graph
        again = Agent.from_config(namespace["config"], state_space=builder.source.state_space,
                                  action_space=builder.source.action_space, backend="torch").build()
        assert not compare(snapshot(builder.agent), snapshot(again))
    finally:
        InteractiveShell.clear_instance()


# ----- code-composed components ---------------------------------------------------------------------------------
def test_a_code_composed_component_opens_without_a_form_and_marks_rebuilds():
    network = NeuralNetwork([Dense(8, name="hidden"), Dense(4, name="out")], name="net")
    build(network, {"inputs": FloatBox((3,), add_batch_rank=True)}, backend="torch")
    made = GraphBuilder(network)
    try:
        assert made.form is None and "code-composed" in repr(made)
        network.replace_component("hidden", Dense(16, name="hidden"))
        made.rebuild()
        assert "net/hidden" in made.changes.changed and CHANGED_COLOR in made.svg
        network.replace_component("out", Dense(2, name="out"))
        build(network, {"inputs": FloatBox((3,), add_batch_rank=True)}, backend="torch")  # built from code
        assert "net/out" in made.changes.changed and made.error is None
        with pytest.raises(ConfigError, match="code-composed"):
            made.set("units", 3)
        with pytest.raises(ConfigError, match="code-composed"):
            made.export()
    finally:
        made.close()


class TorchOnly(Component):
    """Builds on torch only (``clamp_min`` is a torch tensor method)."""

    @api
    @graph_fn
    def apply(self, inputs):
        return inputs.clamp_min(0.0)


class Broken(Component):
    @api
    @graph_fn
    def apply(self, inputs):
        raise ValueError("this layer never builds")


def test_failed_rebuilds_and_backend_switches_leave_the_last_good_build():
    network = NeuralNetwork([Dense(8, name="hidden"), TorchOnly(name="clip")], name="net")
    build(network, {"inputs": FloatBox((3,), add_batch_rank=True)}, backend="torch")
    made = GraphBuilder(network)
    try:
        assert made.set_backend("tf") is False
        assert made.backend == "torch" and made.view.backend_menu.value == "torch" and made.error is not None
        network.replace_component("hidden", Broken(name="hidden"))
        with pytest.raises(Exception, match="never builds"):
            made.rebuild()
        assert "never builds" in made.status and made.error is not None
    finally:
        made.close()


# ----- the debounce ---------------------------------------------------------------------------------------------
def test_form_changes_in_a_running_event_loop_are_debounced_into_one_rebuild(builder):
    builder.debounce = 0.05

    async def edit() -> tuple[int, int]:
        builder.field("update/batch_size").value = 16
        builder.field("update/batch_size").value = 8
        during = builder.builds
        await asyncio.sleep(0.3)
        return during, builder.builds

    during, after = asyncio.run(edit())
    assert (during, after) == (0, 1) and builder.config["update"]["batch_size"] == 8


def test_flush_applies_a_waiting_change_at_once(builder):
    builder.debounce = 30.0

    async def edit() -> int:
        builder.field("update/batch_size").value = 16
        waiting = builder.builds
        builder.flush()
        return waiting

    assert asyncio.run(edit()) == 0 and builder.builds == 1 and builder.config["update"]["batch_size"] == 16


def test_values_of_the_wrong_kind_from_code_are_config_errors(builder):
    with pytest.raises(ConfigError, match="cannot hold"):
        builder.set("update/batch_size", [1, 2])
    with pytest.raises(ConfigError, match=r"no such place|no such key"):
        builder.set("policy/network/5/units", 3)
    assert builder.config["update"]["batch_size"] == 64


def test_a_config_that_never_built_opens_on_its_partial_graph():
    from rlworkbench.agents.config import builtin_config

    config = builtin_config("dqn_cartpole")
    config["preprocessing"] = [{"type": "grayscale"}]
    made = GraphBuilder(config)
    try:
        assert made.agent is None and made.config is None and "build failed" in made.status
        assert "component-dqn/preprocessor/grayscale_0" in clusters(made.svg) and STUCK_COLOR in made.svg
        with pytest.raises(ConfigError, match="no config has built yet"):
            made.export()
        assert "no config has built yet" in made.view.export_text.value
        assert made.set("preprocessing", []) and made.agent is not None and made.export()["preprocessing"] == []
    finally:
        made.close()


def test_a_bad_prototype_is_a_typed_error():
    with pytest.raises(ConfigError, match="the builder opens"):
        GraphBuilder(42)
    with pytest.raises(ConfigError, match="no such config"):
        GraphBuilder("no_such_config")


# ----- helpers --------------------------------------------------------------------------------------------------
def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def _contains(widget, target) -> bool:
    return any(x is target for x in _walk(widget))


def _type_menu(builder: GraphBuilder, path: str) -> w.Dropdown:
    """The dropdown choosing the component type of the spec at ``path``."""
    return builder.form.choice_menu(path)


def _add_button(builder: GraphBuilder, path: str) -> w.Button:
    """The "Add entry" button of the list at ``path``."""
    return next(b for b in _walk(builder.field(path)) if isinstance(b, w.Button) and b.description == "Add entry")


def _texts(svg: str) -> list[str]:
    """The text lines of a drawing, in order."""
    return [html.unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
