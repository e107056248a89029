"""One local Ray session for every test that needs it (starting one takes ~10 s here)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_session():
    from rlworkbench.execution.ray import ensure_ray

    resources = ensure_ray(num_cpus=2, object_store_memory=200 * 1024 * 1024)
    yield resources
