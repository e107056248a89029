"""The builder's form draws a choice's options only once chosen: far fewer widget models than the library's eager
form, and an option drawn late behaves as if it had been there from the start (values, observers, data)."""

from __future__ import annotations

import ipywidgets as w
import ipywidgets_jsonschema
import pytest
from ipywidgets.widgets.widget import _instances as live_widgets

from rlworkbench.workbench.builder.config_form import ConfigForm
from rlworkbench.workbench.builder.form_schema import form_schema
from rlworkbench.workbench.builder.lazy_choices import LIBRARY_LAYOUT_WARNING, LazyChoiceForm
from rlworkbench.workbench.builder.source import resolve_source


@pytest.fixture(scope="module")
def dqn():
    return resolve_source("dqn_cartpole", "CartPole-v1")


def widgets_made_by(make) -> int:
    before = len(live_widgets)
    made = make()
    count = len(live_widgets) - before
    del made
    return count


@pytest.mark.filterwarnings(f"ignore:{LIBRARY_LAYOUT_WARNING}:DeprecationWarning")  # the library's eager form
def test_the_form_sends_a_fraction_of_the_eager_forms_widgets(dqn):
    schema = form_schema(dqn.agent_class.schema)
    eager = widgets_made_by(lambda: ipywidgets_jsonschema.Form(schema))
    lazy = widgets_made_by(lambda: LazyChoiceForm(schema))
    assert lazy * 3 < eager, (lazy, eager)


def test_only_the_chosen_option_is_drawn_until_another_is_chosen(dqn):
    form = ConfigForm(dqn.agent_class.schema, dqn.config)
    element, _ = form._locate("memory", choose=False)
    options = element.subelements
    assert len(list(options.built())) == 1
    form.choice_menu("memory").value = "memory: prioritized_replay"
    assert len(list(options.built())) == 2
    assert isinstance(form.field("memory/alpha"), w.FloatText)


def test_an_option_drawn_late_reports_its_changes_and_holds_its_data(dqn):
    form = ConfigForm(dqn.agent_class.schema, dqn.config)
    seen = []
    form.observe(seen.append)
    form.choice_menu("memory").value = "memory: prioritized_replay"
    assert seen, "choosing a type is a change"
    seen.clear()
    form.field("memory/alpha").value = 0.4
    assert seen, "a field of an option drawn after observe() was registered still reports"
    assert form.data["memory"]["type"] == "prioritized_replay" and form.data["memory"]["alpha"] == 0.4


def test_data_set_into_the_form_draws_the_option_it_needs(dqn):
    form = ConfigForm(dqn.agent_class.schema, dqn.config)
    config = form.data
    config["memory"] = {"type": "prioritized_replay", "capacity": 500, "alpha": 0.7}
    form.data = config
    assert form.choice_menu("memory").value == "memory: prioritized_replay"
    assert form.field("memory/alpha").value == 0.7 and form.data["memory"]["capacity"] == 500


def test_menu_entries_are_distinct_so_every_option_can_be_chosen():
    """A menu picks an option by its title: alike titles hid the later options ("strides" twice, two arrays)."""
    schema = form_schema({"type": "object", "properties": {
        "strides": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
        "pairs": {"anyOf": [{"type": "array", "items": {"type": "integer"}},
                            {"type": "array", "items": {"type": "number"}}, {"type": "null"}]}}})
    titles = {name: [option["title"] for option in schema["properties"][name]["anyOf"]]
              for name in ("strides", "pairs")}
    assert titles["strides"] == ["strides (integer)", "strides (array)"]
    assert titles["pairs"] == ["pairs (array) #1", "pairs (array) #2", "none"]
