"""A Ray head node on this machine, for a notebook without a cluster and for the tests: :class:`LocalHead`.

``ray start --head --block`` in a process group of its own, every port on 127.0.0.1 (the dashboard, which serves
Ray Jobs, included), its own temporary directory and HOME (so it neither finds nor overwrites the user's
``~/.ray``), and token authentication on with a new token, as a cluster started with ``ray start`` has it.
Jobs run with this Python: its folder comes first on the head's ``PATH``. :meth:`LocalHead.stop` ends the
whole group (Ray's own shutdown drains for 30 s; a head of one's own need not) and removes the directory.
``LocalHead(multi_node=True)`` accepts more nodes on this machine (:meth:`LocalHead.add_node`: each its own
``ray start --address`` with its own resources, also on 127.0.0.1) — a real multi-node cluster for placement tests;
Ray allows that only when the head was started as a multi-node cluster.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rlworkbench.errors import ClusterError

WORKER_PORTS = (20000, 29999)  #: the worker port range is drawn here, apart from a local session's 10002-19999


class LocalHead:
    """A local Ray head; ``with LocalHead() as head: promote(..., address=head.address,
    auth_token=head.auth_token)``."""

    def __init__(self, num_cpus: int = 2, token: bool = True, startup_timeout: float = 90.0,
                 multi_node: bool = False):
        self.num_cpus, self.startup_timeout, self.multi_node = int(num_cpus), float(startup_timeout), multi_node
        self.auth_token: str | None = secrets.token_hex(32) if token else None
        self.root: Path | None = None
        self.process: subprocess.Popen | None = None
        self.dashboard_port: int | None = None
        self.gcs_port: int | None = None
        self.nodes: list[subprocess.Popen] = []  #: the worker nodes added (``ray start --address``)

    @property
    def address(self) -> str:
        """The Ray Jobs address: ``http://127.0.0.1:<dashboard port>``."""
        if self.dashboard_port is None:
            raise ClusterError("the local head is not started", argument="head", expected="start() first",
                               got="not started")
        return f"http://127.0.0.1:{self.dashboard_port}"

    def start(self) -> LocalHead:
        """Starts the head and returns once Ray Jobs answers (ClusterError with the head's log if it does not)."""
        self.root = Path(tempfile.mkdtemp(prefix="rlwb-head-"))  # short: Ray's socket paths must stay < 108 chars
        home = self.root / "home"
        (home / ".ray").mkdir(parents=True)
        ports = _free_ports(8)
        self.gcs_port, self.dashboard_port = ports[0], ports[1]
        worker_base = WORKER_PORTS[0] + secrets.randbelow((WORKER_PORTS[1] - WORKER_PORTS[0]) // 500) * 500
        command = [_ray_command(), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
                   "--port", str(ports[0]), "--dashboard-host", "127.0.0.1", "--dashboard-port", str(ports[1]),
                   "--dashboard-agent-listen-port", str(ports[2]), "--dashboard-agent-grpc-port", str(ports[3]),
                   "--metrics-export-port", str(ports[4]), "--runtime-env-agent-port", str(ports[5]),
                   "--node-manager-port", str(ports[6]), "--object-manager-port", str(ports[7]),
                   "--min-worker-port", str(worker_base), "--max-worker-port", str(worker_base + 499),
                   "--num-cpus", str(self.num_cpus), "--temp-dir", str(self.root / "tmp"), "--disable-usage-stats"]
        self.process = subprocess.Popen(command, env=self._environment(home), stdout=open(self.log_path, "wb"),
                                        stderr=subprocess.STDOUT, start_new_session=True)
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def add_node(self, num_cpus: int = 2, timeout: float = 90.0) -> str:
        """Adds a worker node to this cluster — ``ray start --address`` with its own resources and ports, also on
        127.0.0.1 — and returns its Ray node id once the cluster lists it alive (a ClusterError otherwise). The
        cluster then spans two raylets, so placement across nodes (``STRICT_SPREAD``) is what runs."""
        if self.process is None or self.root is None or not self.multi_node:
            raise ClusterError("nodes join a started LocalHead(multi_node=True) (a single-node head's Ray refuses "
                               "them)", argument="head", expected="LocalHead(multi_node=True).start()",
                               got="not started" if self.process is None else f"multi_node={self.multi_node}")
        ports = _free_ports(6)
        worker_base = WORKER_PORTS[0] + secrets.randbelow((WORKER_PORTS[1] - WORKER_PORTS[0]) // 500) * 500
        command = [_ray_command(), "start", "--address", f"127.0.0.1:{self.gcs_port}", "--block",
                   "--node-ip-address", "127.0.0.1", "--num-cpus", str(int(num_cpus)),
                   "--node-manager-port", str(ports[0]), "--object-manager-port", str(ports[1]),
                   "--dashboard-agent-listen-port", str(ports[2]), "--dashboard-agent-grpc-port", str(ports[3]),
                   "--metrics-export-port", str(ports[4]), "--runtime-env-agent-port", str(ports[5]),
                   "--min-worker-port", str(worker_base), "--max-worker-port", str(worker_base + 499),
                   "--disable-usage-stats"]
        log = self.root / f"node-{len(self.nodes) + 1}.log"
        deadline = time.monotonic() + timeout
        before = set(self._alive_nodes())
        while len(before) < 1 + len(self.nodes) and time.monotonic() < deadline:  # the head and nodes added so far
            time.sleep(0.5)
            before = set(self._alive_nodes())
        self.nodes.append(subprocess.Popen(command, env=self._environment(self.root / "home", write_token=False),
                                           stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                           start_new_session=True))
        while time.monotonic() < deadline:
            added = set(self._alive_nodes()) - before
            if added:
                return added.pop()
            if self.nodes[-1].poll() is not None:
                break
            time.sleep(0.5)
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        raise ClusterError(f"the added Ray node did not join; its log ends:\n{tail}", argument="node",
                           expected=f"a node alive within {timeout:g} s", got="none")

    def _alive_nodes(self) -> list[str]:
        """Ids of the cluster's live nodes (Ray's state API, through the dashboard)."""
        import requests

        headers = {"Authorization": f"Bearer {self.auth_token}"} if self.auth_token else {}
        with contextlib.suppress(requests.RequestException, ValueError, KeyError):
            reply = requests.get(f"{self.address}/api/v0/nodes", headers=headers, timeout=5).json()
            return [node["node_id"] for node in reply["data"]["result"]["result"] if node["state"] == "ALIVE"]
        return []

    @property
    def log_path(self) -> Path:
        """The ``ray start`` output."""
        assert self.root is not None
        return self.root / "head.log"

    def stop(self, grace: float = 3.0) -> None:
        """Ends the added nodes' and the head's processes (SIGTERM, then SIGKILL after ``grace`` s) and removes
        its directory."""
        for node in self.nodes:
            _end_group(node, grace)
        self.nodes = []
        if self.process is not None:
            _end_group(self.process, grace)
            self._kill_strays()
            self.process = None
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        self.dashboard_port = None

    def __enter__(self) -> LocalHead:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # ----- inside --------------------------------------------------------------------------------------------
    def _environment(self, home: Path, write_token: bool = True) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
        env.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
                   RAY_USAGE_STATS_ENABLED="0", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="1" if self.multi_node else "0",
                   RAY_AUTH_MODE="token" if self.auth_token else "disabled")
        if self.auth_token and write_token:
            (home / ".ray" / "auth_token").write_text(self.auth_token)
        return env

    def _wait_until_ready(self) -> None:
        import requests

        headers = {"Authorization": f"Bearer {self.auth_token}"} if self.auth_token else {}
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                break
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{self.address}/api/jobs/", headers=headers, timeout=2).status_code == 200:
                    return
            time.sleep(0.5)
        tail = self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""
        raise ClusterError(f"the local Ray head did not come up; its log ends:\n{tail}", argument="head",
                           expected=f"Ray Jobs answering within {self.startup_timeout:g} s", got="no answer")

    def _kill_strays(self) -> None:
        """Processes of this head that left its group (Ray workers): found by its temporary directory."""
        import psutil

        marker = str(self.root)
        for process in psutil.process_iter(["cmdline"]):
            with contextlib.suppress(psutil.Error):
                if any(marker in part for part in process.info["cmdline"] or ()):
                    process.kill()


def _end_group(process: subprocess.Popen, grace: float) -> None:
    """SIGTERM to the process group of ``process``, SIGKILL after ``grace`` s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(10)


def _ray_command() -> str:
    beside = Path(sys.executable).parent / "ray"
    found = str(beside) if beside.exists() else shutil.which("ray")
    if found is None:
        raise ClusterError("the `ray` command is not installed", argument="head", expected="ray[default]",
                           got="no ray on PATH")
    return found


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
