"""The :class:`Agent` facade: a root component assembled from library components, plus the little Python an
algorithm needs around its graph (schedules, counters, n-step bookkeeping, checkpoints).

An agent type is a subclass registered with ``@register_agent("name")`` that declares a JSON ``schema`` and
``defaults`` for its config and implements the hooks ``make_root``, ``root_input_spaces``, ``_act``,
``_act_preprocessed``, ``_observe``, ``wants_update`` and ``update``. Everything numerical runs in the root
component, called through the executor's typed handle ``self.api.<root API method>``, which hides the backend:
nothing here (or in a subclass) asks which backend it runs on. What callers need of an agent is stated as
protocols in :mod:`rlworkbench.agents.protocols`.

Every root takes raw states and preprocesses them itself (``preprocess``: the identity without preprocessors);
acting returns the preprocessed states with the actions, and storing a transition returns its preprocessed next
states, so each observation is preprocessed once (:mod:`rlworkbench.agents.preprocessed_states`). Spaces of
preprocessed inputs are the ``preprocess`` method's own output space (:data:`PREPROCESSED`): no side build.
"""

from __future__ import annotations

import abc
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rlworkbench import nest
from rlworkbench.agents import towers
from rlworkbench.agents.actor_critic_root import has_recurrent_policy
from rlworkbench.agents.bad_rows import Transitions, bad_rows
from rlworkbench.agents.checkpoint import read_checkpoint, write_checkpoint
from rlworkbench.agents.config import load_config, validate_config
from rlworkbench.agents.guard_counts import GuardCounts
from rlworkbench.agents.input_checks import INPUT_CHOICES, check_rows, finite_per_row, terminals_of
from rlworkbench.agents.preprocessed_states import PreprocessedStates
from rlworkbench.agents.protocols import Arrays, Mask
from rlworkbench.agents.random_streams import is_stream, new_stream, reseed_generators
from rlworkbench.agents.registry import agent_class
from rlworkbench.agents.transitions import EpisodeTracker
from rlworkbench.core.builder import OutputSpaceOf, build
from rlworkbench.drawable import pretty_with_draw_hint
from rlworkbench.errors import BuildError, CheckpointError, ConfigError, SpaceError
from rlworkbench.spaces import ContainerSpace, Space, as_space

if TYPE_CHECKING:
    import gymnasium

    from rlworkbench.core.component import Component
    from rlworkbench.core.executor import Executor
    from rlworkbench.core.graph import ComponentGraph

COUNTERS = ("timesteps", "updates", "episodes")
PREPROCESSED = OutputSpaceOf("preprocess")
"""The space of preprocessed-state inputs of a root: whatever its ``preprocess`` API method returns."""


class Agent(abc.ABC):
    """An RL agent: ``get_actions`` / ``observe`` / ``wants_update`` / ``update``, weights and checkpoints.

    ``states`` are NumPy values of ``state_space`` batched over environments (one row per env); a single
    unbatched state is accepted by ``get_actions`` and gives a single action. Counters: ``timesteps`` (env steps
    observed), ``updates`` (gradient updates) and ``episodes`` (episodes seen ending). ``config`` is the
    validated config, defaults filled in.
    """

    _repr_pretty_ = pretty_with_draw_hint  # in IPython: repr plus how to get the picture

    type_name: ClassVar[str] = ""
    schema: ClassVar[dict[str, Any]] = {}
    defaults: ClassVar[dict[str, Any]] = {}
    #: The root API method that acts deterministically on a batch of preprocessed states — what
    #: ``get_actions(states, explore=False)`` runs after preprocessing. :meth:`export_model` exports it, after
    #: the root's ``preprocess`` when the agent has a preprocessor. ``None``: the agent type has none.
    acting_api_method: ClassVar[str | None] = "act_greedy"
    #: Whether observed continuous actions must lie in the action space's bounds. Agents that store the raw
    #: sample of an unbounded distribution (PPO's, IMPALA's Gaussian; the env clips it) set False: their actions
    #: need only be finite.
    float_actions_in_bounds: ClassVar[bool] = True
    #: Whether the agent carries a recurrent state between acting steps (then workers pass ``episode_starts``).
    recurrent: ClassVar[bool] = False
    wants_episode_starts: ClassVar[bool] = False

    def __new__(cls, config: Mapping[str, object] | str | Path, *args: object, **kwargs: object) -> Agent:
        """The class ``config`` needs (:meth:`variant_for`: e.g. PPO's recurrent variant for a policy network with
        an ``lstm`` layer), so ``PPOAgent(config, ...)`` and ``Agent.from_config`` agree."""
        return super().__new__(cls.variant_for(config))

    #: The subclass for a policy network with an ``lstm`` (declared on the agent type itself, e.g. PPO's, by
    #: :mod:`rlworkbench.agents.recurrent_learning`; not inherited by its subclasses).
    recurrent_variant: ClassVar[type[Agent] | None] = None

    @classmethod
    def variant_for(cls, config: Mapping[str, object] | str | Path) -> type[Agent]:
        """The subclass that runs ``config``: the type's :attr:`recurrent_variant` when its policy network holds an
        ``lstm``, else the class itself."""
        variant = cls.__dict__.get("recurrent_variant")
        if variant is not None and has_recurrent_policy(config):
            return variant
        return cls

    def __init__(self, config: Mapping[str, Any] | str | Path, state_space: Any, action_space: Any,
                 backend: str | None = None, seed: int | None = None):
        self.config = validate_config(load_config(config), self.schema, self.defaults)
        self.state_space = as_space(state_space, "state_space").strip_ranks()
        self.action_space = as_space(action_space, "action_space").strip_ranks()
        self.backend, self.seed = backend, seed
        self.executor: Executor | None = None
        self.towers: Any = None  # replica towers of a multi-device build
        self.api: Any = None  # the executor's handle on the root API methods, once built
        self.timesteps = self.updates = self.episodes = 0
        self.guard_counts = GuardCounts()  # rows observe skipped, optimizer steps the numerical guard refused
        self.episode_tracker = EpisodeTracker()
        self.preprocessed_states = PreprocessedStates()
        self.preprocessor: Component | None = None  # make_root sets it when the config has preprocessing
        self.root = self.make_root()

    # ----- construction -----------------------------------------------------------------------------------------
    @classmethod
    def from_config(cls, path_or_dict: Mapping[str, Any] | str | Path, *, state_space: Any, action_space: Any,
                    backend: str | None = None, seed: int | None = None) -> Agent:
        """The agent a config describes (its ``type`` picks the registered class); unbuilt — call ``build()``.
        Spaces are rlworkbench or Gymnasium spaces."""
        config = load_config(path_or_dict)
        target = agent_class(config.get("type"))
        if not issubclass(target, cls):
            raise ConfigError(f"config type '{config.get('type')}' is not a {cls.__name__}", key_path="type",
                              expected=cls.type_name or cls.__name__, got=config.get("type"))
        return target(config, state_space, action_space, backend=backend, seed=seed)

    @classmethod
    def from_env(cls, env_id_or_env: str | gymnasium.Env, config: Mapping[str, Any] | str | Path,
                 backend: str | None = None, seed: int | None = None) -> Agent:
        """:meth:`from_config` with the spaces of a Gymnasium env (an id, an env or a vector env)."""
        observation_space, action_space = env_spaces(env_id_or_env)
        return cls.from_config(config, state_space=observation_space, action_space=action_space, backend=backend,
                               seed=seed)

    @classmethod
    def from_checkpoint(cls, directory: str | Path, *, state_space: Any, action_space: Any,
                        backend: str | None = None, seed: int | None = None) -> Agent:
        """An agent built from a checkpoint's config, with its weights and counters loaded."""
        _, state = read_checkpoint(directory)
        return cls.from_config(state.get("config", {}), state_space=state_space, action_space=action_space,
                               backend=backend, seed=seed).build().load(directory)

    def build(self, device_map: Mapping[str, str] | None = None, devices: int | Sequence[str] | None = None,
              api_methods: Sequence[str] | None = None) -> Agent:
        """Builds the root component on the backend (all its API methods; spaces from the state and action
        spaces); returns self. ``device_map`` places components by path below the root (glob patterns, as for
        :func:`build`).

        ``devices`` runs every update synchronously on replica towers, one per device (``["cuda:0", "cuda:1"]``,
        ``["cpu", "cpu"]``, TF's ``["/CPU:0", "/CPU:1"]``; an int N: the first N GPUs): the update batch is split
        into shards, the gradients of all towers are summed into one update, applied once and copied to every
        tower (see :mod:`rlworkbench.components.strategies`). ``None`` takes the config's ``execution/devices``
        (one device when that is absent too). The agent's own components go on the first tower's device unless
        the root has a device or ``device_map`` places it (key ``""``). Weights and checkpoints are the same as on
        one device.

        ``api_methods`` builds only those root API methods (an acting copy: :meth:`acting_api_methods`); the others
        are absent from ``api``, so such an agent cannot learn by mistake.
        """
        self.towers, device_map = towers.prepare_towers(self, devices, device_map)
        spaces = self.root_input_spaces()
        if api_methods is not None:
            wanted = {param for name in api_methods for param in self.root.api_methods[name].params}
            spaces = {key: space for key, space in spaces.items() if key in wanted}
        self.executor = build(self.root, spaces, backend=self.backend, seed=self.seed, device_map=device_map,
                              api_methods=api_methods)
        self.api = self.executor.api
        self.sync_towers()
        self.after_build()
        return self

    @property
    def devices(self) -> list[str] | None:
        """The devices of the update's replica towers (None: built on one device)."""
        return towers.devices_of(self.towers)

    def update_batch_rows(self) -> int | None:
        """How many rows an update's batch has, where the config fixes it (checked against the tower count)."""
        return None

    def check_rows_for_towers(self, rows: int, argument: str = "batch") -> None:
        """A batch of ``rows`` rows must give every replica tower at least one (checked before any change)."""
        towers.check_rows(self.towers, rows, argument)

    def sync_towers(self) -> None:
        """Copies the agent's weights into its replica towers (done by ``build``, ``set_weights`` and ``load``;
        for code that assigns variables some other way). Nothing without towers."""
        towers.refresh(self.towers)

    @property
    def preprocessed_space(self) -> Space | None:
        """The space of a batch of preprocessed states (known once built; the state space without preprocessing)."""
        return None if self.executor is None else self.executor.graph.output_space("preprocess")

    # ----- hooks for agent types ------------------------------------------------------------------------------
    @abc.abstractmethod
    def make_root(self) -> Component:
        """The root component, assembled from library components as the config says."""

    @abc.abstractmethod
    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        """Spaces of the root's API parameters; :data:`PREPROCESSED` for preprocessed states."""

    def acting_api_methods(self) -> list[str]:
        """The root API methods an acting copy needs (a sampler's): preprocessing and acting; agent types add
        their own (DQN: priorities; IMPALA: its behaviour log-probs)."""
        return [name for name in self.root.api_methods if name.startswith(("preprocess", "act"))]

    def after_build(self) -> None:  # noqa: B027 (an optional hook, empty by default)
        """Runs once the executor exists (e.g. to copy the online weights into a target network)."""

    @abc.abstractmethod
    def _act(self, states: Arrays, explore: bool) -> tuple[Arrays, Arrays]:
        """``(actions, preprocessed_states)`` for a batch of raw states (one call of the root)."""

    @abc.abstractmethod
    def _act_preprocessed(self, preprocessed_states: Arrays, explore: bool) -> Arrays:
        """Actions for a batch of states preprocessed already."""

    @abc.abstractmethod
    def _observe(self, env_ids: list[Hashable], starts: np.ndarray, preprocessed_states: Arrays, actions: Arrays,
                 rewards: np.ndarray, terminals: np.ndarray, next_states: Arrays) -> Any:
        """Takes a batch of transitions (``starts`` marks rows that begin a new trajectory): states preprocessed,
        next states raw. Returns the preprocessed next states where it made them (else None)."""

    @abc.abstractmethod
    def wants_update(self) -> bool:
        """Whether the agent's schedule asks for an :meth:`update` now."""

    @abc.abstractmethod
    def update(self, batch: Mapping[str, Arrays] | None = None) -> dict[str, float]:
        """One update from the agent's memory (or from ``batch``); returns metrics by name."""

    def extra_state(self) -> dict[str, Any]:
        """JSON-able state besides weights and counters to keep in checkpoints (none by default)."""
        return {}

    def load_extra_state(self, state: Mapping[str, Any]) -> None:  # noqa: B027 (optional hook)
        """Restores what :meth:`extra_state` returned."""

    # ----- acting and observing ------------------------------------------------------------------------------
    def get_actions(self, states: Arrays, explore: bool = True, preprocess: bool = True,
                    episode_starts: Mask | None = None) -> Arrays:
        """Actions for a batch of states (one per env), or one action for one unbatched state. ``explore=False``
        acts greedily; ``preprocess=False`` takes states that went through :meth:`preprocess` already.
        ``episode_starts`` (one bool per row, optional) says which rows begin an episode: a recurrent agent resets
        their state (it tells them itself otherwise, from what it observed); others ignore it."""
        self._require_built("get_actions")
        space = self.state_space if preprocess else self.preprocessed_space.strip_ranks()
        states, single = _as_batch(states, space, "states")
        self._note_episode_starts(None if episode_starts is None or single else episode_starts)
        if not preprocess:
            actions = self._act_preprocessed(states, explore)
        else:
            known = self._known_preprocessed(states)
            if known is not None:
                actions = self._act_preprocessed(known, explore)
            else:
                actions, known = self._act(states, explore)
            if known is not None and self.preprocessor is not None:
                self.preprocessed_states.remember("acted", states, known)
        return nest.map_structure(lambda leaf: leaf[0], actions) if single else actions

    def _note_episode_starts(self, episode_starts: Mask | None) -> None:  # noqa: B027 (an optional hook)
        """Takes the ``episode_starts`` of the coming acting step (recurrent agents)."""

    def preprocess(self, states: Arrays) -> Arrays:
        """A batch of states through the agent's preprocessor stack (as they are when it has none)."""
        self._require_built("preprocess")
        return states if self.preprocessor is None else self.api.preprocess(states)

    def preprocessed(self, states: Arrays) -> Arrays:
        """``states`` preprocessed, reusing the form that acting or observing just computed for equal states (one
        call to the preprocessor stack otherwise): for code that records transitions beside the agent."""
        known = self._known_preprocessed(states)
        return known if known is not None else self.preprocess(states)

    def remember_preprocessed(self, states: Arrays, preprocessed: Arrays) -> None:
        """Keeps ``preprocessed`` as the form of ``states`` (the next acting step's states, most often), so that
        acting on equal states reuses it instead of preprocessing again."""
        if self.preprocessor is not None:
            self.preprocessed_states.remember("next", states, preprocessed)

    def _known_preprocessed(self, states: Arrays) -> Any | None:
        """The preprocessed form of ``states`` without a call: the states themselves when there is no preprocessor,
        else what acting or observing just computed for equal states (None if neither did)."""
        return states if self.preprocessor is None else self.preprocessed_states.lookup(states)

    def observe(self, states: Arrays, actions: Arrays, rewards: Arrays, terminals: Arrays, next_states: Arrays,
                env_id: int | Sequence[int] | None = None, on_bad: str | None = None) -> None:
        """Takes one transition per environment (rows of a batch; or one unbatched transition).

        ``terminals`` means *terminated*: pass truncated episodes with ``terminals=False`` and the true final
        observation as ``next_states``, so the agent bootstraps from it. ``env_id`` names the environments of the
        rows (default ``0 .. n-1``), for workers that pass a subset of their envs.

        ``on_bad`` says what a bad row does — a state, next state or action outside its space (NaN, infinity, an
        integer out of range), a reward that is not finite, a terminal that is not a boolean: ``"raise"`` (the
        default, unless the config's ``execution/on_bad`` says otherwise) refuses the call with a SpaceError;
        ``"skip"`` drops those rows, warns once per kind of fault (:class:`~rlworkbench.errors.SkippedInput`) and
        counts them (``observe/skipped`` in the update metrics). A batch that is wrong as a whole (structure,
        shapes, row counts) is refused either way, and a refused call stores nothing.
        """
        self._require_built("observe")
        on_bad = self.input_choice("on_bad", on_bad)
        states, single = _as_batch(states, self.state_space, "states")
        next_states, _ = _as_batch(next_states, self.state_space, "next_states")
        count = len(next(iter(self.state_space.flatten(states).values())))
        try:
            actions = nest.map_structure(lambda a: np.asarray(a)[None] if single else np.asarray(a), actions)
        except (ValueError, TypeError) as error:  # ragged lists
            raise SpaceError(f"actions are not arrays: {error}", argument="actions") from None
        env_ids = list(range(count)) if env_id is None else list(np.atleast_1d(env_id).tolist())
        if len(env_ids) != count:
            raise SpaceError("one env_id per row", argument="env_id", expected=count, got=len(env_ids))
        rows = Transitions(states, actions, rewards, terminals, next_states, env_ids)
        try:
            rewards, terminals = self._checked(rows)  # everything is checked before anything is stored
        except SpaceError:
            if on_bad == "raise":
                raise
            bad, faults = bad_rows(rows, self.state_space, self.action_space, self.float_actions_in_bounds)
            self.guard_counts.skip(bad, faults)
            rows = rows.without(bad, self.state_space, self.action_space)
            if not rows.env_ids:
                return
            rewards, terminals = self._checked(rows)  # (what no row is to blame for stays an error)
        states, actions, next_states, env_ids = rows.states, rows.actions, rows.next_states, rows.env_ids
        count = len(env_ids)
        preprocessed = self.preprocessed(states)  # one call only for states nobody acted on here
        starts, ended = self.episode_tracker.step(env_ids, self.state_space.flatten(states), terminals,
                                                  self.state_space.flatten(next_states))
        next_preprocessed = self._observe(env_ids, starts, preprocessed, actions, rewards, terminals, next_states)
        if next_preprocessed is not None:
            self.remember_preprocessed(next_states, next_preprocessed)
        self.timesteps += count
        self.episodes += ended

    def _checked(self, rows: Transitions) -> tuple[np.ndarray, np.ndarray]:
        """Checks every row of ``rows``; returns their rewards and terminals as arrays."""
        count = len(rows.env_ids)
        for argument, value, space in (("states", rows.states, self.state_space), ("next_states", rows.next_states,
                                       self.state_space), ("actions", rows.actions, self.action_space)):
            check_rows(value, space, count, argument,
                       float_bounds=argument == "actions" and self.float_actions_in_bounds)
        return finite_per_row(rows.rewards, count, "rewards"), terminals_of(rows.terminals, count)

    def input_choice(self, name: str, given: str | None) -> str:
        """What to do with bad input (``on_bad``, ``out_of_bounds``: :data:`~.input_checks.INPUT_CHOICES`): ``given``,
        else the config's ``execution/<name>``, else the first choice."""
        choices = INPUT_CHOICES[name]
        value = given if given is not None else (self.config.get("execution") or {}).get(name, choices[0])
        if value not in choices:
            raise ConfigError(f"{name} is one of {', '.join(choices)}", argument=name, expected=list(choices),
                              got=repr(value))
        return value

    def guard_metrics(self) -> dict[str, float]:
        """The cumulative ``observe/skipped`` and ``update/refused`` counts, for every update's metrics."""
        return self.guard_counts.metrics()

    def reset(self) -> None:
        """Starts new episodes in every environment: forgets episode-local state (pending n-step transitions)."""
        self.episode_tracker.reset()
        self.preprocessed_states.clear()

    # ----- weights and checkpoints -----------------------------------------------------------------------------
    def get_weights(self, trainable_only: bool = False) -> dict[str, np.ndarray]:
        """Every variable of the root (networks, optimizer state, memory) as NumPy, by scoped name."""
        return self._require_built("get_weights").get_weights(trainable_only)

    def set_weights(self, weights: Mapping[str, Any], strict: bool = True) -> None:
        """Assigns variables by scoped name; checks all names and shapes first (``strict``: all must be given)."""
        self._require_built("set_weights").set_weights(dict(weights), strict)
        self.sync_towers()

    def save(self, directory: str | Path) -> Path:
        """Writes a checkpoint (all variables, counters, config) atomically into ``directory``; returns it.

        The random generators move to a new stream whose seed is saved, so a loaded agent draws what this one
        draws next (see :mod:`rlworkbench.agents.random_streams`). Trainable weights that are not finite (NaN,
        inf: a diverged update) are a CheckpointError naming them — never a silent NaN checkpoint."""
        weights = self.get_weights()
        broken = sorted(name for name in self.root.variables(trainable_only=True)  # names only: read once, above
                        if not np.all(np.isfinite(weights[name])))
        if broken:
            raise CheckpointError("refusing to save non-finite weights (the training diverged)", argument="directory",
                                  expected="finite trainable weights", got=f"NaN/inf in {broken[:6]}")
        extra = self.extra_state()
        stream = new_stream(self.seed, self.timesteps, self.updates)
        reseed_generators(self.root, self.executor.backend, stream)
        state = {"agent_type": self.type_name, "config": self.config, "extra": extra, "random_stream": stream,
                 "counters": {name: int(getattr(self, name)) for name in COUNTERS},
                 "guard_counts": self.guard_counts.state()}
        return write_checkpoint(directory, weights, state)

    def load(self, directory: str | Path) -> Agent:
        """Restores a checkpoint written by :meth:`save`: variables, counters, the random stream; episode-local
        state is reset. Checks everything first — agent type, variable names, shapes and dtypes, counters — and
        raises a CheckpointError leaving the agent unchanged if anything does not fit."""
        current = self.get_weights()
        arrays, state = read_checkpoint(directory)
        if state.get("agent_type") != self.type_name:
            raise CheckpointError("the checkpoint is of another agent type", key_path="agent_type",
                                  expected=self.type_name, got=repr(state.get("agent_type")))
        missing, unknown = sorted(set(current) - set(arrays)), sorted(set(arrays) - set(current))
        if missing or unknown:
            raise CheckpointError("the checkpoint's variables differ from the agent's", expected="the same names",
                                  got=f"missing {missing[:8]}, unknown {unknown[:8]}")
        for name, array in arrays.items():
            if array.shape != current[name].shape or array.dtype != current[name].dtype:
                raise CheckpointError("a variable in the checkpoint does not fit", key_path=name,
                                      expected=f"{current[name].shape} {current[name].dtype}",
                                      got=f"{array.shape} {array.dtype}")
        counters = state.get("counters", {})
        if sorted(counters) != sorted(COUNTERS) or not all(isinstance(v, int) for v in counters.values()):
            raise CheckpointError("bad counters in the checkpoint", key_path="counters", expected=list(COUNTERS),
                                  got=counters)
        stream = state.get("random_stream")
        if not is_stream(stream):
            raise CheckpointError("bad random stream in the checkpoint", key_path="random_stream",
                                  expected="an int >= 0", got=repr(stream))
        guard_counts = GuardCounts.checked_state(state.get("guard_counts"))
        self.set_weights(arrays)
        for name in COUNTERS:
            setattr(self, name, counters[name])
        self.guard_counts.load(guard_counts)
        self.load_extra_state(state.get("extra", {}))
        reseed_generators(self.root, self.executor.backend, stream)
        self.reset()
        return self

    def export_model(self, path: str | Path, format: str | None = None) -> Path:
        """Writes the deterministic acting path (preprocessing, policy, greedy action: what ``get_actions(states,
        explore=False)`` computes) as a standalone model at ``path``, with the current weights, plus a JSON
        sidecar ``<path>.json`` (format, input and output spaces). Formats depend on the backend (see
        ``executor.export_formats``; ``None``: its default), e.g. ``"torchscript"``/``"onnx"`` or
        ``"saved_model"``; another raises a ConfigError listing them. The model takes ``states`` (batched) and
        gives ``actions``. Returns ``path``."""
        executor = self._require_built("export_model")
        acting = self.acting_api_method
        if acting is None or acting not in executor.graph.root_inputs:
            raise BuildError("this agent's root has no deterministic acting API method to export",
                             component=self.root.path, api_method=acting, expected="a built root API method named "
                             "by acting_api_method", got=sorted(executor.graph.root_inputs))
        methods = ([] if self.preprocessor is None else ["preprocess"]) + [acting]  # raw states in
        return executor.export(methods, path, format, input_names=["states"], output_name="actions",
                               metadata={"agent_type": self.type_name, "timesteps": self.timesteps,
                                         "updates": self.updates})

    # ----- helpers ----------------------------------------------------------------------------------------------
    @property
    def graph(self) -> ComponentGraph:
        """The built component graph (for summaries and drawing)."""
        return self._require_built("graph").graph

    def _require_built(self, what: str) -> Executor:
        if self.executor is None:
            raise BuildError(f"{what} needs a built agent: call build() first", component=self.root.path)
        return self.executor

    def __repr__(self) -> str:
        state = "built" if self.executor is not None else "not built"
        return (f"{type(self).__name__}({self.state_space!r} -> {self.action_space!r}, {state}, "
                f"timesteps={self.timesteps}, updates={self.updates}, episodes={self.episodes})")


def env_spaces(env_id_or_env: str | gymnasium.Env) -> tuple[Any, Any]:
    """``(observation space, action space)`` of one env of a Gymnasium id, env or vector env (an id's env is made
    and closed again)."""
    import gymnasium

    env = gymnasium.make(env_id_or_env) if isinstance(env_id_or_env, str) else env_id_or_env
    try:
        return (getattr(env, "single_observation_space", env.observation_space),
                getattr(env, "single_action_space", env.action_space))
    finally:
        if isinstance(env_id_or_env, str):
            env.close()


def _as_batch(value: Any, space: Space, argument: str) -> tuple[Any, bool]:
    """``(batch, single)``: ``value`` as NumPy leaves with a batch axis (added when ``value`` is one unbatched
    value of ``space``)."""
    try:
        if isinstance(space, ContainerSpace):
            value = nest.map_structure(np.asarray, value)
            flat, leaves = space.flatten(value), space.flatten()
        else:
            value = np.asarray(value)
            flat, leaves = {"": value}, {"": space}
    except (ValueError, TypeError, KeyError) as error:  # ragged lists, another structure
        raise SpaceError(f"not a value or batch of the space: {error}", argument=argument,
                         expected=str(space), got=repr(value)[:80]) from None
    key, leaf_space = next(iter(leaves.items()))
    shape = np.shape(flat[key])
    if len(shape) == leaf_space.rank:
        return nest.map_structure(lambda leaf: leaf[None], value), True
    if len(shape) != leaf_space.rank + 1:
        raise SpaceError("needs one value or a batch of values of the space", argument=argument,
                         key_path=key or None, expected=f"rank {leaf_space.rank} or {leaf_space.rank + 1} "
                         f"(core shape {leaf_space.shape})", got=f"shape {shape}")
    return value, False
