"""``LazyChoiceForm``: the schema form, with each choice's options drawn only once chosen.

``ipywidgets-jsonschema`` builds every option of every ``anyOf`` up front. An agent config has a choice per
component spec (each layer, preprocessor, memory, decay, optimizer) and each offers every registered type of its
kind with that type's own arguments: for ``dqn_cartpole`` that is about 2,000 widget models, every one sent to the
browser before the form can show. Here an option's widgets are built the first time it is chosen (by the user, by
data set into the form, or by code asking for it), which leaves under 700. A choice starts on its default's
option (the library's starts on the first one: a number at 0 where the default is ``None``).

A choice's menu sits in a labeled row (``clip_grad_norm (optional)``, see :func:`choice_row`), like a field.

A section of one field gets its own collapsible, titled accordion too: the library folds only objects of two or
more fields, so ``exploration`` (just ``epsilon``) would have shown no header.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import ipywidgets as w
import ipywidgets_jsonschema
import jsonschema

from rlworkbench.workbench.builder.form_rows import choice_row

LIBRARY_LAYOUT_WARNING = r"Passing unrecognized arguments to super\(Layout\)"  # the library's Layout(color=...)
Observer = tuple[Callable[[Any], None], Any, Any]  # (handler, names, type) as the library registers them


class LazyOptions(Sequence):
    """A choice's option elements, each built on first access; observers registered so far reach late ones too."""

    def __init__(self, count: int, build: Callable[[int], Any]):
        self._build = build
        self._elements: list[object] = [None] * count
        self._observers: list[Observer] = []

    def __len__(self) -> int:
        return len(self._elements)

    def __getitem__(self, index: int) -> Any:  # type: ignore[override]
        if self._elements[index] is None:
            element = self._build(index)
            for handler, names, kind in self._observers:
                element.register_observer(handler, names, kind)
            self._elements[index] = element
        return self._elements[index]

    def built(self) -> Iterator[object]:
        """The options drawn so far."""
        return (element for element in self._elements if element is not None)

    def register_observer(self, handler: Callable[[object], None], names: object, kind: object) -> None:
        self._observers.append((handler, names, kind))
        for element in self.built():
            element.register_observer(handler, names, kind)


class LazyChoiceForm(ipywidgets_jsonschema.Form):
    """``ipywidgets_jsonschema.Form`` whose choices (``anyOf``/``oneOf``) build an option's widgets when it is
    chosen, starting on the default's option. Same widget tree, getters and setters as the library's for every
    option shown, except that a section of one field is folded in an accordion like larger ones."""

    def __init__(self, schema: Mapping[str, object], **kwargs: object):
        with _quiet_layouts():
            super().__init__(schema, **kwargs)

    def _construct(self, schema: Mapping[str, object], label: str | None = None, root: bool = False) -> object:
        with _quiet_layouts():  # options drawn late, after __init__
            return super()._construct(schema, label=label, root=root)

    def _construct_object(self, schema: Mapping[str, object], label: str | None = None, root: bool = False) -> object:
        element = super()._construct_object(schema, label=label, root=root)
        fields = list(schema.get("properties", {}).values())
        if root or len(fields) != 1 or "const" in fields[0] or (label is None and "title" not in schema):
            return element  # (the library folds objects of two or more fields itself; a bare spec type shows nothing)
        return element._replace(widgets=self._wrap_accordion(element.widgets, schema, label=label))

    def _construct_anyof(self, schema: Mapping[str, object], label: str | None = None, key: str = "anyOf") -> object:
        options = schema[key]
        if len(options) == 1 or key == "allOf":  # drawn as the option itself, or all at once: the library's way
            return super()._construct_anyof(schema, label=label, key=key)

        def build(index: int) -> object:
            with self._push_schema(schema):  # the library's recursion guard sees the same stack as when eager
                return self._construct(options[index])

        names = [_option_name(option, index) for index, option in enumerate(options)]
        elements = LazyOptions(len(options), build)
        selector = w.Dropdown(options=names, value=names[0], layout=w.Layout(width="auto", flex="1 1 auto"))
        head = choice_row(selector, schema.get("title", label), any(o.get("type") == "null" for o in options))
        box = w.VBox([head, *elements[0].widgets])

        def show_chosen(_: object = None) -> None:
            box.children = [head, *elements[names.index(selector.value)].widgets]

        selector.observe(show_chosen, names="value")

        def setter(data: object) -> None:
            for index, option in enumerate(options):
                if jsonschema.validators.validator_for(option)(option).is_valid(data):
                    selector.value = names[index]
                    show_chosen()
                    elements[index].setter(data)
                    return

        def resetter() -> None:
            for element in elements.built():
                element.resetter()
            if "default" in schema:
                setter(schema["default"])

        if "default" in schema:  # the library opens on the first option whatever the default (None too)
            setter(schema["default"])

        def register_observer(handler: Callable[[object], None], names_: object, kind: object) -> None:
            selector.observe(handler, names=names_, type=kind)
            elements.register_observer(handler, names_, kind)

        def getter() -> object:
            return elements[names.index(selector.value)].getter()

        return self.construct_element(
            getter=getter,
            setter=setter,
            resetter=resetter,
            widgets=[w.VBox(children=[box])],
            subelements=elements,
            register_observer=register_observer,
        )


@contextmanager
def _quiet_layouts() -> Iterator[None]:
    """The library passes a text colour to ``Layout``, which has none: traitlets warns once per field."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=LIBRARY_LAYOUT_WARNING, category=DeprecationWarning)
        yield


def _option_name(option: Mapping[str, object], index: int) -> str:
    """The dropdown entry of an option, named as the library names it."""
    if "title" in option:
        return option["title"]
    if "$ref" in option:
        return option["$ref"].split("/")[-1]
    if "type" in option:
        title = option.get("properties", {}).get("title", {}) if option["type"] == "object" else {}
        return title.get("const", option["type"])
    return f"Option {index + 1}"
