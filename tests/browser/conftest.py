"""Browser-test fixtures: the tools (Debian's chromium, node + playwright-core) and a throwaway JupyterLab server.

`scripts/browser_deps.sh` installs the tools (the bootstrap runs it; the `browser_tools` fixture runs it once more
when something is missing). When they still cannot be had, the tests fail under CI=true and skip otherwise.
The server serves a temp directory (notebooks are copied there, so no outputs land in the repo) with its own
config, runtime, IPython and lab-settings directories; it is shut down, kernels first, at the end of the session.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
DRIVER = HERE / "drive_notebook.mjs"
CHECKS = HERE / "checks.json"
DEPS_SCRIPT = ROOT / "scripts" / "browser_deps.sh"
MIN_NODE_MAJOR = 20  # playwright-core 1.65 refuses older node

# Lab settings that keep the page deterministic: every cell attached to the DOM, no news/update toasts.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "scrollPastEnd": False},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@dataclass(frozen=True)
class BrowserTools:
    node: str
    chromium: str


def _find_tools() -> tuple[BrowserTools | None, list[str]]:
    missing: list[str] = []
    chromium = os.environ.get("RLWORKBENCH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium or not os.access(chromium, os.X_OK):
        missing.append("chromium (Debian: apt-get install chromium)")
    node = shutil.which("node")
    if not node:
        missing.append(f"node >= {MIN_NODE_MAJOR}")
    else:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
        major = int(version.lstrip("v").split(".")[0]) if version.lstrip("v").split(".")[0].isdigit() else 0
        if major < MIN_NODE_MAJOR:
            missing.append(f"node >= {MIN_NODE_MAJOR} (found {version or 'an unknown version'})")
    if not (HERE / "node_modules" / "playwright-core" / "package.json").is_file():
        missing.append("playwright-core (npm ci in tests/browser)")
    if missing:
        return None, missing
    return BrowserTools(node=str(node), chromium=str(chromium)), []


@pytest.fixture(scope="session")
def browser_tools() -> BrowserTools:
    """Node, playwright-core and chromium, installed by scripts/browser_deps.sh when missing."""
    tools, missing = _find_tools()
    deps_log = ""
    if tools is None and DEPS_SCRIPT.is_file():
        done = subprocess.run(["bash", str(DEPS_SCRIPT)], cwd=ROOT, capture_output=True, text=True, check=False)
        deps_log = (done.stdout + done.stderr)[-2000:]
        tools, missing = _find_tools()
    if tools is None:
        message = f"browser test tools missing: {', '.join(missing)}; run scripts/browser_deps.sh as root\n{deps_log}"
        if in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return tools


@dataclass
class JupyterLab:
    """A running `jupyter lab` serving `root_dir` on 127.0.0.1."""

    port: int
    token: str
    root_dir: Path
    log_path: Path
    runs_dir: Path  #: where its kernels publish run records and its server reads them (RLWORKBENCH_RUNS_DIR)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def lab_url(self, relative_path: str, workspace: str) -> str:
        """The notebook in its own (empty) workspace, so layouts of earlier runs are not restored."""
        return f"{self.base_url}/lab/workspaces/{workspace}/tree/{relative_path}?token={self.token}"

    def workspace_url(self, workspace: str) -> str:
        """The lab in its own (empty) workspace with nothing opened by the URL: for a driver that opens its files
        itself (the URL's own open can land after the driver's tabs and take the front)."""
        return f"{self.base_url}/lab/workspaces/{workspace}?token={self.token}"

    def write_notebook(self, relative_path: str, sources: list[str]) -> str:
        """A notebook of code cells (``sources``, on the python3 kernel) at ``relative_path`` under the root."""
        import nbformat

        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        (self.root_dir / relative_path).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, self.root_dir / relative_path)
        return relative_path

    def api(self, method: str, path: str, timeout: float = 5.0) -> Any:
        request = urllib.request.Request(f"{self.base_url}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_lab_settings(settings_dir: Path) -> None:
    for plugin, values in LAB_SETTINGS.items():
        path = settings_dir / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def _stop(lab: JupyterLab, proc: subprocess.Popen[bytes]) -> None:
    try:
        for kernel in lab.api("GET", "/api/kernels"):
            lab.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=20)
        lab.api("POST", "/api/shutdown")
        proc.wait(timeout=20)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            continue
    with contextlib.suppress(ProcessLookupError):  # stragglers left in the server's process group
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def jupyter_lab(browser_tools: BrowserTools, tmp_path_factory: pytest.TempPathFactory):
    """Starts `jupyter lab` from this venv on a free port with a random token; stops it (and its kernels) after."""
    base = tmp_path_factory.mktemp("jupyterlab")
    root_dir = base / "root"
    root_dir.mkdir()
    _write_lab_settings(base / "user-settings")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    lab = JupyterLab(port=_free_port(), token=secrets.token_hex(16), root_dir=root_dir,
                     log_path=ARTIFACTS / "jupyter-server.log", runs_dir=base / "runs")
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "IPYTHONDIR": str(base / "ipython"),
        "OMP_NUM_THREADS": "1",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "RLWORKBENCH_RUNS_DIR": str(lab.runs_dir),  # kernels publish run records where the server reads them
    }
    env.pop("RLWORKBENCH_CLUSTER_ADDRESS", None)
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ip=127.0.0.1", f"--port={lab.port}", "--ServerApp.port_retries=0",
        f"--ServerApp.token={lab.token}", f"--ServerApp.root_dir={root_dir}",
        f"--LabApp.user_settings_dir={base / 'user-settings'}", f"--LabApp.workspaces_dir={base / 'workspaces'}",
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: the extension's driver runs commands with it
    ]
    with lab.log_path.open("wb") as log:
        proc = subprocess.Popen(command, cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{lab.log_tail()}", pytrace=False)
            try:
                lab.api("GET", "/api/status", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not answer /api/status in 90 s:\n{lab.log_tail()}", pytrace=False)
                time.sleep(0.5)
        yield lab
    finally:
        _stop(lab, proc)


@pytest.fixture(scope="session")
def installed_extension() -> Path:
    """The lab extension's package.json in .venv; the test fails when the bootstrap did not install it."""
    installed = ROOT / ".venv" / "share" / "jupyter" / "labextensions" / "rlworkbench-lab" / "package.json"
    if not installed.is_file():
        pytest.fail("the extension is not installed in .venv: run scripts/lab_extension.sh (the bootstrap does)",
                    pytrace=False)
    return installed


@pytest.fixture(scope="session")
def drive_notebook(jupyter_lab: JupyterLab, run_driver):
    """Returns `drive(relative_path, name, **overrides) -> result`: runs drive_notebook.mjs on a served notebook."""

    def drive(relative_path: str, name: str, **overrides: Any) -> dict[str, Any]:
        config = json.loads(CHECKS.read_text())
        for key, value in overrides.items():  # dict-valued overrides (timeouts_ms, selectors ...) merge key by key
            config[key] = {**config[key], **value} if isinstance(value, dict) and key in config else value
        config.update(url=jupyter_lab.lab_url(relative_path, name), screenshot=str(ARTIFACTS / f"{name}.png"))
        budget = sum(config["timeouts_ms"].values()) / 1000 + 60
        return run_driver(DRIVER.name, name, config, budget)

    return drive


@pytest.fixture(scope="session")
def run_driver(browser_tools: BrowserTools, jupyter_lab: JupyterLab):
    """Returns ``run(script, name, config, timeout) -> result``: the node driver ``script`` (in this folder) on
    ``config`` plus the chromium to use, written to ``<name>.config.json`` in the artifacts; the JSON line it
    printed (also ``<name>.result.json``) with ``driver_log``, the tail of its stderr. A driver that printed no
    result fails the test with its output and the server's log."""

    def run(script: str, name: str, config: dict[str, Any], timeout: float) -> dict[str, Any]:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        config_path = ARTIFACTS / f"{name}.config.json"
        config_path.write_text(json.dumps({**config, "chromium": browser_tools.chromium}, indent=1))
        done = subprocess.run([browser_tools.node, str(HERE / script), str(config_path)], cwd=HERE,
                              capture_output=True, text=True, timeout=timeout, check=False)
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            pytest.fail(f"driver exited {done.returncode} without a result:\n{done.stdout[-2000:]}\n"
                        f"{done.stderr[-4000:]}\nserver log:\n{jupyter_lab.log_tail()}", pytrace=False)
        result["driver_log"] = done.stderr[-4000:]
        (ARTIFACTS / f"{name}.result.json").write_text(json.dumps(result, indent=1))
        return result

    return run
