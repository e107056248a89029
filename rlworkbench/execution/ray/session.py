"""One Ray session per process: started on first use (local, bound to 127.0.0.1) or joined (an address), from any
thread.

Ray (2.5x) turns token authentication on for a new local session when ``RAY_AUTH_MODE`` is unset, and logs a
warning saying so (``Token authentication is enabled for this Ray cluster …``) — in a notebook, red text about a
setting the user never touched. rlworkbench leaves Ray's choice as it is and drops only that notice, and only when
the user configured none of :data:`AUTH_SETTINGS`; whoever set them sees whatever Ray says.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from rlworkbench.errors import ConfigError

LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch between a loopback-only node (``"0"``) and one reachable from other hosts: set to ``"0"`` for a
local session unless the environment says otherwise."""


def ensure_ray(address: str | None = None, num_cpus: int | None = None, **options: object) -> dict[str, Any]:
    """Starts Ray here (``address=None``: a local single-node session whose processes listen on 127.0.0.1 only,
    with ``num_cpus``; usage stats off, no dashboard) or connects to ``address`` (``"auto"``, a cluster's
    address), unless a session is up already — then that one is used as it is. Returns the session's resources."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address is None:  # a single-node session: Ray's processes listen on the loopback address only
        os.environ.setdefault(LOOPBACK_ONLY, "0")
    import ray

    with _STARTING:  # two runs started at once: one starts the session, the other joins it
        if not ray.is_initialized():
            _start(address, num_cpus, options)
    return ray.cluster_resources()


_STARTING = threading.Lock()


def _start(address: str | None, num_cpus: int | None, options: dict[str, Any]) -> None:
    """``ray.init`` as :func:`ensure_ray` describes it."""
    import ray

    if address is None and os.environ.get(LOOPBACK_ONLY) == "0":
        from ray._private import ray_constants  # read when Ray was imported: maybe before the line above

        ray_constants.ENABLE_RAY_CLUSTER = False
    if num_cpus is not None and (isinstance(num_cpus, bool) or not isinstance(num_cpus, int) or num_cpus < 1):
        raise ConfigError("bad number of CPUs for Ray", argument="num_cpus", expected="int >= 1", got=num_cpus)
    settings: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False,
                                "namespace": "rlworkbench", **options}
    if address is None:
        settings.update(num_cpus=num_cpus)
    quiet = not any(os.environ.get(name) for name in AUTH_SETTINGS)
    notices = logging.getLogger(AUTH_LOGGER)
    if quiet:  # Ray's default (token auth for a local session) stays; its notice of it is for those who chose
        notices.addFilter(_not_the_token_notice)
    try:
        _call_in_a_lasting_thread(lambda: ray.init(address=address, **settings))
    finally:
        notices.removeFilter(_not_the_token_notice)


AUTH_SETTINGS = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
"""How a user configures Ray's token authentication; when none is set, Ray's notice about it is not shown."""
AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


def _not_the_token_notice(record: logging.LogRecord) -> bool:
    return "Token authentication is" not in record.getMessage()


def _call_in_a_lasting_thread(start: Callable[[], Any]) -> None:
    """Runs ``start`` (``ray.init``) here on the main thread, else on a daemon thread that then lives as long as
    the process: Ray's node processes are started with a parent-death signal, which Linux sends when the *thread*
    that started them ends — a run's thread calling ``ray.init`` would take the session down with it."""
    if threading.current_thread() is threading.main_thread():
        start()
        return
    started, failure = threading.Event(), []

    def keep() -> None:
        ray_worker_log = logging.getLogger("ray._private.worker")
        ray_worker_log.addFilter(_not_the_sigterm_note)  # Ray leaves SIGTERM alone off the main thread: fine here
        try:
            start()
        except BaseException as error:
            failure.append(error)
        finally:
            ray_worker_log.removeFilter(_not_the_sigterm_note)
            started.set()
        threading.Event().wait()  # forever (a daemon thread: it ends with the interpreter)

    threading.Thread(target=keep, name="rlworkbench-ray-session", daemon=True).start()
    started.wait()
    if failure:
        raise failure[0]


def _not_the_sigterm_note(record: logging.LogRecord) -> bool:
    return "SIGTERM handler is not set" not in record.getMessage()
