"""The server extension's handlers: the runs list (this machine's run records, experiments' records apart, and,
when ``RLWORKBENCH_CLUSTER_ADDRESS`` is set, that cluster's rlworkbench jobs), a stop request (a run or an
experiment), a resume (a stopped, failed or orphaned run, in a process of its own), TensorBoard for a run, a
component graph drawn from a config or a run, and a few runs side by side (curves, config diff), a Ray run's
dataflow drawing — each ``@tornado.web.authenticated``, so a request without the server's token or cookie gets
403."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tornado.ioloop
import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from rlworkbench.agents.config import load_config
from rlworkbench.errors import ConfigError, RLWorkbenchError
from rlworkbench.lab.compare_view import UnknownRuns, compare_payload
from rlworkbench.workbench.experiments.publication import EXPERIMENT_KIND
from rlworkbench.workbench.run_records import read_records, request_stop

if TYPE_CHECKING:
    from rlworkbench.workbench.run_tensorboard import TensorBoardServer

CLUSTER_ENV = "RLWORKBENCH_CLUSTER_ADDRESS"


class RunsHandler(APIHandler):
    @tornado.web.authenticated
    async def get(self) -> None:
        """``{"runs": [run record …], "experiments": [experiment record …], "cluster": {"address", "runs": [row …],
        "error"} | null}`` (see :func:`split_records`)."""
        address = os.environ.get(CLUSTER_ENV)
        cluster = None
        if address:
            cluster = await tornado.ioloop.IOLoop.current().run_in_executor(None, _cluster_runs, address)
        self.finish(json.dumps({**split_records(read_records(), _root(self)), "cluster": cluster}, default=str))


def split_records(records: list[dict[str, Any]], root: Path) -> dict[str, list[dict[str, Any]]]:
    """Runs (records without ``kind``: plain runs and experiments' trial runs, which name their ``experiment``)
    with their ``logdir`` absolute (see :func:`absolute_path`), ``logdir_in_root`` and ``source_in_root``, and
    experiments' own records with ``directory_in_root``; other kinds are left out. ``root`` is the server's."""
    runs, experiments = [], []
    for record in records:
        if record.get("kind") is None:
            logdir = absolute_path(record, "logdir", root)
            runs.append({**record, "logdir": logdir, "logdir_in_root": _inside(root, logdir),
                         "source_in_root": _source_in_root(record.get("source"), root)})
        elif record["kind"] == EXPERIMENT_KIND:
            directory = absolute_path(record, "directory", root)
            experiments.append({**record, "directory": directory, "directory_in_root": _inside(root, directory)})
    return {"runs": runs, "experiments": experiments}


def absolute_path(record: dict[str, Any], key: str, root: Path) -> str | None:
    """``record[key]`` as an absolute path: as it is if it is one (records hold absolute paths), else — a record
    from an older rlworkbench, or a notebook named relative to the server's root — against the ``cwd`` of the
    process that wrote it where the record says it, else against ``root``."""
    value = record.get(key)
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = Path(record.get("cwd") or root) / path
    return str(path)


def _source_in_root(source: str | None, root: Path) -> str | None:
    """The notebook or script that started a run, relative to ``root`` (Jupyter names a kernel's notebook by its
    absolute path, or — older servers — relative to the server's root already); None when outside or unknown."""
    if not source:
        return None
    return _inside(root, source) if Path(source).is_absolute() else Path(source).as_posix()


class StopHandler(APIHandler):
    @tornado.web.authenticated
    def post(self, run_id: str) -> None:
        """Asks a run or an experiment (its id is hex too) to stop: ``<id>.stop``, which its heartbeat acts on."""
        try:
            record = request_stop(run_id)
        except RLWorkbenchError as error:
            raise tornado.web.HTTPError(404 if "no run" in error.message else 409,
                                        reason=f"{type(error).__name__}: {error}") from None
        self.finish(json.dumps({"id": record["id"], "stop_requested": True}))


class ResumeHandler(APIHandler):
    @tornado.web.authenticated
    async def post(self, run_id: str) -> None:
        """Goes on with a stopped, failed or orphaned run from its newest complete checkpoint, in a process of its
        own (``rlworkbench resume``; its output in ``<run dir>/resume.log``); the run's record goes live again under
        the same id. A cluster job's resume is a new job on its cluster (the server's ``RAY_AUTH_TOKEN`` or token
        file), followed by that process. 404: no such run; 409: live (a job the cluster still runs), an
        experiment's trial, nothing to resume from, or the cluster does not answer."""
        from rlworkbench.workbench.resume import launch_resume, resumable

        record = _record(run_id)
        logdir = absolute_path(record, "logdir", _root(self))
        if not logdir or not Path(logdir).is_dir():
            raise tornado.web.HTTPError(404, reason=f"the run's folder {logdir} is not on this machine")
        try:  # a cluster job's state is asked of its cluster: not on the server's event loop
            checkpoint = await tornado.ioloop.IOLoop.current().run_in_executor(None, resumable, record, Path(logdir))
        except RLWorkbenchError as error:
            raise tornado.web.HTTPError(409, reason=f"{type(error).__name__}: {error}") from None
        process = launch_resume(Path(logdir), record.get("cwd"))
        self.finish(json.dumps({"id": run_id, "resuming": True, "pid": process.pid, "checkpoint": str(checkpoint)}))


_TENSORBOARDS: dict[str, TensorBoardServer] = {}  # run id → its TensorBoard server (one per run, reused)


class TensorBoardHandler(APIHandler):
    @tornado.web.authenticated
    async def post(self, run_id: str) -> None:
        """Starts (or reuses) TensorBoard on the run's directory, wherever it is; ``{"url", "logdir"}`` on 127.0.0.1;
    404 naming the folder when it is not there."""
        record = _record(run_id)
        logdir = absolute_path(record, "logdir", _root(self))
        if not logdir or not Path(logdir).is_dir():
            raise tornado.web.HTTPError(404, reason=f"the run's folder {logdir} is not on this machine (moved or "
                                                    "deleted, or the run wrote it elsewhere)")
        server = _TENSORBOARDS.get(run_id)
        if server is None or not server.running:
            from rlworkbench.workbench.run_tensorboard import TensorBoardServer

            server = TensorBoardServer(logdir)
            await tornado.ioloop.IOLoop.current().run_in_executor(None, server.start)
            _TENSORBOARDS[run_id] = server
        self.finish(json.dumps({"url": server.url, "logdir": logdir}))


class GraphHandler(APIHandler):
    @tornado.web.authenticated
    async def get(self) -> None:
        """The component graph of a config file (``path``, relative to the server's root) or of a run (``run``):
        ``{"svg", "title", "components", "api_methods", "error"}``. ``depth``, ``api``, ``env`` refine it."""
        from rlworkbench.lab.graph_view import graph_payload

        config, env, backend = self._source()
        depth = self.get_argument("depth", None)
        options = {"depth": int(depth) if depth not in (None, "") else None,
                   "api": self.get_argument("api", None) or None}
        try:
            payload = await tornado.ioloop.IOLoop.current().run_in_executor(
                None, lambda: graph_payload(config, env, backend, **options))
        except RLWorkbenchError as error:
            raise tornado.web.HTTPError(400, reason=f"{type(error).__name__}: {error}".replace("\n", " ")) from None
        self.finish(json.dumps(payload, default=str))

    def _source(self) -> tuple[Mapping[str, object] | str, str, str]:
        run_id, path = self.get_argument("run", None), self.get_argument("path", None)
        env = self.get_argument("env", None)
        if run_id:
            record = _record(run_id)
            return record["config"], env or record["env"], record.get("backend") or "torch"
        if not path:
            raise tornado.web.HTTPError(400, reason="give path= (a config file) or run= (a run id)")
        root = _root(self)
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            raise tornado.web.HTTPError(404, reason=f"no config file {path!r} under the server's root")
        try:
            config = load_config(file)
        except ConfigError as error:
            where = f" at {error.key_path}" if error.key_path else ""
            raise tornado.web.HTTPError(400, reason=f"{path}{where}: {error.message}") from None  # no server path
        return config, env or "CartPole-v1", self.get_argument("backend", "torch")


class CompareHandler(APIHandler):
    @tornado.web.authenticated
    async def get(self) -> None:
        """Runs side by side for ``runs=<id>,<id>,…``: ``{"runs": [{…, "curve", "config"}], "diff": [{"path",
        "values"}]}`` (see :func:`~rlworkbench.lab.compare_view.compare_payload`); 404 naming unknown ids."""
        ids = [run_id for run_id in self.get_argument("runs", "").split(",") if run_id.strip()]
        if not ids:
            raise tornado.web.HTTPError(400, reason="give runs=ID,ID (run ids from the runs panel)")
        root = _root(self)
        try:
            payload = await tornado.ioloop.IOLoop.current().run_in_executor(
                None, lambda: compare_payload([{**record, "logdir": absolute_path(record, "logdir", root)}
                                               for record in read_records()], [run_id.strip() for run_id in ids]))
        except UnknownRuns as error:
            raise tornado.web.HTTPError(404, reason=str(error)) from None
        self.finish(json.dumps(payload, default=str))


class DataflowHandler(APIHandler):
    @tornado.web.authenticated
    async def get(self) -> None:
        """A Ray run's dataflow drawn (``run=<id or run directory>``, a run in the records only): ``{"run", "state",
        "plan", "wall_time", "svg", "nodes", "edges", "bottleneck", "notes"}`` (see
        :func:`~rlworkbench.lab.dataflow_view.dataflow_payload`); 404 when its directory holds no dataflow.json."""
        from rlworkbench.lab.dataflow_view import dataflow_payload

        root = _root(self)
        record = _record_of(self.get_argument("run", ""), root)
        logdir = absolute_path(record, "logdir", root) or ""
        try:
            payload = await tornado.ioloop.IOLoop.current().run_in_executor(None, dataflow_payload, logdir)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise tornado.web.HTTPError(409, reason=f"cannot read the run's dataflow.json: {error}") from None
        if payload is None:
            raise tornado.web.HTTPError(404, reason=f"run {record['id']} has no dataflow.json in {logdir} (only Ray "
                                                    "runs write one, once their plan started)")
        self.finish(json.dumps({"run": record["id"], "state": record.get("state"), **payload}, default=str))


class DataflowsHandler(APIHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        """``{"runs": [id …]}``: the runs whose directory holds a dataflow.json (the panel's Dataflow buttons)."""
        from rlworkbench.lab.dataflow_view import has_dataflow

        root = _root(self)
        self.finish(json.dumps({"runs": [record["id"] for record in read_records() if record.get("kind") is None
                                         and has_dataflow(absolute_path(record, "logdir", root))]}))


def _root(handler: APIHandler) -> Path:
    """The server's root directory (what the file browser shows)."""
    return Path(handler.settings.get("server_root_dir", os.getcwd())).expanduser().resolve()


def _inside(root: Path, path: str | None) -> str | None:
    """``path`` relative to ``root`` (POSIX), or None when it is elsewhere."""
    if not path:
        return None
    resolved = Path(path).expanduser().resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else None


def _record(run_id: str) -> dict[str, Any]:
    record = next((record for record in read_records() if record["id"] == run_id and record.get("kind") is None),
                  None)
    if record is None:
        raise tornado.web.HTTPError(404, reason=f"no run {run_id!r}")
    return record


def _record_of(run: str, root: Path) -> dict[str, Any]:
    """The run record named by its id or by its run directory (as the record says it); 404 for anything else."""
    if not run:
        raise tornado.web.HTTPError(400, reason="give run=<run id> (or the run's directory)")
    for record in read_records():
        if record.get("kind") is None and (record["id"] == run or (
                "/" in run and absolute_path(record, "logdir", root) == str(Path(run).expanduser()))):
            return record
    raise tornado.web.HTTPError(404, reason=f"no run {run!r}")


def _cluster_runs(address: str) -> dict[str, object]:
    from rlworkbench.workbench.cluster import list_runs

    try:
        table = list_runs(address)
    except RLWorkbenchError as error:
        return {"address": address, "runs": [], "error": str(error)}
    return {"address": address, "runs": json.loads(table.to_json(orient="records", date_format="iso")),
            "error": None}


def add_handlers(web_app: tornado.web.Application) -> None:
    base = url_path_join(web_app.settings["base_url"], "rlworkbench")
    web_app.add_handlers(".*$", [
        (url_path_join(base, "runs"), RunsHandler),
        (url_path_join(base, r"runs/([0-9a-f]+)/stop"), StopHandler),
        (url_path_join(base, r"runs/([0-9a-f]+)/resume"), ResumeHandler),
        (url_path_join(base, r"runs/([0-9a-f]+)/tensorboard"), TensorBoardHandler),
        (url_path_join(base, "graph"), GraphHandler),
        (url_path_join(base, "compare"), CompareHandler),
        (url_path_join(base, "dataflow"), DataflowHandler),
        (url_path_join(base, "dataflows"), DataflowsHandler),
    ])
