"""An agent type's JSON schema as the schema of an editing form (the subset ``ipywidgets-jsonschema`` draws).

The agent schemas (:mod:`rlworkbench.agents.config`) check configs; a form needs a little more and a little less:

- every **component spec** (network layers, preprocessors, memory, optimizer, decays) becomes a choice over the
  registered types of its kind, each option an object with that type's own constructor arguments (their schemas
  from :func:`~rlworkbench.agents.config.argument_schemas`, their defaults from the constructor) — so changing a
  layer's type in the dropdown shows that type's arguments;
- numbers keep their **bounds in the label** (``batch_size ≥ 1``) but not in the widget: a bounded widget would
  silently clamp a bad value, where the builder shows the config check's error next to the field instead;
- a list of types (``["number", "null"]``) or an enum with ``null`` becomes a choice, ``const`` gets its type;
- an argument whose annotation says nothing checkable (an initializer, a nested layer list) is a **JSON text**
  field (marked :data:`JSON_TEXT`): :func:`encode` writes config values into such fields, :func:`decode` reads
  them back (an empty field, or one still at its default, leaves the argument out).
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Mapping
from typing import Any

from rlworkbench.agents.config import (
    COMPONENT_KEYWORD,
    argument_schemas,
    constructor_arguments,
    known_types_of,
)
from rlworkbench.components.registry import registered
from rlworkbench.core.component import Component
from rlworkbench.errors import ConfigError

JSON_TEXT = "x-rlworkbench-json"  #: marks a form field holding a JSON value as text
OPTIONAL = "x-rlworkbench-optional"  #: marks a choice whose "none" option leaves the key out of the config
BOUNDS = "x-rlworkbench-bounds"  #: a number's bounds (the widget does not clamp; a sweep's default range does)
_BOUNDS = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
_FIRST_OF_KIND = ("dense", "replay_memory", "adam", "linear_decay")  # listed first in their type menus
_INT32_MAX = (1 << 31) - 1
_SUGGESTED = {"units": 64, "filters": 32, "kernel_size": 3, "num_frames": 4, "capacity": 10_000,  # new specs
              "learning_rate": 1e-3, "width": 84, "height": 84}
_RANGE_ENDS = {"low": -1, "min": -1, "minimum": -1, "lower": -1, "high": 1, "max": 1, "maximum": 1, "upper": 1}


FORM_LEFT_OUT = ("execution",)
"""Config sections the form leaves out: where a run goes is not the agent's composition (the builder keeps them as
they are). Devices picked per component in the builder are no config key either: a config holds no device map,
so an export leaves them out and ``promote(to="local")`` builds the agent on them."""


def form_schema(schema: Mapping[str, object]) -> dict[str, Any]:
    """The form schema of an agent type's config schema (without :data:`FORM_LEFT_OUT`)."""
    properties = {key: sub for key, sub in schema.get("properties", {}).items() if key not in FORM_LEFT_OUT}
    return _convert({**schema, "properties": properties}, None)


def _convert(node: Mapping[str, object], title: str | None) -> dict[str, object]:
    if COMPONENT_KEYWORD in node:
        return _component_choice(node, title)
    if "const" in node:
        return {"type": _json_type(node["const"]), "const": node["const"]}
    if "enum" in node:  # before anyOf: an argument rule's enum narrows what the annotation allows
        values = list(node["enum"])
        if None not in values:
            return _titled(_enum(values), title)
        return _choice([{"type": "null"}, _enum([v for v in values if v is not None])], title)
    if "anyOf" in node:
        return _choice([_convert(option, title) for option in node["anyOf"]], title)
    kind = node.get("type")
    if isinstance(kind, list):
        return _choice([_convert({**node, "type": one}, None) for one in sorted(kind, key=lambda k: k != "null")],
                       title)
    if kind == "object":
        properties = {key: _convert(sub, key) for key, sub in node.get("properties", {}).items()}
        return _titled({"type": "object", "properties": properties}, title)  # (no additionalProperties: the
        # library folds an object into an accordion only without it; the form adds no keys anyway)
    if kind == "array":
        array = {"type": "array", "items": _convert(node.get("items", {}), None)}
        array.update({k: node[k] for k in ("minItems", "maxItems") if k in node})
        return _titled(array, title)
    if kind in ("integer", "number"):
        bounds = " ".join(f"{sign} {_number(node[key])}" for key, sign in _BOUNDS
                          if key in node and abs(node[key]) < _INT32_MAX)  # int32 sanity limits go unsaid
        number = {"type": kind, BOUNDS: {key: node[key] for key, _ in _BOUNDS if key in node}}
        return _titled(number, f"{title} {bounds}" if title and bounds else title)
    if kind in ("string", "boolean", "null"):
        return _titled({"type": kind}, title)
    return _json_text(title)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _enum(values: list[object]) -> dict[str, object]:
    """A dropdown (the library reads a field's ``type`` even for one)."""
    kinds = {_json_type(value) for value in values}
    return {"type": kinds.pop(), "enum": values} if len(kinds) == 1 else {"enum": values}


def _choice(options: list[dict[str, Any]], title: str | None) -> dict[str, object]:
    flat: list[dict[str, Any]] = []
    for option in options:  # a choice inside a choice is one menu
        flat.extend(option["anyOf"] if "anyOf" in option else [option])
    for option in flat:  # the menu says "none" or the field's own name (a spec's option is titled by its type)
        if option.get("type") == "null":
            option["title"] = "none"
        else:
            option.setdefault("title", title or str(option.get("type")))
    titles = [option["title"] for option in flat]
    for option in flat:  # a menu needs distinct entries: "strides (integer)", "strides (array)"
        if titles.count(option["title"]) > 1:
            option["title"] += f" ({option.get('type', 'value')})"
    titles = [option["title"] for option in flat]
    for index, option in enumerate(flat):  # still alike (two arrays): numbered
        if titles.count(option["title"]) > 1:
            option["title"] += f" #{titles[:index].count(titles[index]) + 1}"
    return _titled({"anyOf": flat}, title)


def _titled(schema: dict[str, Any], title: str | None) -> dict[str, Any]:
    if title:
        schema["title"] = title
    return schema


def _json_text(title: str | None, default: str = "") -> dict[str, object]:
    return {"type": "string", "title": f"{title} (JSON)" if title else "JSON", "default": default, JSON_TEXT: True}


def _json_type(value: object) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(type(value), "null")


# ----- component specs ------------------------------------------------------------------------------------------
def _component_choice(node: Mapping[str, object], title: str | None) -> dict[str, object]:
    options = node[COMPONENT_KEYWORD]
    names = list(options.get("types") or known_types_of(options["kind"]))
    names.sort(key=lambda name: name not in _FIRST_OF_KIND)
    skip = tuple(options.get("reserved", ())) + ("name", "device")
    overrides = node.get("properties", {})
    choice = _titled({"anyOf": [_component_option(name, tuple(options.get("extra", ())), skip, overrides)
                                for name in names]}, title)
    if title:  # the menu and the folded arguments say which field they are: "memory: replay_memory"
        for option in choice["anyOf"]:
            option["title"] = f"{title}: {option['title']}"
    return choice


def _component_option(type_name: str, extra: tuple[str, ...], skip: tuple[str, ...],
                      overrides: Mapping[str, object]) -> dict[str, object]:
    cls = registered()[type_name]
    schemas = argument_schemas(cls)
    properties: dict[str, object] = {"type": {"type": "string", "const": type_name}}
    required = constructor_arguments(cls)[1]
    for name, default in [*_arguments(cls), *((key, inspect.Parameter.empty) for key in extra)]:
        if name in skip or name in properties:
            continue
        source = overrides.get(name) or schemas.get(name)
        if source is None:
            properties[name] = _json_text(name, _default_text(default))
            continue
        field = _convert(source, name)
        if name in extra:  # read by the agent, not the constructor: may be left out
            field = {**_choice([{"type": "null"}, field], name), OPTIONAL: True}
            properties[name] = field
            continue
        value = default if default is not inspect.Parameter.empty else _suggested(name, source, name in required)
        if value is not inspect.Parameter.empty:
            field["default"] = value
        properties[name] = field
    return {"type": "object", "title": type_name, "properties": properties}


@functools.cache
def _arguments(cls: type) -> tuple[tuple[str, object], ...]:
    """``(name, default)`` of the constructor arguments, in signature order, following ``**kwargs`` to bases."""
    found: dict[str, object] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        parameters = list(inspect.signature(init).parameters.values())[1:]
        for p in parameters:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                found.setdefault(p.name, p.default)
        if klass is Component or not any(p.kind is p.VAR_KEYWORD for p in parameters):
            break
    return tuple(found.items())


def _suggested(name: str, schema: Mapping[str, object], required: bool) -> object:
    """A starting value for a required argument of a newly added spec: the schema's first example, a known good
    one by name, a number from its bounds — a range's ends apart (``clip``: low -1, high 1), else its minimum, else
    1 — or nothing."""
    if not required:
        return inspect.Parameter.empty
    if schema.get("examples"):
        return schema["examples"][0]
    if name in _SUGGESTED:
        return _SUGGESTED[name]
    kind = schema.get("type")
    if kind not in ("integer", "number"):
        return inspect.Parameter.empty
    if name in _RANGE_ENDS:  # a bound it has, else -1 for the lower end and 1 for the upper: never low == high
        lower = _RANGE_ENDS[name] < 0
        value = schema.get("minimum" if lower else "maximum", _RANGE_ENDS[name])
    else:
        value = schema.get("minimum", 1)
    return int(value) if kind == "integer" else float(value)


def _default_text(default: object) -> str:
    if default is inspect.Parameter.empty:
        return ""
    try:
        return json.dumps(default)
    except TypeError:
        return ""


# ----- config values in and out of the form ---------------------------------------------------------------------
_MISSING = object()


def encode(value: object, schema: Mapping[str, object]) -> object:
    """A config value as the form holds it (JSON values of JSON-text fields as text)."""
    return _walk(value, schema, "", lambda field_value, field, _: json.dumps(field_value))


def decode(value: object, schema: Mapping[str, object]) -> Any:
    """The form's data as a config (JSON-text fields parsed; empty ones or ones at their default left out)."""
    return _walk(value, schema, "", _parse)


def _parse(text: str, field: Mapping[str, object], path: str) -> object:
    text = (text or "").strip()
    if not text or text == field.get("default"):
        return _MISSING
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"not valid JSON ({error.msg})", key_path=path, expected="a JSON value",
                          got=text[:60]) from None


def _walk(value: object, schema: Mapping[str, object], path: str, leaf: Any) -> object:
    if schema.get(JSON_TEXT):
        return leaf(value, schema, path)
    if schema.get(OPTIONAL) and value is None and leaf is _parse:
        return _MISSING
    if "anyOf" in schema:
        option = option_for(value, schema["anyOf"])
        return value if option is None else _walk(value, option, path, leaf)
    if schema.get("type") == "object" and isinstance(value, Mapping):
        properties = schema.get("properties", {})
        out = {}
        for key, item in value.items():
            walked = _walk(item, properties[key], f"{path}/{key}" if path else key, leaf) if key in properties \
                else item
            if walked is not _MISSING:
                out[key] = walked
        return out
    if schema.get("type") == "array" and isinstance(value, list):
        return [_walk(item, schema.get("items", {}), f"{path}/{index}" if path else str(index), leaf)
                for index, item in enumerate(value)]
    return value


def option_for(value: object, options: list[Mapping[str, Any]]) -> Mapping[str, object] | None:
    """The option of a choice that ``value`` belongs to: by a spec's ``type``, else by JSON type."""
    if isinstance(value, Mapping):
        return next((o for o in options if o.get("properties", {}).get("type", {}).get("const") == value.get("type")),
                    None)
    kind = "null" if value is None else _json_type(value)
    return next((o for o in options if o.get("type") == kind or (kind == "integer" and o.get("type") == "number")
                 or ("enum" in o and value in o["enum"])), None)
