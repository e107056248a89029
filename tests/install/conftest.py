"""Fixtures of the install tests: one wheel per test run, built from the working tree like a user's pip would.

Under pytest-xdist (`make test`) the two install files may run on two workers at once: the first to come builds the
wheel into the run's shared temp folder while the other waits on a lock, as two builds in the same tree would break
each other (the build hook rebuilds the lab extension in place)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from wheel_venvs import build_wheel


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return build_wheel(tmp_path_factory.mktemp("wheel"))
    shared = tmp_path_factory.getbasetemp().parent / "wheel"  # the run's folder, above each worker's own
    shared.mkdir(exist_ok=True)
    with (shared / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = sorted(shared.glob("rlworkbench-*.whl"))
        return built[0] if built else build_wheel(shared)
