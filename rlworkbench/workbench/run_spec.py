"""What to train, independent of where: a :class:`RunSpec` made from a notebook prototype and settings.

A prototype is an agent (an :class:`~rlworkbench.agents.protocols.ActorLearner`: ``get_actions``, ``observe``,
``wants_update``, ``update``, ``reset``; built or not), a config dict, the path of a JSON config, a shipped
config's name (``"dqn_cartpole"``), or an earlier run's :class:`~rlworkbench.workbench.run_result.RunResult` (its
config, on its env unless ``env=`` says otherwise). Settings are checked here, once, for every target; what a
spec does not know goes to :attr:`RunSpec.options` for the target to accept or refuse.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench.agents.config import config_name, load_config
from rlworkbench.agents.protocols import ActorLearner
from rlworkbench.core.backend import available_backends, default_backend_name
from rlworkbench.errors import ConfigError
from rlworkbench.execution.checkpoint_schedule import CheckpointSchedule
from rlworkbench.workbench.run_identity import config_label, run_source
from rlworkbench.workbench.run_result import RUN_FILE, RunResult

if TYPE_CHECKING:
    from rlworkbench.workbench.targets.pacing import Pacer

DEFAULT_ENV = "CartPole-v1"


@dataclass
class RunContext:
    """What a run started by another part of rlworkbench (an experiment's trial) carries beyond its settings."""

    run_id: str | None = None          #: its record's id, the same for every part of a resumed run (None: new)
    labels: dict[str, object] = field(default_factory=dict)  #: experiment, trial, seed, params: in record and run.json
    pacer: Pacer | None = None         #: holds the training thread at env-step milestones (None: runs free)
    run_dir: Path | None = None        #: the run directory to (go on) write in (None: a new one under ``logdir``)
    resume_from: Path | None = None    #: a checkpoint with progress to go on from (agent + :mod:`progress` files)
    target: str | None = None          #: the promote target it runs on (written to run.json: a resume reuses it)
    resumes: list[dict[str, object]] = field(default_factory=list)  #: the earlier parts' ends, for run.json


@dataclass
class RunSpec:
    """A training run as settings: the agent (config or object), the env, and how long and how to log it."""

    name: str                          #: stem of the run directory: config or agent type name
    config: dict[str, object]             #: the agent config (written to ``config.json``); ``{}`` if the agent has none
    agent: ActorLearner | None = None  #: the prototype agent, trained in place; ``None``: made from ``config``
    env: str | Callable[[], Any] = DEFAULT_ENV  #: Gymnasium id or a zero-argument env factory
    backend: str = field(default_factory=default_backend_name)  #: ``RLWORKBENCH_BACKEND`` or ``"torch"``
    timesteps: int = 10_000            #: env steps over all sub-envs
    num_envs: int = 1
    vector_mode: str = "sync"
    seed: int | None = None
    logdir: Path = Path("runs")        #: parent of the run directory
    checkpoint_every: int | str | dict[str, float] | None = None  #: env steps, "500 updates", "60 s" (None: never)
    summaries_every: int | None = None  #: updates between TensorBoard variable histograms/scalars; None: none
    threads: int | None = 1            #: intra-op threads of the backend (process-wide); ``None``: leave them
    progress: bool = False             #: also print the worker's tqdm bar (the Run's widget shows one anyway)
    run_name: str | None = None        #: the run directory's exact name; None: ``<stem>-<YYYYmmdd-HHMMSS>``
    options: dict[str, object] = field(default_factory=dict)  #: settings only some targets know
    context: RunContext = field(default_factory=RunContext)  #: set by rlworkbench itself, never a setting
    config_label: str = ""             #: the config as cards show it (see :mod:`.run_identity`); "": ``name``
    source: str | None = None          #: the notebook or script that started the run (None: not known)

    @property
    def env_name(self) -> str:
        return self.env if isinstance(self.env, str) else getattr(self.env, "__name__", type(self.env).__name__)

    @property
    def stem(self) -> str:
        """``<name>-<env>-<backend>``: the run directory's name before its timestamp (as ``rlworkbench train``)."""
        return f"{self.name}-{self.env_name}-{self.backend}"

    def new_run_dir(self) -> Path:
        """Makes the run's directory under :attr:`logdir` (``run_name``, else ``<stem>-<time>``) — or takes the
        context's — with ``config.json`` and ``run.json`` (env, backend, seed, timesteps, labels); returns it."""
        from rlworkbench.execution.train import start_run_dir

        run_dir = self.context.run_dir
        if run_dir is None:
            run_dir = start_run_dir(self.logdir, self.stem, self.config, name=self.run_name)
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "config.json").write_text(json.dumps(self.config, indent=2))
        (run_dir / RUN_FILE).write_text(json.dumps(self.description(), default=str, indent=2))
        return run_dir

    def description(self) -> dict[str, object]:
        """What ``run.json`` says of the run: enough to read and compare it later, from its directory alone."""
        return {"name": self.name, "config_label": self.config_label or self.name, "env": self.env_name,
                "backend": self.backend, "seed": self.seed, "timesteps": self.timesteps, "num_envs": self.num_envs,
                "labels": self.context.labels, "source": self.source, "created": time.time(),
                "run_id": self.context.run_id, "target": self.context.target, "settings": self.settings(),
                "resumes": self.context.resumes}

    def settings(self) -> dict[str, object]:
        """The settings a resume needs again (JSON-able ones: an env factory or a device object is left out)."""
        given = {name: getattr(self, name) for name in SETTINGS if name not in ("logdir", "run_name", "progress")}
        given.update(self.options)
        return {key: value for key, value in given.items() if _json_able(value)}


SETTINGS = tuple(f.name for f in fields(RunSpec)
                 if f.name not in ("name", "config", "agent", "options", "context", "config_label", "source"))


def make_spec(prototype: Any, **settings: object) -> RunSpec:
    """A checked :class:`RunSpec` from a prototype and settings (see the module docstring)."""
    known = {key: settings.pop(key) for key in list(settings) if key in SETTINGS}
    named = False  # whether the name says which config (a file's stem, a shipped config's or the dict's own name)
    if isinstance(prototype, RunResult):  # an earlier run (an experiment's best, say): its config again
        known.setdefault("env", prototype.env or DEFAULT_ENV)
        spec = RunSpec(name=prototype.name, config=load_config(prototype.config))
    elif isinstance(prototype, ActorLearner):
        spec = _agent_spec(prototype, known)
    elif isinstance(prototype, (Mapping, str, Path)):
        config = load_config(dict(prototype) if isinstance(prototype, Mapping) else prototype)
        name = config_name(prototype, config)
        spec = RunSpec(name=name, config=config)
        named = not isinstance(prototype, Mapping) or "name" in config
    else:
        raise ConfigError("promote() takes an agent, a config dict, a JSON config path or a shipped config name",
                          argument="prototype", expected="Agent, dict, str or Path", got=type(prototype).__name__)
    for key, value in known.items():
        setattr(spec, key, value)
    spec.options = settings
    _check(spec)
    spec.config_label, spec.source = config_label(spec.name, spec.config, named), run_source()
    return spec


def _agent_spec(agent: ActorLearner, settings: dict[str, object]) -> RunSpec:
    if "env" not in settings:
        raise ConfigError("an agent prototype does not know its env: pass env=", argument="env",
                          expected="a Gymnasium env id or an env factory", got="nothing")
    own_backend = getattr(agent, "backend", None)
    backend = settings.get("backend", own_backend or default_backend_name())
    if own_backend is not None and backend != own_backend:
        raise ConfigError("the agent was made for another backend", argument="backend", expected=own_backend,
                          got=backend)
    settings["backend"] = backend
    name = getattr(agent, "type_name", "") or type(agent).__name__.lower()
    config = getattr(agent, "config", None)
    return RunSpec(name=name, config=dict(config) if isinstance(config, Mapping) else {}, agent=agent)


def _check(spec: RunSpec) -> None:
    if not isinstance(spec.env, str) and not callable(spec.env):
        raise ConfigError("bad env", argument="env", expected="a Gymnasium env id or a zero-argument factory",
                          got=type(spec.env).__name__)
    _positive_int(spec.timesteps, "timesteps")
    _positive_int(spec.num_envs, "num_envs")
    CheckpointSchedule.parse(spec.checkpoint_every)  # env steps, or "500 updates", "60 s": checked here
    if spec.summaries_every is not None:
        _positive_int(spec.summaries_every, "summaries_every")
    if spec.threads is not None:
        _positive_int(spec.threads, "threads")
    if spec.seed is not None and not isinstance(spec.seed, (int, np.integer)):
        raise ConfigError("bad seed", argument="seed", expected="int or None", got=repr(spec.seed))
    if spec.vector_mode not in ("sync", "async"):
        raise ConfigError("unknown vector env mode", argument="vector_mode", expected="sync or async",
                          got=repr(spec.vector_mode))
    backends = list(available_backends())
    if spec.backend not in backends:
        raise ConfigError("unknown or uninstalled backend", argument="backend", expected=backends,
                          got=repr(spec.backend))
    if spec.run_name is not None and not isinstance(spec.run_name, str):
        raise ConfigError("bad run name", argument="run_name", expected="str or None", got=repr(spec.run_name))
    spec.logdir = Path(spec.logdir).expanduser().absolute()  # records and the lab read it from other folders
    spec.progress = bool(spec.progress)


def _json_able(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _positive_int(value: object, argument: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"bad {argument}", argument=argument, expected="int >= 1", got=repr(value))
