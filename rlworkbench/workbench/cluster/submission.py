"""Turning a :class:`~rlworkbench.workbench.run_spec.RunSpec` into a Ray job: checks, the job package, the
runtime environment and the job's metadata — everything but the network is done by :func:`plan_submission`, so a
bad setting is a ConfigError before anything reaches the cluster.

Settings a cluster run takes besides the Ray ones (:mod:`rlworkbench.execution.ray.settings`):

- ``address``: ``http(s)://head:8265``; ``auth_token``: the cluster's token (default: what Ray would find here);
- ``workers``: sampler actors on the cluster (Ape-X, IMPALA or synchronous PPO); ``0`` runs a local worker
  inside the job (with ``devices``: the update on replica towers, as the ``multi_gpu`` target);
- ``runtime_env``: passed to Ray (``working_dir``, ``pip``, ``env_vars`` …); rlworkbench adds its own code
  (``ship_code=True``: this checkout's ``rlworkbench`` package, so the cluster runs the notebook's version —
  its Python still needs the dependencies) and the job package (``py_modules``);
- ``cluster_logdir``: where the job writes its run directory on the cluster (default: this machine's ``logdir``,
  absolute, for a head on this machine; ``~/rlworkbench/runs`` for any other); the directory itself is named
  ``run_name`` (default ``<config>-<env>-<backend>-<time>-<4 hex>``);
- ``stop_grace``: seconds a stopped job has to save its final checkpoint before Ray kills it (30);
- ``mirror``: copy the metrics followed into a local run directory (``None``: only when the cluster's run
  directory is not visible here).

A resumed run (:mod:`.resume_job`) is a new job with the same run name whose spec names the run directory on the
cluster to go on in (``resume``).
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from rlworkbench.agents.config import validate_config
from rlworkbench.agents.registry import agent_class
from rlworkbench.errors import ConfigError
from rlworkbench.workbench.cluster.job_package import RUN_SETTINGS
from rlworkbench.workbench.run_spec import RunSpec

JOB_SETTINGS: dict[str, Any] = {"address": None, "auth_token": None, "runtime_env": None, "cluster_logdir": None,
                                "stop_grace": 30.0, "mirror": None, "ship_code": True}
REMOTE_LOGDIR = "~/rlworkbench/runs"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
PACKAGE_DIR = Path(__file__).resolve().parents[2]  #: this rlworkbench package, shipped to the cluster
METADATA_KEY = "rlworkbench"  #: every job submitted by rlworkbench carries it (its version) in its metadata


@dataclass
class Submission:
    """A checked job, ready to submit: what :func:`plan_submission` returns."""

    address: str
    auth_token: str | None
    submission_id: str
    target: str                      #: the target inside the job: ``ray``, ``local`` or ``multi_gpu``
    spec: dict[str, Any]             #: the job spec (``spec.json``)
    weights: dict[str, np.ndarray] | None
    runtime_env: dict[str, Any]      #: the user's runtime_env (rlworkbench adds its parts when submitting)
    ship_code: bool
    stop_grace: float
    mirror: bool | None
    local_run_dir: Path              #: where ``run.logdir`` is: the job's own directory if storage is shared
    metadata: dict[str, str] = field(default_factory=dict)


def plan_submission(spec: RunSpec) -> Submission:
    """Checks ``spec`` and its options for a run on a cluster; see the module docstring."""
    options = dict(spec.options)
    job = {key: options.pop(key, default) for key, default in JOB_SETTINGS.items()}
    if not isinstance(spec.env, str):
        raise ConfigError("a cluster job makes its env from a Gymnasium id (a factory cannot travel as JSON; "
                          "register the env in a module the job imports)", argument="env",
                          expected="a registered env id", got=spec.env_name)
    if spec.agent is None:  # the config is checked here, as a local run checks it when it makes the agent
        cls = agent_class(spec.config.get("type"))
        validate_config(spec.config, cls.schema, cls.defaults)
    target, options, workers = _job_target(spec, options)
    stop_grace = _positive_number(job["stop_grace"], "stop_grace")
    runtime_env = job["runtime_env"] or {}
    if not isinstance(runtime_env, dict):
        raise ConfigError("bad runtime_env", argument="runtime_env", expected="a dict (Ray's runtime_env) or None",
                          got=type(runtime_env).__name__)
    if job["mirror"] not in (None, True, False):
        raise ConfigError("bad mirror setting", argument="mirror", expected="None, True or False", got=job["mirror"])
    run_name = spec.run_name or f"{spec.stem}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
    cluster_logdir = job["cluster_logdir"] or (str(spec.logdir.resolve()) if _is_loopback(job["address"])
                                               else REMOTE_LOGDIR)
    resume = spec.context.resume_from  # the run directory on the cluster a resumed run goes on in
    submission_id = f"rlworkbench-{run_name}" + ("" if resume is None else f"-resume-{secrets.token_hex(2)}")
    settings = {name: getattr(spec, name) for name in RUN_SETTINGS}
    job_spec = {"submission_id": submission_id, "name": spec.name, "config": spec.config, "target": target,
                "settings": {**settings, "run_name": run_name}, "options": options, "logdir": str(cluster_logdir),
                "resume": None if resume is None else str(resume)}
    metadata = {METADATA_KEY: _version(), "name": spec.name, "env": spec.env, "backend": spec.backend,
                "timesteps": str(spec.timesteps), "target": target, "workers": str(workers),
                "run_name": run_name, "logdir": str(spec.logdir.resolve()), "cluster_logdir": str(cluster_logdir)}
    return Submission(address=job["address"], auth_token=job["auth_token"], submission_id=submission_id,
                      target=target, spec=job_spec, weights=_weights(spec.agent), runtime_env=dict(runtime_env),
                      ship_code=bool(job["ship_code"]), stop_grace=stop_grace, mirror=job["mirror"],
                      local_run_dir=spec.logdir.resolve() / run_name, metadata=metadata)


def job_runtime_env(submission: Submission, package: Path) -> dict[str, Any]:
    """The user's runtime_env plus rlworkbench's parts: its code (``ship_code``) and the job package as
    ``py_modules``, unbuffered output, the stop grace (``RAY_JOB_STOP_WAIT_TIME_S``) and no run record from the
    job's inner run (the notebook's Run publishes the job's) as ``env_vars``."""
    env = dict(submission.runtime_env)
    modules = list(env.get("py_modules") or [])
    if submission.ship_code:
        modules.append(str(PACKAGE_DIR))
    env["py_modules"] = [*modules, str(package)]
    env["env_vars"] = {"PYTHONUNBUFFERED": "1", "RAY_USAGE_STATS_ENABLED": "0", "RLWORKBENCH_RUNS_DIR": "off",
                       "RAY_JOB_STOP_WAIT_TIME_S": str(math.ceil(submission.stop_grace)), **(env.get("env_vars") or {})}
    env["excludes"] = [*(env.get("excludes") or []), "__pycache__", "*.pyc"]
    return env


def entrypoint(submission: Submission) -> str:
    from rlworkbench.workbench.cluster.job_package import package_name

    return f"python -m rlworkbench.workbench.cluster.job {package_name(submission.submission_id)}"


def _job_target(spec: RunSpec, options: dict[str, object]) -> tuple[str, dict[str, object], int]:
    """The target inside the job, its options and the number of workers: ``ray`` with its checked settings, or
    with ``workers=0`` a local worker (``multi_gpu`` when ``devices`` are given)."""
    from rlworkbench.execution.ray.plans import plan_for
    from rlworkbench.execution.ray.settings import DEFAULTS, ray_settings

    unknown = sorted(key for key in options if key not in DEFAULTS and key != "devices")
    if unknown:
        raise ConfigError("unknown settings for a cluster run", argument=", ".join(unknown),
                          expected=sorted([*DEFAULTS, *JOB_SETTINGS, "devices"]), got=unknown)
    if options.get("workers") == 0 and not isinstance(options["workers"], bool):
        extra = sorted(key for key in options if key not in ("workers", "devices"))
        if extra:
            raise ConfigError("workers=0 runs a local worker in the job: Ray settings do not apply",
                              argument=", ".join(extra), expected="no Ray settings with workers=0", got=extra)
        devices = options.get("devices")
        return ("local", {}, 0) if devices is None else ("multi_gpu", {"devices": devices}, 0)
    ray_options = {key: value for key, value in options.items() if key != "devices"}
    if ray_options.get("address") is not None:
        raise ConfigError("a cluster job joins the cluster it runs in", argument="address",
                          expected="the dashboard's http(s):// address only", got=ray_options["address"])
    settings = ray_settings(spec.config, **ray_options)  # a bad value is a ConfigError here, before the job goes
    plan_for(spec.config.get("type"), settings["plan"])  # so is an agent type without a plan, or a wrong plan
    return "ray", {**options, "address": "auto"}, int(settings["workers"])


def _weights(agent: Any) -> dict[str, np.ndarray] | None:
    """A built prototype's variables but its replay memory (the job's agent starts with an empty one)."""
    if agent is None or getattr(agent, "executor", None) is None:
        return None
    return {name: value for name, value in agent.get_weights().items() if not name.startswith("memory/")}


def _is_loopback(address: Any) -> bool:
    return isinstance(address, str) and urlparse(address).hostname in LOOPBACK_HOSTS


def _positive_number(value: object, argument: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"bad {argument}", argument=argument, expected="a finite number > 0", got=repr(value))
    return float(value)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rlworkbench")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown"


AGENT_WAIT_SECONDS = 60.0  #: how long a submission waits for a head whose job agent is not ready yet


def submit_when_ready(client: Any, wait: float = AGENT_WAIT_SECONDS, **job: object) -> str:
    """``client.submit_job(**job)``, tried again for up to ``wait`` s while the head answers that no job agent is
    available (a head just started, or too busy to register its agent): that refusal is transient."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return client.submit_job(**job)
        except Exception as error:
            if "No available agent" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(1.0)
