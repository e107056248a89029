"""The builder's *sweep* tab: a view of its :class:`~.sweep_draft.SweepDraft`. The sweep's settings; one row per
sweepable field of the current config — a tick, and once ticked its distribution and ``low`` / ``high`` or values,
outlined in red with the ConfigError under it when the entry does not check; the experiment as Python code (copy
button); Launch, refused while there is an error; the launched Experiment's live widget. Ticks and launches call the
builder's :meth:`~.sweep_actions.SweepActions.tick`, ``untick`` and ``sweep``."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from rlworkbench.workbench.builder.config_form import ERROR_COLOR, short_error
from rlworkbench.workbench.builder.copy_button import CopyButton
from rlworkbench.workbench.builder.form_rows import wrapping
from rlworkbench.workbench.builder.sweep_draft import SETTINGS
from rlworkbench.workbench.builder.sweep_fields import RANGES, SweepEntry, SweepField

if TYPE_CHECKING:
    from rlworkbench.workbench.builder.graph_builder import GraphBuilder

_MENUS = {"scheduler": {"none": None, "asha": "asha", "pbt": "pbt"},
          "search": {"random / grid": None, "optuna": "optuna"},
          "target": {"local": "local", "multi_gpu": "multi_gpu", "ray": "ray"}}
"""The settings' menus: label → value (a Dropdown's value None would mean nothing chosen)."""


class SweepTab:
    """The sweep tab of ``builder`` (one with a form, so a :class:`SweepDraft`) as :attr:`widget`;
    ``guarded(action, *args)`` runs a click's action and shows its error."""

    def __init__(self, builder: GraphBuilder, guarded: Callable[..., None]):
        assert builder.sweep_draft is not None
        self.builder, self.draft, self.guarded = builder, builder.sweep_draft, guarded
        self.settings = {key: self._setting(key) for key in SETTINGS}
        self.filter = w.Text(placeholder="filter fields", continuous_update=True, layout=w.Layout(width="16em"))
        self.filter.observe(lambda _: self.refresh(), names="value")
        self.rows: dict[tuple[str, str | None], FieldRow] = {}
        self.rows_box = w.VBox(layout=w.Layout(max_height="320px", overflow="auto", width="100%"))
        self.code = w.Textarea(layout=w.Layout(width="100%", height="220px"))
        self.copy_button = CopyButton(label="Copy as Python code")
        self.launch_button = w.Button(description="Launch sweep", icon="rocket", button_style="success")
        self.launch_button.on_click(lambda _: self.guarded(builder.sweep))
        self.status = w.HTML()
        self.experiment_box = w.VBox()  # the launched Experiment's live widget
        settings = list(self.settings.values())
        self.widget = w.VBox([w.HBox(settings[:4], layout=wrapping()),
                              w.HBox([*settings[4:], self.launch_button], layout=wrapping()),
                              w.HBox([w.HTML("<b>fields to sweep</b>"), self.filter, self.status], layout=wrapping()),
                              self.rows_box,
                              w.HBox([w.HTML("<b>the experiment as code</b>"), self.copy_button]), self.code,
                              self.experiment_box], layout=w.Layout(width="100%"))
        self.widget.add_class("rlw-sweep-tab")
        self.refresh()

    def _setting(self, key: str) -> w.Widget:
        value = self.draft.settings[key]
        if key in _MENUS:
            label = next(label for label, option in _MENUS[key].items() if option == value)
            widget: w.Widget = w.Dropdown(options=list(_MENUS[key]), value=label, description=key)
        elif key == "env":
            widget = w.Text(value=value or "", description=key, continuous_update=False)
        else:
            widget = w.BoundedIntText(value=value, min=1, max=10**9, description=key)
        widget.observe(lambda change: self._set(key, change["new"]), names="value")
        return widget

    def _set(self, key: str, value: object) -> None:
        if key in _MENUS:
            value = _MENUS[key][value]
        self.draft.settings[key] = value if key != "env" else (value.strip() or None)
        self.refresh()

    # ----- called by the builder's view -----------------------------------------------------------------------
    def refresh(self) -> None:
        """Shows the draft: a row per field (and per ticked path the config lacks), errors, the code."""
        draft = self.draft
        fields = {f.path: f for f in draft.fields}
        paths = [*fields, *(path for path in draft.entries if path not in fields)]
        rows: dict[tuple[str, str | None], FieldRow] = {}
        shown, wanted = [], self.filter.value.strip().lower()
        for path in paths:
            field = fields.get(path)
            key = (path, field.kind if field else None)
            row = rows[key] = self.rows.pop(key, None) or FieldRow(self.builder, path, field, self.guarded)
            row.show(field, draft.entries.get(path), draft.errors.get(path))
            if path in draft.entries or wanted in path.lower():
                shown.append(row.widget)
        self.rows_box.children = shown
        for gone in self.rows.values():  # fields the config no longer has
            gone.close()
        self.rows = rows
        self._show_code()
        errors = len(draft.errors)
        self.launch_button.disabled = bool(errors) or self.builder.config is None
        self.status.value = (f"<small>{len(draft.entries)} ticked of {len(draft.fields)}"
                             + (f" · <span style='color:{ERROR_COLOR}'>{errors} to fix before launching</span>"
                                if errors else "") + "</small>")

    def show_experiment(self, experiment: Any) -> None:
        self.experiment_box.children = (experiment.widget(),)

    def _show_code(self) -> None:
        if self.builder.config is None:
            self.code.value = f"(no experiment: {self.builder.no_config_reason()})"
            return
        code = self.builder.sweep_code()
        self.code.value = self.copy_button.text = code


class FieldRow:
    """One field's row: its tick, and when ticked its distribution menu and range or values, and its error."""

    def __init__(self, builder: GraphBuilder, path: str, field: SweepField | None, guarded: Callable[..., None]):
        self.builder, self.path, self.field, self.guarded = builder, path, field, guarded
        self.tick = w.Checkbox(value=False, indent=False, layout=w.Layout(width="26em"))
        self.tick.observe(self._on_tick, names="value")
        self.details = w.HBox()
        self.error = w.HTML()
        self.widget = w.VBox([w.HBox([self.tick, self.details], layout=wrapping()), self.error],
                             layout=w.Layout(flex="0 0 auto"))  # (in a scrolled box: scrolled, never squeezed)
        self._syncing = False
        self._inputs: dict[str, w.Widget] = {}

    def show(self, field: SweepField | None, entry: SweepEntry | None, error: object) -> None:
        """Shows the field's current value, the draft's entry for it (None: not ticked) and its error."""
        self.field = field
        self._syncing = True
        try:
            self.tick.description = f"{self.path} = {field.value!r}" if field is not None \
                else f"{self.path} (not in the current config)"
            self.tick.value = entry is not None
            if entry is not None and field is not None:
                self._show_entry(field, entry)
            self.details.layout.display = "" if entry is not None and field is not None else "none"
        finally:
            self._syncing = False
        self.details.layout.border = f"2px solid {ERROR_COLOR}" if error is not None else ""
        self.error.value = "" if error is None else (f"<span class='rlw-field-error' style='color:{ERROR_COLOR}'>"
                                                     f"⚠ {html.escape(short_error(error))}</span>")

    def close(self) -> None:
        for widget in (self.tick, *self._inputs.values(), self.details, self.error, *self.widget.children,
                       self.widget):
            widget.close()

    def _show_entry(self, field: SweepField, entry: SweepEntry) -> None:
        inputs = self._inputs or self._make_inputs(field)
        inputs["distribution"].value = entry.distribution
        ranged = entry.distribution in RANGES
        for key in ("low", "high"):  # (kept while a choice is shown: switching back finds them)
            if getattr(entry, key) is not None:
                inputs[key].value = getattr(entry, key)
        values = inputs["values"]
        if isinstance(values, w.SelectMultiple):
            chosen = [] if isinstance(entry.values, str) else entry.values
            values.value = tuple(i for i, option in enumerate(field.options) if option in chosen)
        else:
            values.value = entry.values if isinstance(entry.values, str) else ", ".join(map(json.dumps, entry.values))
        for key in ("low", "high"):
            inputs[key].layout.display = "" if ranged else "none"
        values.layout.display = "none" if ranged else ""

    def _make_inputs(self, field: SweepField) -> dict[str, w.Widget]:
        number = w.IntText if field.kind == "integer" else w.FloatText
        small = w.Layout(width="9em")
        self._inputs = {"distribution": w.Dropdown(options=field.distributions, layout=w.Layout(width="9em")),
                        "low": number(description="low", layout=small, style={"description_width": "28px"}),
                        "high": number(description="high", layout=small, style={"description_width": "32px"})}
        if field.kind in ("boolean", "enum"):
            options = [(repr(option), index) for index, option in enumerate(field.options)]
            self._inputs["values"] = w.SelectMultiple(options=options, rows=min(4, len(options)),
                                                      layout=w.Layout(width="14em"))
        else:
            self._inputs["values"] = w.Text(placeholder="values, e.g. 32, 64", continuous_update=False,
                                            layout=w.Layout(width="18em"))
        for widget in self._inputs.values():
            widget.observe(self._on_change, names="value")
        self.details.children = tuple(self._inputs.values())
        return self._inputs

    def _on_tick(self, change: dict[str, object]) -> None:
        if not self._syncing:
            self.guarded(self.builder.tick if change["new"] else self.builder.untick, self.path)

    def _on_change(self, _: Any) -> None:
        if self._syncing or self.field is None:
            return
        inputs, field = self._inputs, self.field
        values = inputs["values"].value
        if isinstance(inputs["values"], w.SelectMultiple):
            values = [field.options[index] for index in sorted(values)]
        distribution = inputs["distribution"].value
        ranges = {"low": inputs["low"].value, "high": inputs["high"].value} if distribution in RANGES else {}
        self.guarded(lambda: self.builder.tick(self.path, distribution, values=values, **ranges))
