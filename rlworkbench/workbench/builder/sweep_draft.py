"""``SweepDraft``: the sweep a builder's *sweep* tab is composing — ticked fields of the current config with their
distributions, the sweep's settings — as a Tune ``space``, as Python code, checked, and launched with
:func:`~rlworkbench.workbench.experiments.sweep`. No widgets here (the tab, :mod:`.sweep_tab`, is a view of it).

Every change is checked at once, field by field, with
:func:`~rlworkbench.workbench.experiments.search_space.check_space` against the agent's schema (after the draft's
own checks: a range needs ``low < high``, a log range ``low > 0``, a choice values): :attr:`SweepDraft.errors` holds a
ConfigError per ticked path, and :meth:`SweepDraft.launch` refuses while there is one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.builder.sweep_fields import RANGES, SweepEntry, SweepField, sweep_fields

SETTINGS = {"seeds": 3, "trials": 8, "scheduler": None, "search": None, "budget": 10_000, "target": "local",
            "env": None}
"""The settings the tab edits (:func:`sweep`'s own defaults); others go to :meth:`SweepDraft.launch` as keywords."""
_DEFAULTS_LEFT_OUT = ("scheduler", "search", "target")  #: left out of the code at sweep's own default
_LINE = 120
_IMPORTS = "from ray import tune\n\nfrom rlworkbench.workbench.experiments import sweep\n\n"


class SweepDraft:
    """Ticked fields of ``config`` (walked beside its form ``schema``) and the sweep's settings."""

    def __init__(self, schema: Mapping[str, object], config: Mapping[str, object] | None, env: str | None = None):
        self.schema = schema
        self.entries: dict[str, SweepEntry] = {}  #: ticked path → how it is swept, in ticking order
        self.settings: dict[str, Any] = {**SETTINGS, "env": env}
        self.errors: dict[str, ConfigError] = {}  #: ticked path → what is wrong there
        self.config: Mapping[str, Any] | None = None
        self.fields: list[SweepField] = []  #: the sweepable leaves of the current config
        self.use_config(config)

    # ----- changes --------------------------------------------------------------------------------------------
    def use_config(self, config: Mapping[str, object] | None) -> None:
        """Follows a new current config: its fields, and the ticked ones checked again (a ticked path the new
        config lacks stays, with its error)."""
        self.config = config
        self.fields = sweep_fields(config, self.schema) if config is not None else []
        self.check()

    def field(self, path: str) -> SweepField:
        """The sweepable field at ``path``; a ConfigError naming what is sweepable when there is none."""
        found = next((f for f in self.fields if f.path == path), None)
        if found is None:
            raise ConfigError("no sweepable field at this path of the current config", argument="path",
                              key_path=path, expected=[f.path for f in self.fields], got=path)
        return found

    def tick(self, path: str, distribution: str | None = None, **given: object) -> SweepEntry:
        """Sweeps the field at ``path``: its entry so far (or the field's default one) with ``distribution`` and
        any of ``low``, ``high``, ``values`` given (values: a list, or text such as ``"32, 64"``)."""
        unknown = sorted(set(given) - {"low", "high", "values"})
        if unknown:
            raise ConfigError("unknown entry settings", argument=", ".join(unknown),
                              expected=["low", "high", "values"], got=unknown)
        current = next((f for f in self.fields if f.path == path), None)
        entry = self.entries.get(path) or self.field(path).default_entry()
        if distribution is not None:
            known = current.distributions if current is not None else (*RANGES, "choice", "grid_search")
            if distribution not in known:
                raise ConfigError("this distribution does not fit the field", argument="distribution",
                                  key_path=path, expected=list(known), got=distribution)
            entry.distribution = distribution
        for key, value in given.items():
            setattr(entry, key, value)
        self.entries[path] = entry
        self.check()
        return entry

    def untick(self, path: str) -> None:
        """Stops sweeping ``path`` (nothing happens when it is not ticked)."""
        self.entries.pop(path, None)
        self.check()

    def check(self) -> dict[str, ConfigError]:
        """Checks every ticked entry against the current config's schema; returns (and keeps) the errors."""
        from rlworkbench.workbench.experiments.search_space import check_space

        errors: dict[str, ConfigError] = {}
        for path, entry in self.entries.items():
            try:
                if self.config is None:
                    raise ConfigError("no config has built yet", argument="space", key_path=path,
                                      expected="a config that builds", got=None)
                check_space(self.config, {path: domain(entry, path)})
            except ConfigError as error:
                errors[path] = error
        self.errors = errors
        return errors

    def note(self, error: ConfigError) -> bool:
        """Keeps ``error`` (from a launch) at the ticked path it names; whether it names one."""
        if error.key_path in self.entries:
            self.errors[error.key_path] = error
            return True
        return False

    # ----- results --------------------------------------------------------------------------------------------
    def space(self) -> dict[str, object]:
        """The Tune space (path → distribution); the first error when there is one."""
        if self.errors:
            raise next(iter(self.errors.values()))
        return {path: domain(entry, path) for path, entry in self.entries.items()}

    def space_code(self) -> str:
        """The space as Python code: ``space = {"optimizer/learning_rate": tune.loguniform(0.0001, 0.01), …}``."""
        if not self.entries:
            return "space = {}"
        lines = [f"    {json.dumps(path)}: {entry_code(entry)}," for path, entry in self.entries.items()]
        return "space = {\n" + "\n".join(lines) + "\n}"

    def code(self, config_code: str = "", **extra: object) -> str:
        """The imports, :meth:`space_code`, ``config_code`` (which sets ``config``) and the ``sweep(config, ...)``
        call with the settings (those at sweep's default left out) and ``extra`` keywords: the space first, where
        a reader looks."""
        settings = {key: value for key, value in {**self.settings, **extra}.items()
                    if not (key in _DEFAULTS_LEFT_OUT and value == SETTINGS[key])}
        arguments = ["config", "space=space", *(f"{key}={_literal(value)}" for key, value in settings.items())]
        body = [self.space_code(), config_code, _call("experiment = sweep(", arguments), "experiment"]
        return _IMPORTS + "\n".join(part for part in body if part)

    def launch(self, config: Mapping[str, object], **settings: object) -> object:
        """Starts :func:`sweep` on ``config`` with the space and the settings (``settings`` over the draft's);
        refuses while a ticked field has an error. Returns the Experiment."""
        from rlworkbench.workbench.experiments import sweep

        space = self.space()
        try:
            return sweep(copy.deepcopy(dict(config)), space=space, **{**self.settings, **settings})
        except ConfigError as error:
            self.note(error)
            raise


# ----- an entry as Tune's object and as code ------------------------------------------------------------------------
def domain(entry: SweepEntry, path: str) -> object:
    """The Tune distribution of ``entry``; a ConfigError at ``path`` for a range or a values list that is no use."""
    from ray import tune

    if entry.distribution in RANGES:
        low, high = _range(entry, path)
        return getattr(tune, entry.distribution)(low, high)
    values = values_of(entry.values, path)
    if not values:
        raise ConfigError(f"{entry.distribution} needs values", argument="space", key_path=path,
                          expected="one value or more", got=values)
    return tune.grid_search(values) if entry.distribution == "grid_search" else tune.choice(values)


def _range(entry: SweepEntry, path: str) -> tuple[object, object]:
    low, high, name = entry.low, entry.high, entry.distribution
    integers = name in ("randint", "lograndint")
    number = int if integers else (int, float)
    if any(isinstance(x, bool) or not isinstance(x, number) for x in (low, high)):
        raise ConfigError(f"{name} needs a low and a high", argument="space", key_path=path,
                          expected="integers" if integers else "numbers", got=(low, high))
    if not low < high:
        raise ConfigError(f"{name} needs low below high", argument="space", key_path=path,
                          expected=f"low < high{' (high is excluded)' if integers else ''}", got=(low, high))
    if name.startswith("log") and low <= 0:
        raise ConfigError(f"{name} needs a positive low", argument="space", key_path=path, expected="low > 0",
                          got=low)
    return low, high


def values_of(values: list[object] | str, path: str) -> list[object]:
    """A values list, or text of JSON values separated by commas (``0.001, 0.01`` or ``"relu", "tanh"``) read."""
    if not isinstance(values, str):
        return list(values)
    try:
        read = json.loads(f"[{values}]")
    except json.JSONDecodeError as error:
        raise ConfigError(f"values are JSON values separated by commas ({error.msg})", argument="space",
                          key_path=path, expected='e.g. 0.001, 0.01 or "relu", "tanh"', got=values) from None
    return read


def entry_code(entry: SweepEntry) -> str:
    """``tune.loguniform(0.0001, 0.01)``, ``tune.choice([False, True])`` …"""
    if entry.distribution in RANGES:
        return f"tune.{entry.distribution}({_literal(entry.low)}, {_literal(entry.high)})"
    try:
        values = _literal(values_of(entry.values, ""))
    except ConfigError:  # (shown as an error at its field): the text as it is
        values = f"[{entry.values}]"
    return f"tune.{entry.distribution}({values})"


def _literal(value: object) -> str:
    """Python source of a JSON-like value (strings in double quotes, ``True``, ``None``)."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    return repr(value)


def _call(head: str, arguments: list[str]) -> str:
    """``head`` + the arguments + ``)``, broken into lines of at most :data:`_LINE` characters."""
    lines, line = [], head
    for index, argument in enumerate(arguments):
        text = argument + (")" if index == len(arguments) - 1 else ",")
        if line != head and not line.endswith(" ") and len(line) + 1 + len(text) > _LINE:
            lines.append(line)
            line = " " * len(head)
        line += ("" if line.endswith(("(", " ")) else " ") + text
    return "\n".join([*lines, line])
