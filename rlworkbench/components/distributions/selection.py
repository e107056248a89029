"""Which distribution an action leaf gets: a default per kind of space, or one named by a spec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlworkbench.components.distributions.bernoulli import Bernoulli
from rlworkbench.components.distributions.categorical import Categorical
from rlworkbench.components.distributions.distribution import Distribution
from rlworkbench.components.distributions.normal import Normal
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Space, as_space

DEFAULTS: dict[type[Space], type[Distribution]] = {IntBox: Categorical, BoolBox: Bernoulli, FloatBox: Normal}


def _distribution_types() -> dict[str, type[Distribution]]:
    found: dict[str, type[Distribution]] = {}
    queue: list[type[Distribution]] = [Distribution]
    while queue:
        cls = queue.pop()
        queue.extend(cls.__subclasses__())
        if "type_name" in vars(cls):
            found[cls.type_name] = cls  # type: ignore[attr-defined]
    return found


def distribution_for(space: Space, spec: str | Mapping[str, Any] | Distribution | None = None,
                     name: str = "distribution", key_path: str | None = None) -> Distribution:
    """The distribution for the action leaf ``space``, configured from it (categories, bounds).

    ``spec``: ``None`` (IntBox → categorical, BoolBox → bernoulli, FloatBox → normal), a registered type name
    (``"squashed_normal"``), a spec dict (``{"type": "beta", ...}``) or a Distribution component.
    """
    if isinstance(spec, Distribution):
        return spec
    space = as_space(space, "space", component=name, key_path=key_path)
    if spec is None:
        default = next((d for kind, d in DEFAULTS.items() if isinstance(space, kind)), None)
        if default is None:
            raise ConfigError("no distribution for this kind of action", key_path=key_path,
                              expected="IntBox, BoolBox or FloatBox leaves", got=space)
        return default.for_space(space, name=name)
    options = dict(spec) if isinstance(spec, Mapping) else {"type": spec}
    known = _distribution_types()
    type_name = options.pop("type", None)
    if type_name not in known:
        raise ConfigError("unknown distribution type", key_path=key_path, expected=sorted(known), got=type_name)
    try:
        return known[type_name].for_space(space, **{"name": name, **options})
    except ConfigError as error:
        raise error.add_context(key_path=key_path) from None
