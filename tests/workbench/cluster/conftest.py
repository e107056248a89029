"""A Ray head on this machine for the cluster tests: ``ray start --head`` on 127.0.0.1 with its dashboard (Ray
Jobs), its own HOME and temp dir, and token authentication on — started once per test session."""

from __future__ import annotations

import pytest

from rlworkbench.workbench.cluster import LocalHead


@pytest.fixture(scope="session")
def ray_head():
    head = LocalHead(num_cpus=2).start()
    try:
        yield head
    finally:
        head.stop()
