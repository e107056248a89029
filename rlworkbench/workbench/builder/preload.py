"""Backends imported in the background once a builder is shown, so that the first switch to another backend waits
only on what is left of its import (TensorFlow's takes ~10 s here; the build itself ~1 s).

A daemon thread imports each available backend's package (``rlworkbench.backends.<name>``, its framework with it)
that is not imported yet; Python's per-module import locks make a switch during the import wait for it rather than
import twice. While a build runs (:func:`paused`), the import steps aside: before each module it imports, the
thread waits (up to :data:`MAX_PAUSE_S` a module, so a build that needs a module it holds is never stuck), which
keeps the first edits after showing the builder about as quick as without it. ``RLWORKBENCH_PRELOAD_BACKENDS=0``
turns it off.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
import time
from collections.abc import Iterator

from rlworkbench.core.backend import available_backends

ENV_VAR = "RLWORKBENCH_PRELOAD_BACKENDS"
THREAD_NAME = "rlworkbench-preload-backends"
MAX_PAUSE_S = 0.05  #: the longest the import waits before one module while a build runs
_started: set[str] = set()
_finished: set[str] = set()  # backends whose background import is over (done or failed)
_lock = threading.Lock()
_running = {"builds": 0}  # builds running now (the import steps aside meanwhile)


@contextlib.contextmanager
def paused(backend: str) -> Iterator[None]:
    """The background import steps aside while the block (a build on ``backend``) runs — unless ``backend`` is not
    imported yet (or still importing in the background): then the build needs the import to go on."""
    if f"rlworkbench.backends.{backend}" not in sys.modules or (backend in _started and backend not in _finished):
        yield
        return
    with _lock:
        _running["builds"] += 1
    try:
        yield
    finally:
        with _lock:
            _running["builds"] -= 1


class _StepAside:
    """A meta-path finder that finds nothing: in the preload thread, it waits while a build runs."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if _running["builds"] and threading.current_thread().name == THREAD_NAME:
            deadline = time.perf_counter() + MAX_PAUSE_S
            while _running["builds"] and time.perf_counter() < deadline:
                time.sleep(0.005)
        return None


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
    thread = threading.Thread(target=_import_all, args=(names,), name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def _import_all(names: list[str]) -> None:
    finder = _StepAside()
    sys.meta_path.insert(0, finder)
    try:
        for name in names:
            try:
                importlib.import_module(f"rlworkbench.backends.{name}")
            except Exception:  # a switch to it imports again and shows the error to its user
                pass
            finally:
                _finished.add(name)
    finally:
        sys.meta_path.remove(finder)
