"""Interpreter-exit hooks registered on first use: importing a module of the workbench registers none.

A module whose objects must be cleaned up at exit (runs in threads, TensorBoard servers, experiment drivers) calls
:func:`at_exit_once` with its cleanup when it starts the first of them; later starts register nothing more.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable

_registered: set[Callable[[], None]] = set()
_lock = threading.Lock()


def at_exit_once(hook: Callable[[], None]) -> None:
    """Registers ``hook`` with :mod:`atexit` unless it is registered already (safe from several threads)."""
    with _lock:
        if hook in _registered:
            return
        _registered.add(hook)
        atexit.register(hook)
