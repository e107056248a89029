"""Builds a backend's ``ops`` namespace from the modules of its ``ops`` package.

Each module (``basic``, ``math``, ``state``, ``random``, and one per component area) lists its operations in
``__all__``; the package exposes all of them under one flat namespace — what graph functions call as
``self.ops.<name>``. Both backends ship modules of the same names with the same operations (a test checks).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def collect(package_name: str, namespace: dict[str, object]) -> list[str]:
    """Imports every module of ``package_name`` and copies its ``__all__`` names into ``namespace``."""
    package = importlib.import_module(package_name)
    exported: list[str] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module: ModuleType = importlib.import_module(f"{package_name}.{info.name}")
        for name in getattr(module, "__all__", ()):
            if name in namespace and namespace[name] is not getattr(module, name):
                raise ImportError(f"op '{name}' is defined twice in {package_name}")
            namespace[name] = getattr(module, name)
            exported.append(name)
    return exported
