"""Backends, one subpackage each (``torch``, ``tf``), reached only through :func:`get_backend`."""

from rlworkbench.core.backend import (
    Backend,
    available_backends,
    default_backend_name,
    get_backend,
    register_backend,
)

__all__ = ["Backend", "available_backends", "default_backend_name", "get_backend", "register_backend"]
