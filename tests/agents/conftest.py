"""Fixtures for the agent tests: the ``backend`` parameter (both backends, skipped where a framework is missing)
and one intra-op thread for PyTorch in learning runs. Helpers live in ``agent_helpers``."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

BACKENDS = ["torch", "tf"]
_FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    framework = _FRAMEWORKS[request.param]
    if importlib.util.find_spec(framework) is None:
        pytest.skip(f"backend '{request.param}' needs {framework}, which is not installed")
    return request.param


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """PyTorch with one intra-op thread: on a small CPU box, small matmuls wait on descheduled OpenMP workers
    otherwise (a learning run gets ~10x slower when another process competes for the cores)."""
    if importlib.util.find_spec("torch") is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
