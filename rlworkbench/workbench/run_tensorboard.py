"""A TensorBoard server for one log directory, as a subprocess of this process.

:class:`TensorBoardServer` starts ``python -m tensorboard.main --logdir <dir> --host 127.0.0.1 --port <free>``,
waits until it answers HTTP, and stops it on :meth:`~TensorBoardServer.stop` or at interpreter exit. Its output
goes to a temporary log file, whose tail is in the error when TensorBoard exits before it answers.

The server listens on 127.0.0.1: an embedded view works where the browser runs on the same machine as the
kernel (a remote Jupyter needs a port forward or a proxy for the port).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import weakref
from pathlib import Path

from rlworkbench.errors import RLWorkbenchError
from rlworkbench.extras import require
from rlworkbench.workbench.exit_hooks import at_exit_once

READY_PATH = "data/runs"  # answers 200 (a JSON list of runs) once the server is up
_LIVE: weakref.WeakSet[TensorBoardServer] = weakref.WeakSet()


class TensorBoardServer:
    """TensorBoard serving ``logdir`` at :attr:`url` (``port=None``: a free port)."""

    def __init__(self, logdir: str | Path, port: int | None = None, host: str = "127.0.0.1",
                 reload_interval: float = 5.0):
        self.logdir, self.host = Path(logdir), host
        self.port = free_port(host) if port is None else int(port)
        self.reload_interval = reload_interval
        self.process: subprocess.Popen | None = None
        self._log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 90.0) -> TensorBoardServer:
        """Starts the server (no-op when it runs) and waits until it answers; returns self."""
        if self.running:
            return self
        require("tensorboard", "the TensorBoard view")  # fails early, naming the extra
        handle, log_name = tempfile.mkstemp(prefix="rlworkbench-tensorboard-", suffix=".log")
        self._log_path = Path(log_name)
        command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(self.logdir), "--host", self.host,
                   "--port", str(self.port), "--reload_interval", str(self.reload_interval), "--load_fast", "false"]
        environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")}
        with os.fdopen(handle, "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env=environment)
        _LIVE.add(self)
        at_exit_once(_stop_servers)
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                code = None if self.process is None else self.process.returncode
                tail = self.log_tail()
                self.stop()
                raise RLWorkbenchError(f"TensorBoard exited before it answered (exit code {code}):\n{tail}",
                                       argument="tensorboard", expected=f"a server at {self.url}", got="no server")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(self.url + READY_PATH, timeout=2) as response:
                    if response.status == 200:
                        return
            time.sleep(0.2)
        self.stop()
        raise RLWorkbenchError(f"TensorBoard did not answer within {timeout:.0f} s", argument="tensorboard",
                               expected=f"a server at {self.url}", got="no answer")

    def log_tail(self, lines: int = 20) -> str:
        """The last lines TensorBoard printed."""
        if self._log_path is None or not self._log_path.exists():
            return ""
        return "\n".join(self._log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Terminates the server (killed after 5 s) and removes its log file."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if self._log_path is not None:
            self._log_path.unlink(missing_ok=True)
            self._log_path = None

    def __repr__(self) -> str:
        return f"TensorBoardServer({str(self.logdir)!r}, url={self.url!r}, running={self.running})"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _stop_servers() -> None:
    """At interpreter exit (registered when the first server starts): stops the servers still running."""
    for server in list(_LIVE):
        server.stop()


def served(current: TensorBoardServer | None, logdir: str | Path, port: int | None = None) -> TensorBoardServer:
    """``current`` if it still serves (on ``port``, when given), else a new server on ``logdir``, started (the old
    one stopped)."""
    if current is not None and current.running and (port is None or port == current.port):
        return current
    if current is not None:
        current.stop()
    return TensorBoardServer(logdir, port=port).start()
