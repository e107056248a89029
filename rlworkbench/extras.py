"""Optional parts of rlworkbench and the extras that install them.

``pip install rlworkbench`` brings the core (spaces, components, agents, local execution) with numpy, gymnasium,
pandas, tqdm and jsonschema; each framework or tool beyond that is an extra (``pyproject.toml``). A feature that
needs one calls :func:`require`, so that asking for it without the extra is one :class:`MissingExtra` naming what
to install, not a ``ModuleNotFoundError`` from deep inside.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rlworkbench.errors import MissingExtra

# top-level module -> the extra that installs it
EXTRA_OF = {
    "torch": "torch",
    "tensorflow": "tf",
    "ray": "ray",
    "optuna": "experiments",
    "rliable": "experiments",
    "ale_py": "atari",
    "ipywidgets": "jupyter",
    "anywidget": "jupyter",
    "graphviz": "jupyter",
    "matplotlib": "jupyter",
    "jupyterlab": "jupyter",
}


def install_hint(module: str) -> str:
    """What to run to get ``module``: ``pip install "rlworkbench[extra]"``."""
    extra = EXTRA_OF.get(module.split(".")[0])
    return f'pip install "rlworkbench[{extra}]"' if extra else f"pip install {module.split('.')[0]}"


def missing_extra(module: str, feature: str) -> MissingExtra:
    """The error for ``feature`` when ``module`` is not installed."""
    return MissingExtra(f"{feature} needs {module.split('.')[0]}, which is not installed: {install_hint(module)}")


def require(module: str, feature: str) -> ModuleType:
    """Imports ``module`` for ``feature``; MissingExtra naming the extra when it (or its own top package) is not
    installed. Other import failures (a broken install) pass through unchanged."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and error.name.split(".")[0] == module.split(".")[0]:
            raise missing_extra(module, feature) from error
        raise
