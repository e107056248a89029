"""``ConfigForm``: an agent config as a form of widgets, generated from the agent type's JSON schema by
`ipywidgets-jsonschema <https://github.com/ssciwr/ipywidgets-jsonschema>`_ (see :mod:`.form_schema`).

Why that library: it targets ipywidgets 8, draws numbers, enums (dropdowns), booleans (checkboxes), nested objects
(collapsible accordions), arrays with add / remove / move up / move down, and ``anyOf`` choices as a dropdown
that swaps the option's fields — which is what a list of component specs whose type can change needs. It has
no field-level error display and no path lookup, so this module adds both: :meth:`field` finds the widget of a
JSON path (walking the form's elements beside the form schema), :meth:`show_error` writes a ConfigError next to
it and outlines it in red. A choice's options are drawn when first chosen (:mod:`.lazy_choices`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as w

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.builder.form_rows import choice_menu_of
from rlworkbench.workbench.builder.form_schema import decode, encode, form_schema

ERROR_COLOR = "#b91c1c"


class ConfigForm:
    """A form for configs of ``schema`` (an agent type's config schema) holding ``config``."""

    def __init__(self, schema: Mapping[str, object], config: Mapping[str, object]):
        from rlworkbench.workbench.builder.lazy_choices import LazyChoiceForm  # (ipywidgets-jsonschema: jupyter extra)

        self.schema = form_schema(schema)
        self._form = LazyChoiceForm(self.schema)
        self._errors: list[Callable[[], None]] = []  # how to take each error mark off again
        self._handlers: list[Callable[[object], None]] = []
        self._hooked: set[int] = set()  # move buttons whose clicks reach the handlers
        self.widget = self._form.widget
        self.data = config
        self.widget.add_class("rlw-config-form")
        self._open_sections()

    # ----- values ---------------------------------------------------------------------------------------------
    @property
    def data(self) -> dict[str, object]:
        """The config the form holds now (not validated against the agent's schema: that is the builder's job)."""
        import jsonschema

        try:
            return decode(self._form.data, self.schema)
        except jsonschema.ValidationError as error:  # a value of the wrong JSON type (e.g. an empty choice)
            raise ConfigError(error.message, key_path="/".join(str(p) for p in error.absolute_path) or None,
                              got=error.instance) from None

    @data.setter
    def data(self, config: Mapping[str, object]) -> None:
        import jsonschema

        properties = self.schema["properties"]
        try:
            self._form.data = encode({key: value for key, value in config.items() if key in properties}, self.schema)
        except jsonschema.ValidationError as error:  # a value the form cannot hold (a list where a number goes …)
            raise ConfigError(f"the form cannot hold this value: {error.message}",
                              key_path="/".join(str(p) for p in error.absolute_path) or None,
                              got=error.instance) from None
        self._hook_moves()

    def observe(self, handler: Callable[[object], None]) -> None:
        """Calls ``handler(change)`` on every change of a value in the form (entries added, removed or moved too)."""
        if not self._handlers:
            self._form.observe(self._changed, names="value", type="change")
        self._handlers.append(handler)

    def _changed(self, change: object) -> None:
        self._hook_moves()  # entries added since: their move buttons too
        for handler in self._handlers:
            handler(change)

    def _hook_moves(self) -> None:
        """Entries move through the data here, not through the library's own move handlers (which tell no observer,
        and move the last entry down onto a hidden spare one); "Add entry" hooks the new entry's buttons."""
        for button in _walk(self.widget):
            if not isinstance(button, w.Button) or id(button) in self._hooked:
                continue
            if button.icon in ("arrow-up", "arrow-down"):
                self._hooked.add(id(button))
                button._click_handlers.callbacks.clear()  # (ipywidgets keeps a button's handlers there)
                button.on_click(lambda b: self._move(b, -1 if b.icon == "arrow-up" else 1))
            elif button.description == "Add entry":
                self._hooked.add(id(button))
                button.on_click(lambda _: self._hook_moves())  # after the library's handler drew the entry

    def _move(self, button: w.Button, step: int) -> None:
        found = self._entry_with(button)
        if found is None:
            return
        path, index = found
        try:
            config = self.data
        except ConfigError:  # a field that does not parse: nothing moves until it is fixed
            return
        entries = config
        for part in [p for p in path.split("/") if p]:
            entries = entries[int(part)] if isinstance(entries, list) else entries[part]
        other = index + step
        if not 0 <= other < len(entries):
            return
        entries[index], entries[other] = entries[other], entries[index]
        self.data = config
        self._changed({"name": "value", "type": "change", "owner": None})

    def _entry_with(self, button: w.Button) -> tuple[str, int] | None:
        """``(path of the list, index)`` of the list entry whose move buttons include ``button``."""

        def visit(element: Any, schema: Mapping[str, object], path: str) -> tuple[str, int] | None:
            element, schema = _chosen(element, schema)
            if schema.get("type") == "object":
                for key, sub in schema.get("properties", {}).items():
                    found = visit(element.subelements[key], sub, f"{path}/{key}" if path else key)
                    if found:
                        return found
            elif schema.get("type") == "array":
                for index in range(_entries(element)):
                    entry = element.subelements[index]
                    controls = entry.widgets[0].children[-1] if entry.widgets else None
                    if controls is not None and button in getattr(controls, "children", ()):
                        return path, index
                    found = visit(entry, schema["items"], f"{path}/{index}" if path else str(index))
                    if found:
                        return found
            return None

        return visit(self._form._form_element, self.schema, "")

    # ----- finding a field -----------------------------------------------------------------------------------
    def field(self, path: str) -> w.Widget:
        """The input widget at a JSON path (``"update/batch_size"``, ``"policy/network/1/units"``); for a section
        or a list, its accordion. A ConfigError when the path is not in the form."""
        element, schema = self._locate(path)
        return _input_of(element, schema)

    def choice_menu(self, path: str) -> w.Dropdown:
        """The dropdown of the choice at ``path``: a component spec's type (``"memory"``, ``"policy/network/0"``),
        or number-or-none. A ConfigError when there is no choice there."""
        element, schema = self._locate(path, choose=False)
        if "anyOf" not in schema or len(schema["anyOf"]) < 2:
            raise ConfigError("no choice at this path", key_path=path, expected="a component spec or a choice",
                              got=schema.get("type"))
        return _selector(element)

    def _locate(self, path: str, choose: bool = True) -> tuple[Any, Mapping[str, Any]]:
        """The library's form element (getter, setter, widgets, subelements) and form schema at ``path``; for a
        choice, its chosen option's (``choose=False``: the choice's own)."""
        element, schema = _chosen(self._form._form_element, self.schema)
        parts = [p for p in path.split("/") if p]
        for depth, part in enumerate(parts):
            if schema.get("type") == "object" and part in schema.get("properties", {}):
                element, schema = element.subelements[part], schema["properties"][part]
            elif schema.get("type") == "array" and part.isdigit() and int(part) < _entries(element):
                element, schema = element.subelements[int(part)], schema["items"]
            else:
                raise ConfigError("no such field in the form", key_path=path, expected="a path of the config",
                                  got="/".join(parts[:depth + 1]))
            if choose or depth < len(parts) - 1:
                element, schema = _chosen(element, schema)
        return element, schema

    # ----- errors next to fields -----------------------------------------------------------------------------
    def show_error(self, error: ConfigError) -> str | None:
        """Marks the field the error's JSON path names (the deepest one the form has) and writes the message
        beside it; returns the path it marked, or None when the error names no field of the form."""
        self.clear_errors()
        parts = [p for p in (error.key_path or "").split("/") if p]
        for end in range(len(parts), 0, -1):
            path = "/".join(parts[:end])
            try:
                element, schema = self._locate(path)
            except ConfigError:
                continue
            if element.widgets:
                self._mark(element, schema, error)
                return path
        return None

    def clear_errors(self) -> None:
        """Takes every error mark off the form."""
        for undo in reversed(self._errors):
            undo()
        self._errors.clear()

    def _mark(self, element: Any, schema: Mapping[str, object], error: ConfigError) -> None:
        text = f"⚠ {short_error(error)}"
        widget = _input_of(element, schema)
        _reveal(self.widget, widget)
        if isinstance(widget, w.Accordion):  # a section or list: the message first inside it, opened
            inner = widget.children[0]
            before = (inner.children, widget.selected_index)
            inner.children = (w.HTML(f"<span class='rlw-field-error' style='color:{ERROR_COLOR}'>"
                                      f"{html.escape(text)}</span>"), *inner.children)
            widget.selected_index = 0

            def undo() -> None:
                inner.children, widget.selected_index = before
        else:  # a field: the library's note line under it, and a red outline
            own = _own_widgets(element)
            note = own[1] if len(own) > 1 else None
            border = widget.layout.border
            widget.layout.border = f"2px solid {ERROR_COLOR}"
            if note is not None:
                note.value, note.layout.display = text, "block"
                note.style.text_color = ERROR_COLOR
                note.add_class("rlw-field-error")

            def undo() -> None:
                widget.layout.border = border
                if note is not None:
                    note.value, note.layout.display = "", "none"
                    note.remove_class("rlw-field-error")
        self._errors.append(undo)

    def _open_sections(self) -> None:
        """Top-level sections start open, and so do the arguments of a top-level component's chosen type
        (``optimizer: adam``); nested ones stay folded."""
        for child in self.widget.children:
            if isinstance(child, w.Accordion):
                child.selected_index = 0
            elif isinstance(child, w.VBox) and child.children and isinstance(child.children[0], w.VBox):
                for part in child.children[0].children:  # a choice: VBox([VBox([menu row, *option widgets])])
                    if isinstance(part, w.Accordion):
                        part.selected_index = 0


def short_error(error: ConfigError) -> str:
    """A ConfigError in one line for a field: its message, what was expected and what came."""
    text = error.message
    if error.expected is not None:
        text += f" — expected {error.expected}"
    if error.got is not None:
        text += f", got {error.got!r}"
    return text


# ----- the library's element tree --------------------------------------------------------------------------------
def _chosen(element: Any, schema: Mapping[str, object]) -> tuple[Any, Mapping[str, Any]]:
    """For a choice: the chosen option's element and schema (its dropdown sits first in the choice's box)."""
    while "anyOf" in schema:
        options = schema["anyOf"]
        if len(options) == 1:  # the library draws a one-option choice as the option itself
            schema = options[0]
            continue
        selector = _selector(element)
        index = list(selector.options).index(selector.value)
        element, schema = element.subelements[index], options[index]
    return element, schema


def _walk(widget: w.Widget) -> Any:
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def _reveal(root: w.Widget, target: w.Widget) -> bool:
    """Opens every accordion between ``root`` and ``target``; whether ``target`` is below ``root``."""
    if root is target:
        return True
    for child in getattr(root, "children", ()):
        if _reveal(child, target):
            if isinstance(root, w.Accordion):
                root.selected_index = list(root.children).index(child)
            return True
    return False


def _selector(element: Any) -> w.Dropdown:
    """A choice's dropdown: in the first row of its box (``VBox([VBox([row, *option widgets])])``)."""
    return choice_menu_of(_own_widgets(element)[0].children[0].children[0])


def _input_of(element: Any, schema: Mapping[str, object]) -> w.Widget:
    """A field's input widget (its row is ``HBox([label, input])``), or a section's / list's accordion."""
    widgets = _own_widgets(element)
    first = widgets[0] if widgets else None
    if schema.get("type") in ("object", "array") or not isinstance(first, w.Box) or not first.children:
        return first
    return first.children[-1]


def _own_widgets(element: Any) -> list[w.Widget]:
    """An element's widgets without the box a list puts around its entries (``VBox([VBox(widgets), HBox(trash,
    up, down)])``)."""
    widgets = list(element.widgets)
    if len(widgets) == 1 and isinstance(widgets[0], w.VBox) and len(widgets[0].children) == 2:
        inner, buttons = widgets[0].children
        if isinstance(buttons, w.HBox) and buttons.children and all(isinstance(b, w.Button) for b in buttons.children):
            return list(inner.children)
    return widgets


def _entries(element: Any) -> int:
    """How many entries a list field shows (its box holds the entries, then the add button)."""
    box = element.widgets[0].children[0].children[0] if isinstance(element.widgets[0], w.Accordion) \
        else element.widgets[0]
    return sum(1 for child in box.children if not isinstance(child, w.Button))
