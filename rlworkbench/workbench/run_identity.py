"""What tells one run from another on a card or a live view: its config's label, a short run id and where it came
from (the notebook or script that started it).

:func:`config_label` names a config as a person would: a config file's stem or a shipped config's name as given,
the shipped config's name for an agent or dict that *is* one (after defaults), else the config's own ``name`` or
its type with a short digest of the config (``dqn #3fa2c1``) — two different configs never read alike.
:func:`run_source` is the notebook the kernel serves (Jupyter tells a kernel through ``JPY_SESSION_NAME``, which
IPython keeps as ``__session__``) or the script a plain Python process runs (``sys.argv[0]``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

SHORT_ID = 6  #: hex digits of a run id a person sees
SESSION_ENV = "JPY_SESSION_NAME"


def short_id(run_id: str) -> str:
    return run_id[:SHORT_ID]


def config_digest(config: Mapping[str, object]) -> str:
    """Six hex digits that differ between different configs (and agree for equal ones)."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:SHORT_ID]


def config_label(name: str, config: Mapping[str, object], named: bool) -> str:
    """The label of a run's config. ``named``: ``name`` came from a file or a shipped config's name (kept as it
    is); otherwise the shipped config ``config`` equals (defaults merged) names it, else ``name #digest``."""
    if named or not config:
        return name
    merged = _with_defaults(config)
    shipped = _shipped_by_content().get(config_digest(merged)) if merged is not None else None
    return shipped or f"{name} #{config_digest(merged if merged is not None else config)}"


def _with_defaults(config: Mapping[str, object]) -> dict[str, object] | None:
    """``config`` over its agent type's defaults (what an agent's ``config`` holds); None for an unknown type."""
    from rlworkbench.agents.config import merge_defaults
    from rlworkbench.agents.registry import agent_class
    from rlworkbench.errors import ConfigError

    try:
        defaults = agent_class(config.get("type")).defaults
    except ConfigError:
        return None
    merged = merge_defaults(defaults, config)
    merged.pop("execution", None)  # where it runs is no part of what it is
    return merged


@functools.cache
def _shipped_by_content() -> dict[str, str]:
    """Digest of each shipped config (defaults merged) → its name."""
    from rlworkbench.agents.config import builtin_config, builtin_configs

    table: dict[str, str] = {}
    for name in builtin_configs():
        merged = _with_defaults(builtin_config(name))
        if merged is not None:
            table.setdefault(config_digest(merged), name)
    return table


def run_source() -> str | None:
    """The notebook (absolute path where Jupyter gives one, else as the server names it) or script (absolute)
    this process runs; None when neither is known (an interactive interpreter)."""
    session = os.environ.get(SESSION_ENV) or _ipython_session()
    if session:
        return session
    script = sys.argv[0] if sys.argv else ""
    if script and script != "-c" and Path(script).is_file() and "ipykernel" not in Path(script).name:
        return str(Path(script).absolute())
    return None


def _ipython_session() -> str | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    value = shell.user_ns.get("__session__") if shell is not None else None
    return value if isinstance(value, str) and value else None
