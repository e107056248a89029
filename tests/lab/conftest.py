"""A real Jupyter server with rlworkbench's server extension (enabled from .venv's jupyter_server_config.d, as the
bootstrap installs it), on 127.0.0.1 with a random token, serving a temp root and reading a temp runs directory."""

from __future__ import annotations

import pytest

from tests.lab.lab_server_process import serve


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    with serve(tmp_path_factory.mktemp("lab-server")) as server:
        yield server


@pytest.fixture
def runs_here(lab_server, monkeypatch):
    """Runs promoted in this test process publish where the server reads."""
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(lab_server.runs))
