"""Where the builder's export goes: a default file name that is never a shipped config's, and the check that
refuses to write over one (``rlworkbench/agents/configs/*.json``, found wherever the package is installed)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from rlworkbench.agents.config import builtin_configs

SUFFIX = "-custom"  #: appended to the source's name: ``dqn_cartpole`` exports to ``dqn_cartpole-custom.json``


def default_export_name(name: str) -> str:
    """``<name>-custom.json``: the edited config beside, never over, the one it came from."""
    return f"{name}{SUFFIX}.json"


def shipped_config_path(path: str | Path) -> str | None:
    """The shipped config's name when ``path`` (relative to the working folder) is one of its files, else None."""
    folder = Path(str(resources.files("rlworkbench.agents") / "configs")).resolve()
    target = Path(path).expanduser().resolve()
    if target.parent == folder and target.suffix == ".json" and target.stem in builtin_configs():
        return target.stem
    return None
