"""Agent configs: JSON files (or dicts) checked against a JSON schema per agent type.

``validate_config(config, schema, defaults)`` merges ``config`` over the agent type's defaults and validates the
result with `jsonschema <https://python-jsonschema.readthedocs.io>`_; the first (most relevant) problem becomes a
:class:`~rlworkbench.errors.ConfigError` naming the JSON path (``"memory/capacity"``) and what is allowed there.

Component specs inside a config (network layers, preprocessors, decays, optimizers, memories) are checked by the
schema keyword ``"component"`` (see :func:`component_spec`): their ``type`` must be a registered component of the
right kind — an unknown one fails with the list of known ones — and their other keys must be constructor
arguments of that class. Nothing in a config is ever evaluated as code: types are looked up in the registry.
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import functools
import inspect
import json
import math
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypedDict, cast

from rlworkbench.agents.input_checks import INPUT_CHOICES
from rlworkbench.components.common import TimeDependentParameter
from rlworkbench.components.memories import Memory
from rlworkbench.components.optimizers import Optimizer
from rlworkbench.components.registry import registered
from rlworkbench.core.component import Component
from rlworkbench.errors import ConfigError, RLWorkbenchError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

COMPONENT_KEYWORD = "component"


class ComponentOptions(TypedDict):
    """The value of a schema's ``component`` keyword (see :func:`component_spec`)."""

    kind: str | None
    types: list[str] | None
    extra: list[str]
    reserved: list[str]


# ----- loading ------------------------------------------------------------------------------------------------
def load_config(path_or_dict: str | Path | Mapping[str, object]) -> dict[str, object]:
    """A config as a fresh dict: from a mapping (deep-copied), a JSON file, or a shipped config's name
    (``"dqn_cartpole"``, see :func:`builtin_configs`)."""
    if isinstance(path_or_dict, Mapping):
        check_plain_json(path_or_dict)
        return copy.deepcopy(dict(path_or_dict))
    if not isinstance(path_or_dict, (str, Path)):
        raise ConfigError("a config is a dict, the path of a JSON file or a shipped config's name",
                          expected="dict, str or Path", got=type(path_or_dict).__name__)
    path = Path(path_or_dict)
    if not path.exists() and isinstance(path_or_dict, str) and path_or_dict in builtin_configs():
        return builtin_config(path_or_dict)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"no such config file or shipped config ({error.strerror or error})",
                          expected=f"a JSON file or one of {builtin_configs()}", got=str(path)) from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"the config file is not UTF-8 text ({error.reason} at byte {error.start})",
                          expected="a UTF-8 JSON file", got=str(path)) from None
    try:
        config = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise ConfigError(f"the config file is not valid JSON (line {error.lineno}, column {error.colno}): "
                          f"{error.msg}", got=str(path)) from None
    except RecursionError:
        raise ConfigError(f"the config file is nested too deeply (at most {MAX_DEPTH} levels)",
                          got=str(path)) from None
    if not isinstance(config, dict):
        raise ConfigError("a config file holds one JSON object", expected="{...}", got=type(config).__name__)
    check_plain_json(config)
    return config


MAX_DEPTH = 32  #: levels of nesting a config may have (the deepest shipped one has 5)


def check_plain_json(value: object, path: str = "", depth: int = 0) -> None:
    """A ConfigError naming the key path unless ``value`` is plain JSON: string keys, finite numbers, at most
    :data:`MAX_DEPTH` levels deep. (NaN and infinity pass every schema bound: they are refused here, once.)"""
    if depth > MAX_DEPTH:
        raise ConfigError("the config is nested too deeply", key_path=path or None,
                          expected=f"at most {MAX_DEPTH} levels", got="deeper")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConfigError("config keys are strings", key_path=path or None, expected="str",
                                  got=f"{key!r} ({type(key).__name__})")
            check_plain_json(item, f"{path}/{key}" if path else key, depth + 1)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_plain_json(item, f"{path}/{index}" if path else str(index), depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ConfigError("numbers in a config must be finite", key_path=path or None, expected="a finite number",
                          got=value)


def _no_constant(name: str) -> NoReturn:
    raise ConfigError(f"{name} is not a number a config may hold", expected="a finite number", got=name)


def config_name(source: str | Path | Mapping[str, object], config: Mapping[str, object]) -> str:
    """A name for a config, for run directories: a file's stem or a shipped config's name; for a dict its
    ``name`` key, else its ``type``."""
    if isinstance(source, Mapping):
        return str(config.get("name", config.get("type", "agent")))
    return Path(source).stem


def builtin_configs() -> list[str]:
    """Names of the configs shipped with rlworkbench (``rlworkbench/agents/configs/*.json``)."""
    folder = resources.files("rlworkbench.agents") / "configs"
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".json"))


def builtin_config(name: str) -> dict[str, object]:
    """A shipped config by name (``"dqn_cartpole"``), as a dict."""
    if name not in builtin_configs():
        raise ConfigError(f"no built-in config '{name}'", expected=builtin_configs(), got=name)
    text = (resources.files("rlworkbench.agents") / "configs" / f"{name}.json").read_text(encoding="utf-8")
    return json.loads(text)


# ----- merging defaults ---------------------------------------------------------------------------------------
def merge_defaults(defaults: Mapping[str, object], config: Mapping[str, object]) -> dict[str, object]:
    """``config`` over ``defaults``, section by section. A section that is a component spec (it has a ``type``)
    is merged only when the config names the same type or none; another type replaces it whole."""
    merged = copy.deepcopy(dict(defaults))
    for key, value in config.items():
        default = merged.get(key)
        if isinstance(default, dict) and isinstance(value, Mapping) and value.get("type", default.get("type")) \
                == default.get("type"):
            merged[key] = merge_defaults(default, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


# ----- component specs inside a schema -------------------------------------------------------------------------
def component_spec(kind: str | None = None, types: list[str] | None = None, extra: tuple[str, ...] = (),
                   reserved: tuple[str, ...] = ("name", "device"), **schema: object) -> dict[str, object]:
    """A schema for a component spec ``{"type": ..., <constructor arguments>}``.

    ``kind`` picks the allowed types from the registry (see :data:`KINDS`); ``types`` lists them instead.
    ``extra`` keys are allowed besides the constructor arguments (the agent reads them itself); ``reserved``
    arguments are set by the agent and may not appear. ``schema`` adds ordinary JSON-schema keywords.
    """
    options: ComponentOptions = {"kind": kind, "types": types, "extra": list(extra), "reserved": list(reserved)}
    return {"type": "object", "required": ["type"], **schema, COMPONENT_KEYWORD: options}


def _has_api(*names: str) -> Callable[[type[Component]], bool]:
    return lambda cls: any(name in cls.api_methods for name in names)


def _subclass_of(base: type) -> Callable[[type[Component]], bool]:
    return lambda cls: issubclass(cls, base)


KINDS = {  # kind of component spec -> which registered classes qualify
    "layer": _has_api("apply", "preprocess"),
    "preprocessor": _has_api("preprocess"),
    "time_dependent_parameter": _subclass_of(TimeDependentParameter),
    "optimizer": _subclass_of(Optimizer),
    "memory": _subclass_of(Memory),
}


def known_types_of(kind: str) -> list[str]:
    """Registered component types of a kind (``"layer"``, ``"preprocessor"``, ...)."""
    return sorted(name for name, cls in registered().items() if KINDS[kind](cls))


@functools.cache
def constructor_arguments(cls: type) -> tuple[set[str], set[str]]:
    """``(accepted, required)`` keyword arguments of ``cls(...)``: its ``__init__``'s and, while they pass
    ``**kwargs`` on, its bases' (down to :class:`Component`, which takes ``name`` and ``device``). Only the first
    ``__init__``'s own parameters can be required: a base's required ones may be filled by the subclass (``divide``
    gives ``multiply`` its ``factor``)."""
    accepted: set[str] = set()
    required: set[str] | None = None
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        parameters = list(inspect.signature(init).parameters.values())[1:]
        named = [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        accepted |= {p.name for p in named}
        if required is None:
            required = {p.name for p in named if p.default is p.empty}
        if klass is Component or not any(p.kind is p.VAR_KEYWORD for p in parameters):
            break
    return accepted, required or set()


def _check_component(validator: Validator, options: ComponentOptions, instance: object,
                     schema: Mapping[str, object]) -> Iterator[ValidationError]:
    """The ``component`` schema keyword: a known type of the right kind, and only arguments that type takes."""
    from jsonschema.exceptions import ValidationError

    def error(message: str, key: str, expected: object, got: object) -> ValidationError:
        found = ValidationError(message, path=[key])
        found.rlw_expected, found.rlw_got = expected, got
        return found

    if not isinstance(instance, dict) or "type" not in instance:
        return  # the "type": "object" and "required" keywords report these
    kind = options.get("kind")
    known = options.get("types") or known_types_of(kind)
    type_name = instance["type"]
    if not isinstance(type_name, str) or type_name not in known:
        yield error(f"unknown {(kind or 'component').replace('_', ' ')} type", "type", known, type_name)
        return
    accepted, required = constructor_arguments(registered()[type_name])
    reserved = set(options["reserved"])
    allowed = sorted((accepted - reserved) | set(options["extra"]) | {"type"})
    unknown = [key for key in instance if key not in allowed]
    for key in unknown:
        yield error(f"'{type_name}' takes no argument {key!r}", key, allowed, key)
    if unknown:
        return  # a misspelt argument is the news, not the missing one it was meant to be
    for key in sorted(required - reserved - set(instance)):
        yield error(f"'{type_name}' needs the argument {key!r}", key, "a value", "nothing")
    arguments = argument_schemas(registered()[type_name])
    for key in sorted(instance):
        if key in arguments:
            yield from validator.descend(instance[key], arguments[key], path=key)


ACTIVATIONS = ("linear", "relu", "tanh", "sigmoid", "elu", "selu", "leaky_relu", "softplus", "swish")
"""Activation names every backend's ops know (``tests/test_catalogue.py`` holds them to both backends)."""
SIZE: dict[str, object] = {"minimum": 1, "maximum": 1 << 16}
ARGUMENT_RULES: dict[str, dict[str, object]] = {
    # by argument name, over what its annotation says: sane ranges for sizes, the names of activations
    "units": SIZE, "filters": SIZE, "advantage_units": {"items": SIZE}, "value_units": {"items": SIZE},
    "capacity": {"minimum": 1, "maximum": (1 << 31) - 1}, "num_shards": {"minimum": 1, "maximum": 1024},
    "n_step": {"minimum": 1, "maximum": 1000}, "num_frames": {"minimum": 1, "maximum": 1024},
    "kernel_size": {"minimum": 1, "maximum": 1024, "items": {"minimum": 1, "maximum": 1024}},
    "pool_size": {"minimum": 1, "maximum": 1024, "items": {"minimum": 1, "maximum": 1024}},
    "strides": {"minimum": 1, "maximum": 1024, "items": {"minimum": 1, "maximum": 1024}},
    "height": {"minimum": 1, "maximum": 1 << 14}, "width": {"minimum": 1, "maximum": 1 << 14},
    "activation": {"enum": [*ACTIVATIONS, None]}, "value_activation": {"enum": list(ACTIVATIONS)},
    "padding": {"enum": ["valid", "same"]}, "learning_rate": {"exclusiveMinimum": 0},
    "discount": {"minimum": 0, "maximum": 1},
}


@functools.cache
def argument_schemas(cls: type) -> dict[str, dict[str, object]]:
    """JSON schemas of ``cls``'s constructor arguments, derived once from their annotations (``int``,
    ``float``, ``bool``, ``str``, ``Literal``, optional and sequence forms; anything else is left free) and
    :data:`ARGUMENT_RULES` — so every registered component's spec is checked by type and range for free."""
    schemas: dict[str, dict[str, object]] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            hints = typing.get_type_hints(init)
        except Exception:  # an annotation that does not resolve: its arguments stay unchecked
            hints = {}
        for name, hint in hints.items():
            schema = _schema_of(hint)
            if name not in schemas and name != "return" and schema is not None:
                schemas[name] = {**schema, **ARGUMENT_RULES.get(name, {})}
        if klass is Component or "kwargs" not in inspect.signature(init).parameters:
            break
    return schemas


def _schema_of(hint: object) -> dict[str, object] | None:
    """A JSON schema for a type annotation, or None where it says nothing checkable."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint is str:
        return {"type": "string", "minLength": 1}
    if hint is type(None):
        return {"type": "null"}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        parts = [_schema_of(arg) for arg in args]
        return None if any(part is None for part in parts) else {"anyOf": parts}
    if origin in (list, tuple, collections.abc.Sequence) and args:
        items = _schema_of(args[0])
        return None if items is None else {"type": "array", "items": items}
    return None


# ----- validating ---------------------------------------------------------------------------------------------
def validate_config(config: Mapping[str, object], schema: Mapping[str, object],
                    defaults: Mapping[str, object] | None = None) -> dict[str, Any]:
    """``config`` merged over ``defaults`` and validated against ``schema``; the merged dict, or a ConfigError
    naming the JSON path of the most relevant problem and what is allowed there."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import best_match

    check_plain_json(config)
    merged = merge_defaults(defaults or {}, config)
    cached = _VALIDATORS.get(id(schema))
    if cached is None or cached[0] is not schema:  # one validator per schema object (building one takes ms)
        validator_class = validators.extend(Draft202012Validator, {COMPONENT_KEYWORD: _check_component})
        cached = _VALIDATORS[id(schema)] = (schema, validator_class(dict(schema)))
    error = best_match(cached[1].iter_errors(merged))
    if error is not None:
        raise _config_error(error)
    return merged


_VALIDATORS: dict[int, tuple[Mapping[str, object], Validator]] = {}
"""id(schema) -> (the schema, kept alive; its validator)."""


def _config_error(error: ValidationError) -> ConfigError:
    """A jsonschema ValidationError as a ConfigError: JSON path, message, expected and got."""
    path = [str(part) for part in error.absolute_path]
    keyword, value, instance = error.validator, error.validator_value, error.instance
    expected: object = getattr(error, "rlw_expected", None)
    got: object = getattr(error, "rlw_got", instance)
    message = error.message
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(key for key in instance if key not in allowed)
        path, message, expected, got = path + unknown[:1], f"unknown key {unknown[0]!r}", allowed, unknown[0]
    elif keyword == "required" and isinstance(instance, dict):
        missing = [key for key in value if key not in instance]
        path, message, expected, got = path + missing[:1], f"missing key {missing[0]!r}", "a value", "nothing"
    elif keyword in ("enum", "const"):
        message, expected = "value not allowed", value if keyword == "enum" else [value]
    elif keyword == "type":
        message, expected, got = "wrong type", value, f"{instance!r} ({_json_type(instance)})"
    elif keyword in _BOUNDS:
        message, expected = "value out of range", f"{_BOUNDS[keyword]} {value}"
    elif keyword in ("minItems", "maxItems"):
        message, expected, got = "wrong number of items", f"{_BOUNDS[keyword[:3] + 'imum']} {value} items", \
            f"{len(instance)} items"
    return ConfigError(message, key_path="/".join(path) or None, expected=expected, got=got)


_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _json_type(value: object) -> str:
    for name, kinds in (("boolean", bool), ("integer", int), ("number", float), ("string", str), ("array", list),
                        ("object", dict)):
        if isinstance(value, kinds):
            return name
    return "null" if value is None else type(value).__name__


@contextlib.contextmanager
def config_section(path: str) -> Iterator[None]:
    """Errors raised while components are made from the config section at ``path`` name that JSON path."""
    try:
        yield
    except RLWorkbenchError as error:
        inner = error.key_path or error.argument
        # an argument named like the section (a component's ``epsilon`` from ``exploration/epsilon``) is the section
        named_inside = inner and not str(inner).startswith(path) and inner != path.rsplit("/", 1)[-1]
        error.key_path = f"{path}/{inner}" if named_inside else path
        raise
    except (TypeError, ValueError) as error:  # a value of the right JSON type that a component still rejects
        raise ConfigError(f"bad value: {type(error).__name__}: {error}", key_path=path) from error


# ----- schema pieces shared by the agents' schemas ------------------------------------------------------------
def section(properties: dict[str, object]) -> dict[str, object]:
    """A config section: an object with exactly these keys (all required once defaults are merged)."""
    return {"type": "object", "additionalProperties": False, "required": sorted(properties),
            "properties": properties}


POSITIVE_INT: dict[str, object] = {"type": "integer", "minimum": 1, "maximum": (1 << 31) - 1}  # counts, sizes: int32
UNITS: dict[str, object] = {"type": "array", "items": POSITIVE_INT}
PROBABILITY: dict[str, object] = {"type": "number", "minimum": 0, "maximum": 1}
OPTIMIZER: dict[str, object] = component_spec(
    "optimizer", reserved=("variables_of", "name", "device"),
    properties={"learning_rate": {"type": "number", "exclusiveMinimum": 0},
                "clip_grad_norm": {"type": ["number", "null"], "exclusiveMinimum": 0},
                "clip_grad_value": {"type": ["number", "null"], "exclusiveMinimum": 0}})
"""An optimizer spec for an agent's model (the agent sets ``variables_of``)."""
OFF_POLICY_UPDATE: dict[str, object] = section({
    "batch_size": POSITIVE_INT,
    "learning_starts": {"type": "integer", "minimum": 0},
    "update_interval": POSITIVE_INT,
    "gradient_steps": POSITIVE_INT,
})
"""The ``update`` section of replay-based agents: batch size, warm-up, and how often and how much to learn."""
RAY_SETTINGS: dict[str, object] = {
    "workers": POSITIVE_INT, "envs_per_worker": POSITIVE_INT, "fragment_length": POSITIVE_INT,
    "shards": POSITIVE_INT, "replay_in_flight": POSITIVE_INT, "broadcast_every": POSITIVE_INT,
    "weight_sync_steps": POSITIVE_INT, "queue_size": POSITIVE_INT, "max_restarts": {"type": "integer", "minimum": 0},
    "spare_samplers": {"type": "integer", "minimum": 0}, "hung_after": {"type": "number", "exclusiveMinimum": 0},
    "max_updates_owed": {"type": ["integer", "null"], "minimum": 1},
    "replay_capacity": {"type": ["integer", "null"], "minimum": 1},
    "sampler_cpus": {"type": "number", "minimum": 0, "maximum": 1024},
    "num_cpus": {"type": ["integer", "null"], "minimum": 1}, "address": {"type": ["string", "null"], "minLength": 1},
    "plan": {"type": ["string", "null"], "minLength": 1}, "passes": POSITIVE_INT,
    "replay_ratio": {"type": "number", "exclusiveMinimum": 0},
    "learners": POSITIVE_INT, "learner_cpus": {"type": "number", "exclusiveMinimum": 0, "maximum": 1024},
    "devices_per_learner": {"type": ["array", "null"], "minItems": 1, "items": {"type": "string", "minLength": 1}},
    "learner_placement": {"enum": ["pack", "spread", "strict_spread", "strict_pack"]},
    "learner_timeout": {"type": "number", "exclusiveMinimum": 0}, "learner_checkpoint_every": POSITIVE_INT,
    "save_replay": {"type": "boolean"},
}
"""Settings of a run on Ray (see :mod:`rlworkbench.execution.ray.settings` for their meaning and defaults)."""

EXECUTION: dict[str, object] = {
    "type": "object", "additionalProperties": False,
    "properties": {"devices": {"anyOf": [{"type": "null"}, POSITIVE_INT, {
        "type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}]},
        "ray": {"type": "object", "additionalProperties": False, "properties": RAY_SETTINGS},
        **{name: {"enum": list(choices)} for name, choices in INPUT_CHOICES.items()}},
}
"""The optional ``execution`` section: ``devices`` — towers for the update (a list of devices, or N for the first N
GPUs; see :meth:`Agent.build`); ``ray`` — how a run on Ray is laid out (workers, shards, sync intervals …);
``on_bad`` — what ``observe`` does with bad rows (``raise``, ``skip``); ``out_of_bounds`` — what PPO's and IMPALA's
``update(batch)`` do with float actions outside their policy's bounds (``refuse``, ``clip``)."""


def with_execution(schema: dict[str, object]) -> dict[str, object]:
    """An agent's schema with the optional ``execution`` section (not required, no defaults)."""
    cast("dict[str, object]", schema["properties"])["execution"] = EXECUTION  # a section(...)'s properties
    return schema


TARGET_SYNC: dict[str, object] = section({
    "sync_interval": POSITIVE_INT,
    "tau": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
})
"""The ``target`` section: sync every ``sync_interval`` updates with Polyak ``tau`` (1 is a hard copy)."""
