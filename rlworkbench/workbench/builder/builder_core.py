"""``BuilderCore(prototype)``: the graph builder without widgets — edit an agent's config, build it, and read what
changed, the component graph, the errors and the export. It imports no ipywidgets; :class:`GraphBuilder` is this
core with its widgets (a form, the explorer, tabs) as its view.

Every change is validated: a ConfigError is kept in :attr:`field_errors` under the JSON path it names and the last
good graph stays. Otherwise the agent is made again and built, and what changed since the previous build is in
:attr:`changes` (components added, changed, removed; edges whose spaces changed). A failed build keeps its partial
graph (:attr:`graph`, :attr:`svg`) with the stuck component highlighted. A code-composed component (no config)
is explored as it is: pick devices and :meth:`rebuild`, every rebuild is marked the same way. ::

    core = BuilderCore("dqn_cartpole", env="CartPole-v1")
    core.set("policy/dueling", True)     # True: it built; core.changes.added, core.status
    core.set("update/batch_size", 0)     # False: core.field_errors == {"update/batch_size": "..."}
    core.export("my_dqn.json")           # the config of the last good build

From code: :meth:`set` (a value by JSON path), :meth:`apply` (the :attr:`draft` as it is), :meth:`set_backend`,
:meth:`rebuild`, :meth:`export`, :meth:`export_code`, :meth:`promote`, and the sweep draft's :meth:`tick` …
(:class:`~.sweep_actions.SweepActions`). The view (:attr:`view`, see :mod:`.core_view`) hears of every change.
"""

from __future__ import annotations

import copy
import json
import pprint
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rlworkbench.agents.agent import Agent
from rlworkbench.core.backend import available_backends, default_backend_name
from rlworkbench.core.builder import resolve_devices
from rlworkbench.errors import ConfigError, RLWorkbenchError
from rlworkbench.visualize.graph_diff import GraphChanges, GraphSnapshot, compare, snapshot
from rlworkbench.workbench.builder.core_view import HeadlessView
from rlworkbench.workbench.builder.export_name import default_export_name, shipped_config_path
from rlworkbench.workbench.builder.form_schema import FORM_LEFT_OUT, form_schema
from rlworkbench.workbench.builder.preload import paused
from rlworkbench.workbench.builder.source import BuilderSource, resolve_source
from rlworkbench.workbench.builder.sweep_actions import SweepActions, env_id, next_cell
from rlworkbench.workbench.builder.sweep_draft import SweepDraft
from rlworkbench.workbench.explorer_core import ExplorerCore
from rlworkbench.workbench.explorer_render import error_paths, error_text
from rlworkbench.workbench.run_spec import DEFAULT_ENV

NO_ENV: object = object()  #: ``env`` not given: an agent brings its own spaces, a config gets :data:`DEFAULT_ENV`


class BuilderCore(SweepActions):
    """Builds ``prototype`` — a shipped config's name, a config dict or JSON path, an agent (built or not) or a
    code-composed Component / Executor — and lets you edit it.

    ``env``: the Gymnasium id (or env) whose spaces a config is built for (``"CartPole-v1"``; an agent brings its
    own spaces); ``backend``: ``"torch"`` or ``"tf"`` (switchable); ``seed``: the build seed; ``input_spaces``: a
    code-composed component's, for rebuilds.
    """

    def __init__(self, prototype: object, *, env: object = NO_ENV, backend: str | None = None, seed: int = 0,
                 input_spaces: Mapping[str, object] | None = None):
        self.env = env if env is not NO_ENV else (None if isinstance(prototype, Agent) else DEFAULT_ENV)
        self.source: BuilderSource = resolve_source(prototype, self.env)  # (an agent brings its own spaces)
        self.backend = backend or getattr(self.source.agent, "backend", None) or default_backend_name()
        self.seed = seed
        self.view: Any = HeadlessView()  #: who shows the state (see :mod:`.core_view`)
        self.draft: dict[str, object] | None = copy.deepcopy(self.source.config)  #: the config being edited
        self.config: dict[str, object] | None = None  #: the last config that built (None: none has yet)
        self.agent: Agent | None = None  #: the agent of that config
        self.changes: GraphChanges | None = None  #: what the latest build changed (None: not known)
        self.field_errors: dict[str, str] = {}  #: JSON path → message of the latest ConfigError
        self.error: BaseException | None = None  #: what the latest change raised (None: it built)
        self.status, self.status_is_error = "", False
        self.redraw_seconds: float | None = None  #: the latest change → redraw time (validate, build, draw)
        self.builds = 0
        self.run: object = None  #: the latest Run promoted from the builder
        self.experiment: object = None  #: the latest Experiment launched from the sweep draft
        self.sweep_draft: SweepDraft | None = None  #: the sweep's fields, settings and space (with a config)
        self._snapshot: GraphSnapshot | None = None
        self._kept = {k: v for k, v in (self.source.config or {}).items() if k in FORM_LEFT_OUT}
        first_error: BaseException | None = None
        if self.source.config is not None:
            given = self.source.agent
            first = given if given is not None and (backend is None or backend == given.backend) \
                else self._make_agent(self.source.config)
            try:
                if first.executor is None:
                    first.build()
                self.agent, self.config = first, copy.deepcopy(self.source.config)
                self.backend = first.executor.backend.name
            except Exception as error:  # kept below, with the stuck component
                first_error = error
            self.explorer: Any = ExplorerCore(first)  #: the tree shown (GraphBuilder: its GraphExplorer)
            schema = form_schema(self.source.agent_class.schema)
            self.sweep_draft = SweepDraft(schema, self.config, env=env_id(self.env))
        else:
            self.explorer = ExplorerCore(self.source.component, input_spaces=input_spaces, backend=backend)
        self.explorer.after_rebuild = self._after_explorer_rebuild
        self._unsubscribe = self.explorer.target.root.on_change(self._on_tree_event)
        if first_error is not None:
            self._build_failed(first_error, time.perf_counter(), first)
        else:
            self._snapshot = self._snap()
            self._say(f"{self.source.name}: built on {self.backend}" if self.explorer.target.built
                      else self.source.name)

    # ----- the state ------------------------------------------------------------------------------------------
    @property
    def has_config(self) -> bool:
        """Whether a config is edited (False: a code-composed component)."""
        return self.source.config is not None

    @property
    def graph(self) -> object:
        """The component graph shown: the latest build's (a failed build's partial graph)."""
        return self.explorer.target.graph

    @property
    def svg(self) -> str:
        """The drawing of :attr:`graph`, with the changes marked (the stuck component in red after a failure)."""
        return self.explorer.svg

    # ----- changing the config --------------------------------------------------------------------------------
    def set(self, path: str, value: object) -> bool:
        """Sets the config value at a JSON path (``"update/batch_size"``, ``"policy/network"`` …) and applies it at
        once; returns whether the new config built."""
        self._require_form("set")
        config = self._current_draft()
        _assign(config, [p for p in path.split("/") if p], copy.deepcopy(value), path)
        self.draft = config
        self.view.write_draft(config)
        return self.apply()

    def apply(self) -> bool:
        """Validates the config being edited, builds it and marks the changes; returns whether it built. A
        ConfigError goes to :attr:`field_errors` and the last good graph stays; a failed build keeps its partial
        graph."""
        self._require_form("apply")
        with self.view.working(f"building on {self.backend}"), paused(self.backend):
            return self._apply()

    def _apply(self) -> bool:
        started = time.perf_counter()
        self.view.clear_errors()
        self.field_errors = {}
        try:
            self.draft = self._current_draft()
            config = {**self.draft, **self._kept}
            agent = self._make_agent(config)
        except ConfigError as error:
            return self._config_failed(error)
        device_map = self._device_map_for(agent)
        try:
            agent.build(device_map=device_map)
        except Exception as error:
            return self._build_failed(error, started, agent)
        self.explorer.device_map.clear()  # entries for components the new tree lacks are gone
        self.explorer.device_map.update(device_map)
        self.agent, self.config = agent, config
        self._require_sweeps("apply").use_config(config)
        self._redraw(agent, started)
        return True

    def set_backend(self, backend: str) -> bool:
        """Builds the same config (or component) on ``backend`` (``"torch"``/``"tf"``); returns whether it built.
        If it does not build, the builder stays on the backend it had."""
        if backend not in available_backends():
            raise ConfigError("unknown backend", argument="backend", expected=list(available_backends()),
                              got=backend)
        previous, snapshot_before = self.backend, self._snapshot
        self.backend = backend
        self._snapshot = None  # device names differ between backends ('cpu', '/CPU:0'): nothing to compare
        with self.view.working(f"building on {backend}"), paused(backend):
            if self.has_config:
                built = self.apply()
            else:
                self.explorer.target.explicit_backend = backend
                try:
                    self.rebuild()
                    built = True
                except Exception:  # shown by the explorer and the status line
                    built = False
        if not built:
            self.backend, self._snapshot = previous, snapshot_before
            self.explorer.target.explicit_backend = None if self.has_config else previous
            self.view.after_build()
        return built

    def rebuild(self) -> object:
        """Builds the shown tree again with the explorer's device map (weights kept) and marks what changed;
        raises what the build raised."""
        with self.view.working(f"building on {self.backend}"), paused(self.backend):
            return self.explorer.rebuild()

    # ----- actions --------------------------------------------------------------------------------------------
    def export(self, path: str | Path | None = None) -> dict[str, object]:
        """The config of the current graph (the last one that built) as a dict; with ``path``, also written there
        as a JSON file (never over a shipped config's file: a ConfigError)."""
        config = copy.deepcopy(self._require_config("export"))
        shipped = None if path is None else shipped_config_path(path)
        if shipped is not None:
            raise ConfigError(f"that file is the shipped config '{shipped}': export the edited config under another "
                              "name", argument="path", expected=f"e.g. {default_export_name(shipped)}", got=str(path))
        if path is not None:
            Path(path).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return config

    def export_code(self) -> str:
        """The config as Python source: ``config = {...}``."""
        return f"config = {pprint.pformat(self._require_config('export'), sort_dicts=False, width=100)}"

    def export_cell(self) -> str:
        """Puts :meth:`export_code` into a new notebook cell below the current one (from a cell you run)."""
        return next_cell(self.export_code())

    def promote(self, to: str = "local", **settings: object) -> object:
        """Trains the current config with :func:`promote` (``to``: ``"local"``, ``"multi_gpu"``, ``"ray"``; the
        builder's env and backend unless given; locally, on the devices picked in the explorer)."""
        from rlworkbench.workbench.promote import promote

        config = self._require_config("promote")
        if self.env is None and "env" not in settings:
            raise ConfigError("promote needs an env: the builder was opened on an agent without one",
                              argument="env", expected="a Gymnasium id, e.g. promote(env='CartPole-v1')", got=None)
        settings = {"env": self.env, "backend": self.backend, "seed": self.seed, **settings}
        prototype: Any = copy.deepcopy(config)
        if self.explorer.device_map and to == "local":  # the devices picked here: an agent built with them
            prototype = self._make_agent(prototype).build(device_map=dict(self.explorer.device_map))
        run = promote(prototype, to=to, **settings)
        self.run = run
        self.view.show_run(run)
        return run

    def show_error(self, error: BaseException) -> None:
        """Shows an error of an action in the status line (and keeps it in :attr:`error`)."""
        self.error = error
        self._say(error_text(error), error=True)

    def no_config_reason(self) -> str:
        """Why there is no config to export or promote (when :attr:`config` is None)."""
        return ("this builder shows a code-composed component" if not self.has_config
                else "no config has built yet: fix the one being edited first")

    def close(self) -> None:
        """Stops listening to the tree."""
        self._unsubscribe()
        self.explorer.close()

    # ----- building -------------------------------------------------------------------------------------------
    def _current_draft(self) -> dict[str, object]:
        shown = self.view.read_draft()
        return copy.deepcopy(shown if shown is not None else self.draft or {})

    def _make_agent(self, config: Mapping[str, object]) -> Agent:
        source = self.source
        return source.agent_class(config, source.state_space, source.action_space, backend=self.backend,
                                  seed=self.seed)

    def _device_map_for(self, agent: Agent) -> dict[str, str]:
        """The explorer's device map, without entries for components the new tree does not have."""
        from rlworkbench.core.backend import get_backend

        kept = {}
        for key, device in self.explorer.device_map.items():
            try:
                resolve_devices(agent.root, {key: device}, get_backend(self.backend))
            except RLWorkbenchError:
                continue
            kept[key] = device
        return kept

    def _redraw(self, agent: Agent | None, started: float) -> None:
        """Marks what changed since the previous build and shows the new one (``agent``: a new agent from the
        config; None: the shown tree was built again)."""
        after = self._snap(agent)
        self.changes = None if after is None else compare(self._snapshot, after, self.explorer.edge_labels)
        self._snapshot = after
        self.error = None
        if agent is not None:
            self._show(agent, changes=self.changes)
        else:
            self.explorer.changes, self.explorer.highlight = self.changes, []
            self.explorer.refresh(keep_status=True)
        self.builds += 1
        self.redraw_seconds = time.perf_counter() - started
        summary = self.changes.summary() if self.changes is not None else "changes not known"
        self._say(f"built on {self.backend} in {self.redraw_seconds:.2f} s · {summary}")
        self.view.after_build()  # (after the status line: the frontend shows it before the tabs' updates)

    def _show(self, target: object, **marks: object) -> None:
        """The explorer shows ``target`` (with ``changes`` / ``highlight``); the builder listens to its tree."""
        self.explorer.look_at(target, **marks)
        self._unsubscribe()
        self._unsubscribe = self.explorer.target.root.on_change(self._on_tree_event)

    def _snap(self, agent: Agent | None = None) -> GraphSnapshot | None:
        target = agent or self.explorer.target.agent or self.explorer.component  # the tree being shown
        try:
            return snapshot(target)
        except RLWorkbenchError:
            return None

    def _config_failed(self, error: ConfigError) -> bool:
        marked = self.view.mark_error(error)
        self.error = error
        self.field_errors = {marked or error.key_path or "": str(error)}
        self._say(f"config error — {error_text(error)} (the graph shows the last good config)", error=True)
        return False

    def _build_failed(self, error: BaseException, started: float, tree: object) -> bool:
        """Shows the tree that failed — its partial graph, the stuck component in red and in view; the last good
        agent stays :attr:`agent`."""
        self.error = error
        stuck = next(iter(error_paths(error)), None)
        try:
            self._show(tree, highlight=[stuck] if stuck else [])
        except Exception:  # the message matters more than the drawing
            pass
        self.explorer.bring_into_view(stuck)
        self.redraw_seconds = time.perf_counter() - started
        self.view.after_build()
        self._say(f"build failed — {error_text(error)}", error=True)
        return False

    # ----- tree events ----------------------------------------------------------------------------------------
    def _on_tree_event(self, event: str, _: object) -> None:
        """A build of the shown tree from elsewhere (``build(...)`` from code after replacing a component):
        marked too. The explorer's own rebuilds report through :meth:`_after_explorer_rebuild`."""
        if event != "built" or self.explorer.rebuilding:
            return
        try:
            self._redraw(None, time.perf_counter())
        except Exception as error:  # an observer of someone else's build: never fail that build
            self.show_error(error)

    def _after_explorer_rebuild(self, error: BaseException | None) -> None:
        if error is not None:
            self.show_error(error)  # the explorer drew it (rolled back to the last good build)
            return
        try:
            self._redraw(None, time.perf_counter())
        except Exception as draw_error:
            self.show_error(draw_error)

    # ----- helpers --------------------------------------------------------------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        self.status, self.status_is_error = text, error
        self.view.said(text, error)

    def _require_form(self, what: str) -> object:
        if not self.has_config:
            raise ConfigError(f"{what} edits a config: this builder shows a code-composed component",
                              argument="prototype", expected="a config or an agent with one",
                              got=type(self.source.component).__name__)
        return self.draft

    def _require_config(self, what: str) -> dict[str, object]:
        if self.config is None:
            raise ConfigError(f"{what} needs a config that builds: {self.no_config_reason()}", argument="prototype",
                              expected="a config that builds", got=self.source.name)
        return self.config

    def __repr__(self) -> str:
        state = "config" if self.has_config else "code-composed"
        return f"{type(self).__name__}({self.source.name!r}, {state}, backend={self.backend!r}, builds={self.builds})"


def _assign(config: object, parts: list[str], value: object, path: str) -> None:
    """Sets ``value`` at ``parts`` inside ``config`` (list indices as digits; the list's length appends)."""
    if not parts:
        raise ConfigError("set needs a path inside the config", argument="path", expected="e.g. 'policy/dueling'",
                          got=path)
    node = config
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(node, list) and part.isdigit() and int(part) <= len(node) - (0 if last else 1):
            index = int(part)
            if last:
                node[index:index + 1] = [value]
            else:
                node = node[index]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            elif part in node:
                node = node[part]
            else:
                raise ConfigError("no such key in the config", key_path=path, expected=sorted(node), got=part)
        else:
            raise ConfigError("no such place in the config", key_path=path, expected="a key or list index",
                              got=part)
