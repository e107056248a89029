"""Suite-wide settings: quiet third-party noise, the `slow` marker's opt-in, the `solo` marker, and the shared Ray
sessions."""

from __future__ import annotations

import os
import tempfile

import pytest
from suite_parts import is_solo

pytest_plugins = ("fuzz_tally",)

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # local Ray sessions listen on 127.0.0.1 only
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("RLWORKBENCH_RUNS_DIR", tempfile.mkdtemp(prefix="rlwb-run-records-"))  # not ~/.rlworkbench


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by the markers added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_solo(item):
            item.add_marker(pytest.mark.solo)
    if os.environ.get("RLWORKBENCH_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow learning run: set RLWORKBENCH_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def ray_session():
    """One local Ray session for every test that needs it (starting one takes ~10 s here): 2 CPUs, a small
    object store."""
    from rlworkbench.execution.ray import ensure_ray

    return ensure_ray(num_cpus=2, object_store_memory=200 * 1024 * 1024)


@pytest.fixture(scope="session")
def ray_head():
    """A Ray head on this machine for the cluster tests and notebook: ``ray start --head`` on 127.0.0.1 with its
    dashboard (Ray Jobs), its own HOME and temp dir, token authentication on; started once per test session."""
    from rlworkbench.workbench.cluster import LocalHead

    head = LocalHead(num_cpus=2).start()
    try:
        yield head
    finally:
        head.stop()
