"""The GraphBuilder's sweep tab: the sweepable fields of the current config, ticked entries as a Tune space and as
code, each entry checked against the agent's schema with the ConfigError at its row, the tab as a view of that,
and one real launch of a tiny sweep whose live widget appears in the tab."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ipywidgets as w
import pytest

import rlworkbench
import rlworkbench.workbench.experiments as experiments
from rlworkbench.components import Dense
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox
from rlworkbench.workbench import GraphBuilder
from rlworkbench.workbench.builder.form_schema import form_schema
from rlworkbench.workbench.builder.sweep_draft import SETTINGS, SweepDraft
from rlworkbench.workbench.builder.sweep_fields import SweepEntry
from rlworkbench.workbench.builder.sweep_tab import FieldRow
from rlworkbench.workbench.experiments.search_space import describe

RATE = "optimizer/learning_rate"
ACTIVATION = "policy/network/0/activation"


@pytest.fixture(scope="module")
def builder():
    made = GraphBuilder("dqn_cartpole", backend="torch")
    yield made
    made.close()


@pytest.fixture
def clean(builder):
    """The module's builder, left with nothing ticked and the tab's default settings after the test."""
    yield builder
    for path in list(builder.sweep_draft.entries):
        builder.untick(path)
    for key, widget in builder.view.sweep_tab.settings.items():  # (each menu's default is its first entry)
        widget.value = widget.options[0] if isinstance(widget, w.Dropdown) else SETTINGS[key] or "CartPole-v1"


def draft_for(builder: GraphBuilder) -> SweepDraft:
    return SweepDraft(form_schema(builder.source.agent_class.schema), builder.config, env="CartPole-v1")


# ----- the model ---------------------------------------------------------------------------------------------------
def test_the_fields_are_the_numbers_integers_booleans_and_enums_of_the_current_config(builder):
    fields = {f.path: f for f in draft_for(builder).fields}
    assert {(path, f.kind) for path, f in fields.items()} >= {
        ("discount", "float"), (RATE, "float"), ("policy/network/1/units", "integer"), ("policy/dueling", "boolean"),
        (ACTIVATION, "enum"), ("memory/capacity", "integer"), ("exploration/epsilon/end_time_step", "integer")}
    assert not any(path.endswith("/type") for path in fields)  # a component's type is no value to sweep
    assert fields[ACTIVATION].options[-1] is None and "tanh" in fields[ACTIVATION].options  # an enum or none
    assert fields["policy/dueling"].options == (False, True)
    assert fields["discount"].bounds == {"minimum": 0, "maximum": 1}
    discount = fields["discount"].default_entry()  # a decade around 0.99, inside the schema's bounds
    assert (discount.distribution, discount.low, discount.high) == ("loguniform", 0.099, 1.0)
    batch = fields["update/batch_size"].default_entry()
    assert (batch.distribution, batch.low, batch.high, batch.values) == ("randint", 32, 129, [32, 64, 128])


def test_ticked_fields_make_the_space_and_its_code(builder):
    draft = draft_for(builder)
    draft.tick(RATE, "loguniform", low=1e-4, high=1e-2)
    draft.tick("policy/dueling", "grid_search")
    draft.tick(ACTIVATION, values=["relu", "tanh"])
    draft.tick("update/batch_size", "choice", values="32, 64")
    draft.settings.update(scheduler="asha", seeds=2)
    assert draft.errors == {}
    space = draft.space()
    assert {path: describe(d) for path, d in space.items()} == {
        RATE: "float loguniform(0.0001, 0.01)", "policy/dueling": "grid [False, True]",
        ACTIVATION: "choice ['relu', 'tanh']", "update/batch_size": "choice [32, 64]"}
    assert draft.space_code() == ('space = {\n    "optimizer/learning_rate": tune.loguniform(0.0001, 0.01),\n'
                                  '    "policy/dueling": tune.grid_search([False, True]),\n'
                                  '    "policy/network/0/activation": tune.choice(["relu", "tanh"]),\n'
                                  '    "update/batch_size": tune.choice([32, 64]),\n}')
    assert draft.code(backend="torch").endswith(
        'experiment = sweep(config, space=space, seeds=2, trials=8, scheduler="asha", budget=10000, env="CartPole-v1",'
        '\n                   backend="torch")\nexperiment')  # (lines of at most 120 characters)
    draft.untick("policy/dueling")
    assert "dueling" not in draft.space_code()


@pytest.mark.parametrize(("path", "entry", "message"), [
    ("discount", {"distribution": "uniform", "low": 0.5, "high": 1.5}, "schema refuses"),
    (RATE, {"distribution": "loguniform", "low": 0.0, "high": 0.01}, "positive low"),
    (RATE, {"distribution": "uniform", "low": 0.01, "high": 0.001}, "low below high"),
    ("update/batch_size", {"distribution": "randint", "low": 8.5, "high": 64}, "needs a low and a high"),
    ("update/batch_size", {"distribution": "choice", "values": "32, 0"}, "schema refuses"),
    ("update/batch_size", {"distribution": "grid_search", "values": "32, x"}, "separated by commas"),
    ("update/batch_size", {"distribution": "choice", "values": []}, "needs values"),
    (ACTIVATION, {"values": ["relu", "nope"]}, "schema refuses"),
])
def test_a_bad_entry_is_a_config_error_at_its_key_path(builder, path, entry, message):
    draft = draft_for(builder)
    draft.tick(RATE)
    draft.tick(path, **entry)
    assert list(draft.errors) == [path]
    error = draft.errors[path]
    assert error.key_path == path and message in error.message
    with pytest.raises(ConfigError) as raised:
        draft.space()  # and so no launch
    assert raised.value is error


def test_a_path_without_a_sweepable_field_is_refused_and_a_ticked_one_the_config_lost_keeps_its_error(builder):
    draft = draft_for(builder)
    for path in ("policy/network", "policy/network/0/type", "policy/network/7/units"):
        with pytest.raises(ConfigError, match="no sweepable field") as raised:
            draft.tick(path)
        assert raised.value.key_path == path
    with pytest.raises(ConfigError, match="does not fit"):
        draft.tick("policy/dueling", "loguniform")
    draft.tick("policy/network/1/units", "choice", values=[64, 128])
    one_layer = {**builder.config, "policy": {**builder.config["policy"], "network": builder.config["policy"][
        "network"][:1]}}
    draft.use_config(one_layer)
    error = draft.errors["policy/network/1/units"]
    assert error.key_path == "policy/network/1/units" and "no such key path" in error.message


def test_the_models_import_without_ipywidgets():
    code = ("import sys, types\nsys.modules['ipywidgets'] = None\n"
            "for name in ('rlworkbench.workbench', 'rlworkbench.workbench.builder'):  # (their __init__s draw)\n"
            "    package = types.ModuleType(name); package.__path__ = [name.replace('.', '/')]\n"
            "    sys.modules[name] = package\n"
            "import rlworkbench.workbench.builder.sweep_draft\n"
            "from rlworkbench.workbench.experiments import sweep  # what a check and a launch import\n"
            "from rlworkbench.workbench.experiments.search_space import check_space\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                          cwd=Path(rlworkbench.__file__).parents[1])
    assert done.returncode == 0, done.stderr[-2000:]


# ----- the tab -----------------------------------------------------------------------------------------------------
def test_ticking_from_code_shows_the_row_and_updates_the_code(clean):
    builder, tab = clean, clean.view.sweep_tab
    assert isinstance(tab.widget, w.VBox) and tab.widget in [panel.children[0] for panel in clean.view.tabs.children]
    assert "space = {}" in tab.code.value and not tab.launch_button.disabled  # a seed set of one config
    assert clean.tick(RATE, "uniform", low=0.001, high=0.004)
    row = tab.rows[(RATE, "float")]
    assert row.tick.value and row.details.layout.display == "" and row.widget in tab.rows_box.children
    assert (row._inputs["distribution"].value, row._inputs["low"].value, row._inputs["high"].value) == (
        "uniform", 0.001, 0.004)
    assert '"optimizer/learning_rate": tune.uniform(0.001, 0.004),' in tab.code.value
    assert tab.code.value.startswith("from ray import tune") and tab.copy_button.text == tab.code.value
    assert tab.code.value.index("space = {") < tab.code.value.index("config = {")  # the space first, in view
    assert tab.code.value == builder.sweep_code()
    builder.set("update/batch_size", 32)  # a config change: the rows and the code follow
    assert "'batch_size': 32" in tab.code.value
    assert tab.rows[("update/batch_size", "integer")].tick.description == "update/batch_size = 32"


def test_the_rows_widgets_tick_and_change_the_entry(clean):
    tab = clean.view.sweep_tab
    dueling = tab.rows[("policy/dueling", "boolean")]
    dueling.tick.value = True  # as a click would
    assert clean.sweep_draft.entries["policy/dueling"].values == [False, True]
    dueling._inputs["distribution"].value = "grid_search"
    assert "tune.grid_search([False, True])" in tab.code.value
    units = tab.rows[("policy/network/0/units", "integer")]
    units.tick.value = True
    units._inputs["distribution"].value = "choice"
    units._inputs["values"].value = "64, 128"
    assert '"policy/network/0/units": tune.choice([64, 128]),' in tab.code.value
    units.tick.value = False
    assert "policy/network/0/units" not in clean.sweep_draft.entries and "units" not in clean.sweep_draft.space_code()
    tab.filter.value = "dueling"  # the filter hides unticked rows that do not match
    assert [r for r in tab.rows.values() if r.widget in tab.rows_box.children] == [dueling]
    tab.filter.value = ""


def test_a_bad_range_is_shown_at_its_row_and_launching_is_refused(clean):
    tab = clean.view.sweep_tab
    assert not clean.tick("discount", "uniform", low=0.5, high=1.5)
    row = tab.rows[("discount", "float")]
    assert "rlw-field-error" in row.error.value and "schema refuses" in row.error.value
    assert "2px solid" in row.details.layout.border and tab.launch_button.disabled
    assert "1 to fix" in tab.status.value
    with pytest.raises(ConfigError) as raised:
        clean.sweep()
    assert raised.value.key_path == "discount" and clean.experiment is None
    row._inputs["high"].value = 1.0  # fixed in the row
    assert clean.sweep_draft.errors == {} and row.error.value == "" and not tab.launch_button.disabled


def test_an_error_the_launch_finds_at_a_ticked_field_is_shown_at_its_row(clean, tmp_path):
    clean.tick("policy/dueling", "grid_search")
    clean.view.sweep_tab.settings["search"].value = "optuna"  # a searcher proposes its own values: no grids
    with pytest.raises(ConfigError, match="grid_search") as raised:
        clean.sweep(logdir=tmp_path)
    assert raised.value.key_path == "policy/dueling" and clean.experiment is None
    row = clean.view.sweep_tab.rows[("policy/dueling", "boolean")]
    assert "grid_search" in row.error.value and clean.view.sweep_tab.launch_button.disabled
    row._inputs["distribution"].value = "choice"
    assert row.error.value == "" and not clean.view.sweep_tab.launch_button.disabled


def test_the_code_cell_runs_the_same_sweep(clean, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    clean.tick(RATE, "loguniform", low=1e-4, high=1e-2)
    clean.tick(ACTIVATION, "grid_search", values=["relu", None])
    tab = clean.view.sweep_tab
    tab.settings["trials"].value, tab.settings["scheduler"].value = 2, "asha"
    calls = []
    monkeypatch.setattr(experiments, "sweep", lambda config, **settings: calls.append((config, settings)))
    shell = InteractiveShell.instance()
    try:
        code = clean.sweep_cell()
        assert shell.rl_next_input == code
        exec(code, {})
    finally:
        InteractiveShell.clear_instance()
    (config, settings), = calls
    assert config == clean.export()
    assert {path: describe(d) for path, d in settings.pop("space").items()} == {
        path: describe(d) for path, d in clean.sweep_draft.space().items()}
    assert settings == {"seeds": 3, "trials": 2, "scheduler": "asha", "budget": 10000, "env": "CartPole-v1",
                        "backend": "torch"}


def test_a_code_composed_component_has_no_sweep():
    made = GraphBuilder(Dense(4), input_spaces={"inputs": FloatBox(shape=(3,), add_batch_rank=True)})
    try:
        assert made.sweep_draft is None and made.view.sweep_tab is None
        with pytest.raises(ConfigError, match="edits a config"):
            made.tick(RATE)
    finally:
        made.close()


def test_a_row_of_a_lost_field_offers_only_its_untick(builder):
    row = FieldRow(builder, "policy/network/9/units", None, lambda action, *args: action(*args))
    row.show(None, SweepEntry("choice", values=[1]), ConfigError("gone", key_path="policy/network/9/units"))
    assert "not in the current config" in row.tick.description and row.details.layout.display == "none"
    assert "gone" in row.error.value


# ----- a real launch -----------------------------------------------------------------------------------------------
def test_launch_runs_a_tiny_sweep_and_shows_its_widget_in_the_tab(ray_session, tmp_path):
    made = GraphBuilder("dqn_cartpole", backend="torch")
    try:
        made.set("policy/network", [{"type": "dense", "units": 16, "activation": "relu"}])
        made.set("memory/capacity", 2000)
        made.set("update", {**made.config["update"], "learning_starts": 50, "batch_size": 16})
        made.tick(RATE, "loguniform", low=5e-4, high=5e-3)
        experiment = made.sweep(seeds=1, trials=2, budget=300, report_every=100, logdir=tmp_path, name="ticked")
        assert made.experiment is experiment
        tab = made.view.sweep_tab
        assert tab.experiment_box.children == (experiment.widget(),)
        assert made.view.tabs.selected_index == made.view.tabs.titles.index("sweep")
        experiment.wait(timeout=240)
        assert experiment.state == "finished" and len(experiment.trials) == 2
        results = experiment.results
        assert results[RATE].between(5e-4, 5e-3).all() and (results["timesteps"] >= 300).all()
        assert {run.config["policy"]["network"][0]["units"] for run in experiment.runs()} == {16}
    finally:
        made.close()

