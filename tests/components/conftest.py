"""Fixtures shared by the component tests: every test runs once per backend named in ``BACKENDS``.

Adding a backend is one line: append its name (e.g. ``"tf"``) to ``BACKENDS``. A backend whose framework is not
installed here is skipped, not failed.
"""

from __future__ import annotations

import importlib.util

import pytest

BACKENDS = ["torch", "tf"]

_FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend name to build with (``ComponentTest(..., backend=backend)``)."""
    framework = _FRAMEWORKS.get(request.param, request.param)
    if importlib.util.find_spec(framework) is None:
        pytest.skip(f"backend '{request.param}' needs {framework}, which is not installed")
    return request.param
