"""A real Jupyter server with rlworkbench's server extension (enabled from .venv's jupyter_server_config.d, as the
bootstrap installs it) in a process of its own, on 127.0.0.1 with a random token, serving a temp root and reading a
temp runs directory."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests


@dataclass
class LabServer:
    port: int
    token: str
    root: Path
    runs: Path
    log: Path

    def url(self, route: str) -> str:
        return f"http://127.0.0.1:{self.port}/rlworkbench/{route}"

    def get(self, route: str, auth: bool = True, **params) -> requests.Response:
        return requests.get(self.url(route), params=params, headers=self._headers(auth), timeout=120)

    def post(self, route: str, auth: bool = True) -> requests.Response:
        return requests.post(self.url(route), headers=self._headers(auth), timeout=120)

    def _headers(self, auth: bool) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"} if auth else {}


@contextmanager
def serve(base: Path, env: Mapping[str, str] | None = None) -> Iterator[LabServer]:
    """A server under ``base`` (root, runs directory, log, config) with ``env`` over this process's environment;
    ended (its whole process group) on exit."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = LabServer(port, secrets.token_hex(16), base / "root", base / "runs", base / "server.log")
    server.root.mkdir(parents=True)
    environment = {**os.environ, "RLWORKBENCH_RUNS_DIR": str(server.runs), "JUPYTER_CONFIG_DIR": str(base / "config"),
                   "JUPYTER_RUNTIME_DIR": str(base / "runtime")}
    environment.pop("RLWORKBENCH_CLUSTER_ADDRESS", None)
    environment.update(env or {})
    command = [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", "--ip=127.0.0.1",
               f"--port={port}", "--ServerApp.port_retries=0", f"--ServerApp.token={server.token}",
               f"--ServerApp.root_dir={server.root}"]
    with server.log.open("wb") as log:
        process = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, server.log.read_text()[-3000:]
            try:
                if requests.get(f"http://127.0.0.1:{port}/api/status", timeout=2,
                                headers={"Authorization": f"token {server.token}"}).ok:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, server.log.read_text()[-3000:]
            time.sleep(0.3)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
