"""Backends imported in the background once a builder is shown, so that the first switch to another backend waits
only on what is left of its import (TensorFlow's takes ~10 s here; the build itself ~1 s).

A daemon thread imports each available backend's package (``rlworkbench.backends.<name>``, its framework with it)
that is not imported yet; Python's per-module import locks make a switch during the import wait for it rather than
import twice. ``RLWORKBENCH_PRELOAD_BACKENDS=0`` turns it off.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading

from rlworkbench.core.backend import available_backends

ENV_VAR = "RLWORKBENCH_PRELOAD_BACKENDS"
_started: set[str] = set()
_lock = threading.Lock()


def preload_backends() -> threading.Thread | None:
    """Starts importing the backends not imported yet in a daemon thread (once per backend and process); returns
    the thread, or None when there is nothing to import or preloading is off."""
    if os.environ.get(ENV_VAR, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    with _lock:
        names = [name for name in available_backends()
                 if f"rlworkbench.backends.{name}" not in sys.modules and name not in _started]
        if not names:
            return None
        _started.update(names)
    thread = threading.Thread(target=_import_all, args=(names,), name="rlworkbench-preload-backends", daemon=True)
    thread.start()
    return thread


def _import_all(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(f"rlworkbench.backends.{name}")
        except Exception:  # a switch to it imports again and shows the error to its user
            continue
