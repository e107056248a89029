"""A sweep's space: config **key paths** mapped to Ray Tune distributions, checked against the agent's schema.

``{"optimizer/learning_rate": tune.loguniform(1e-4, 1e-2), "policy/network/0/units": tune.choice([64, 128]),
"target/sync_interval": tune.grid_search([100, 500])}`` — a path walks the agent config (the shipped defaults
merged in) by keys and list indices. :func:`check_space` validates, before anything starts, every path and every
value each distribution can produce (its bounds; each category or grid value) against the agent type's JSON
schema: a bad path or range is a ConfigError naming the path. ``sample_from`` functions cannot be checked ahead
and are refused. :func:`tune_space` nests the paths for Tune (``{"optimizer": {"learning_rate": …}}``, list indices
as string keys), :func:`params_of` reads a trial's values back by path and :func:`with_params` writes them into
the config.
"""

from __future__ import annotations

import copy
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard, cast

import numpy as np

from rlworkbench.agents.config import load_config, validate_config
from rlworkbench.errors import ConfigError


def split_path(path: object) -> list[str]:
    """``"policy/network/0/units"`` → its keys; a ConfigError for anything else than a non-empty ``a/b/c`` str."""
    if not isinstance(path, str) or not path or any(not part for part in path.split("/")):
        raise ConfigError("a sweep key is a config key path", argument="space", key_path=str(path),
                          expected="'section/key' (list items by index: 'policy/network/0/units')", got=repr(path))
    return path.split("/")


def agent_schema(config: Mapping[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """The agent type's (schema, defaults) for ``config``; a ConfigError if its ``type`` is unknown."""
    import rlworkbench.agents  # noqa: F401  (registers the agent types)
    from rlworkbench.agents.registry import agent_class

    cls = agent_class(config.get("type"))
    return cls.schema, cls.defaults


def full_config(prototype_config: Mapping[str, object]) -> dict[str, object]:
    """The prototype's config with its type's defaults merged in, validated (paths walk this)."""
    config = load_config(dict(prototype_config))
    schema, defaults = agent_schema(config)
    return validate_config(config, schema, defaults)


def with_params(config: Mapping[str, object], params: Mapping[str, object]) -> dict[str, object]:
    """A copy of ``config`` with each ``path: value`` of ``params`` set (missing dict keys are made; list items
    must exist)."""
    result = copy.deepcopy(dict(config))
    for path, value in params.items():
        keys = split_path(path)
        node: object = result
        for depth, key in enumerate(keys[:-1]):
            node = _child(node, key, path, keys[:depth + 1], make=True)
        _assign(node, keys[-1], copy.deepcopy(value), path)
    return result


def _child(node: object, key: str, path: str, walked: list[str], make: bool) -> object:
    if isinstance(node, dict):
        if key not in node and make:
            node[key] = {}
        if key in node:
            return node[key]
    elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
        return node[int(key)]
    raise ConfigError(f"no such key path in the config: '{'/'.join(walked)}' is not there", argument="space",
                      key_path=path, expected=_what_is_there(node), got="/".join(walked))


def _assign(node: object, key: str, value: object, path: str) -> None:
    if isinstance(node, dict):
        node[key] = value
    elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
        node[int(key)] = value
    else:
        raise ConfigError(f"no such key path in the config: '{path}' is not there", argument="space",
                          key_path=path, expected=_what_is_there(node), got=path)


def _what_is_there(node: object) -> str:
    if isinstance(node, dict):
        return f"one of the keys {sorted(node)}" if node else "no keys here"
    if isinstance(node, list):
        return f"an index 0..{len(node) - 1}" if node else "an empty list"
    return f"nothing below a value of type {type(node).__name__}"


# ----- checking --------------------------------------------------------------------------------------------------
def check_space(config: Mapping[str, object], space: Mapping[str, object]) -> dict[str, object]:
    """Checks ``space`` against ``config``'s agent schema (see the module docstring); returns the full config."""
    if not isinstance(space, Mapping):
        raise ConfigError("a sweep space maps config key paths to distributions", argument="space",
                          expected="{'optimizer/learning_rate': tune.loguniform(1e-4, 1e-2), ...}",
                          got=type(space).__name__)
    base = full_config(config)
    schema, defaults = agent_schema(base)
    for path, distribution in space.items():
        split_path(path)
        for value in produced_values(distribution, path):
            candidate = with_params(base, {path: value})
            try:
                validate_config(candidate, schema, defaults)
            except ConfigError as error:
                raise ConfigError(f"the sweep space's {describe(distribution)} can produce {value!r}, which the "
                                  f"agent's schema refuses ({error.message})", argument="space",
                                  key_path=error.key_path or path, expected=error.expected, got=error.got) from None
    return base


def produced_values(distribution: object, path: str) -> list[object]:
    """The values to validate for one entry of a space: every category or grid value, a range's extremes (the
    largest value it really produces: Tune's samplers exclude most upper bounds), or the constant itself."""
    from ray.tune.search.sample import Categorical, Domain, Float, Function, Integer, Quantized

    if is_grid(distribution):
        values = distribution["grid_search"]
        if not isinstance(values, list) or not values:
            raise ConfigError("grid_search needs a non-empty list", argument="space", key_path=path,
                              expected="tune.grid_search([v1, v2, ...])", got=repr(values))
        return list(values)
    if not isinstance(distribution, Domain):
        return [distribution]  # a constant: every trial gets it
    if isinstance(distribution, Function):
        raise ConfigError("sample_from functions cannot be checked before the sweep starts", argument="space",
                          key_path=path, expected="tune.choice, grid_search, uniform, loguniform, randint, ... "
                          "(or a constant)", got="tune.sample_from(...)")
    if isinstance(distribution, Categorical):
        if not distribution.categories:
            raise ConfigError("a choice needs values", argument="space", key_path=path,
                              expected="tune.choice([v1, v2, ...])", got="tune.choice([])")
        return list(distribution.categories)
    sampler = distribution.get_sampler()
    q = sampler.q if isinstance(sampler, Quantized) else None
    lower, upper = float(distribution.lower), float(distribution.upper)
    if not lower < upper:
        raise ConfigError("a range's low must lie below its high", argument="space", key_path=path,
                          expected="low < high", got=describe(distribution))
    if isinstance(distribution, Integer):
        if q is None:
            return [int(lower), int(upper) - 1]
        top = math.floor(upper / q) - (1 if q == 1 else 0)
        return [int(math.ceil(lower / q) * q), int(top * q)]
    if isinstance(distribution, Float):
        if not (math.isfinite(lower) and math.isfinite(upper)):  # a normal distribution: any float at all
            return [-sys.float_info.max, sys.float_info.max]
        if q is None:
            return [lower, float(np.nextafter(upper, -math.inf))]
        return [math.ceil(lower / q) * q, math.floor(upper / q) * q]
    raise ConfigError("unknown kind of distribution", argument="space", key_path=path,
                      expected="a ray.tune distribution", got=type(distribution).__name__)


def is_grid(distribution: object) -> TypeGuard[Mapping[str, Sequence[object]]]:
    """Whether a space entry is ``tune.grid_search([...])`` (``{"grid_search": values}``; the values are checked
    where they are read)."""
    return isinstance(distribution, Mapping) and set(distribution) == {"grid_search"}


def describe(distribution: object) -> str:
    """A short name of a space entry for messages and tables: ``loguniform(0.0001, 0.01)``, ``grid [1, 2]``."""
    from ray.tune.search.sample import Categorical, Domain

    if is_grid(distribution):
        return f"grid {distribution['grid_search']}"
    if isinstance(distribution, Categorical):
        return f"choice {list(distribution.categories)}"
    if isinstance(distribution, Domain):
        sampler = distribution.get_sampler()
        name = type(getattr(sampler, "sampler", sampler)).__name__.lower().lstrip("_")
        q = f", q={sampler.q}" if hasattr(sampler, "q") else ""
        return f"{type(distribution).__name__.lower()} {name}({distribution.lower}, {distribution.upper}{q})"
    return f"constant {distribution!r}"


# ----- to and from Tune -------------------------------------------------------------------------------------------
def tune_space(space: Mapping[str, object]) -> dict[str, object]:
    """The space nested by path for Tune's ``param_space`` (``{"optimizer": {"learning_rate": …}}``)."""
    keys = {path: tuple(split_path(path)) for path in space}
    for path, parts in keys.items():
        inner = next((other for other, more in keys.items() if other != path and more[:len(parts)] == parts), None)
        if inner is not None:
            raise ConfigError("a sweep key lies inside another one", argument="space", key_path=inner,
                              expected="paths where none is a prefix of another", got=f"{path} and {inner}")
    nested: dict[str, object] = {}
    for path, distribution in space.items():
        node = nested
        for key in keys[path][:-1]:
            node = node.setdefault(key, {})
        node[keys[path][-1]] = distribution
    return nested


def params_of(trial_config: Mapping[str, object], paths: list[str]) -> dict[str, object]:
    """A trial's value of each path, read from the nested config Tune gives it."""
    params = {}
    for path in paths:
        node: object = trial_config
        for key in split_path(path):
            node = cast("Mapping[str, object]", node)[key]
        params[path] = _plain(node)
    return params


def _plain(value: object) -> object:
    """NumPy scalars as Python numbers (a config is plain JSON)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


# ----- as JSON (a sweep shipped to a cluster job) ------------------------------------------------------------------
def encode_space(space: Mapping[str, object]) -> dict[str, object]:
    """The space as plain JSON: each entry a ``{"kind": ...}`` description :func:`decode_space` turns back."""
    from ray.tune.search.sample import Categorical, Domain, Float, Function, Quantized

    encoded: dict[str, object] = {}
    for path, distribution in space.items():
        if is_grid(distribution):
            encoded[path] = {"kind": "grid", "values": list(distribution["grid_search"])}
        elif isinstance(distribution, Categorical):
            encoded[path] = {"kind": "choice", "values": list(distribution.categories)}
        elif isinstance(distribution, Domain) and not isinstance(distribution, Function):
            sampler = distribution.get_sampler()
            q = sampler.q if isinstance(sampler, Quantized) else None
            base = sampler.sampler if isinstance(sampler, Quantized) else sampler
            name = type(base).__name__.lower().lstrip("_")
            entry = {"kind": "float" if isinstance(distribution, Float) else "integer", "sampler": name,
                     "lower": _plain(distribution.lower), "upper": _plain(distribution.upper), "q": q}
            if name == "normal":
                entry.update(mean=base.mean, sd=base.sd)
            encoded[path] = entry
        elif isinstance(distribution, Domain):
            raise ConfigError("sample_from functions cannot travel to a cluster", argument="space", key_path=path,
                              expected="choice, grid_search, uniform, loguniform, randint, ...",
                              got="tune.sample_from(...)")
        else:
            encoded[path] = {"kind": "constant", "value": distribution}
    return encoded


def decode_space(encoded: Mapping[str, object]) -> dict[str, object]:
    """The Tune space that :func:`encode_space` described."""
    from ray import tune
    from ray.tune.search.sample import Float, Integer

    space: dict[str, object] = {}
    for path, entry in encoded.items():
        kind = entry["kind"]
        if kind == "grid":
            space[path] = tune.grid_search(list(entry["values"]))
        elif kind == "choice":
            space[path] = tune.choice(list(entry["values"]))
        elif kind == "constant":
            space[path] = entry["value"]
        else:
            domain: Any = (Float if kind == "float" else Integer)(entry["lower"], entry["upper"])
            domain = {"uniform": domain.uniform, "loguniform": domain.loguniform,
                      "normal": lambda d=domain, e=entry: d.normal(e["mean"], e["sd"])}[entry["sampler"]]()
            space[path] = domain.quantized(entry["q"]) if entry.get("q") is not None else domain
    return space
