"""PPO and IMPALA with a recurrent (LSTM) policy: the agent classes a config whose ``policy/network`` holds an
``lstm`` layer builds (``PPOAgent(config, ...)`` / ``Agent.from_config`` pick them; the type stays ``ppo`` /
``impala``).

Both keep per environment the state each step acted with (:class:`~.recurrent_acting.RowStates`) and learn from
fixed-length sequences (:class:`~.sequence_buffer.SequenceBuffer`) that start from the stored state of their first
step; inside a sequence the graph zeroes the state where an episode begins (``resets``). A return that bootstraps
takes ``V(next state)`` from the state after its step, recomputed by the learner over the sequence.

PPO's minibatches are whole sequences of ``update/sequence_length`` steps (a divisor of ``rollout_length``;
default: the whole rollout per environment): each starts from the learner's own state at that step of the
rollout (recomputed before the epochs with the weights that acted, so the first epoch sees exactly the acting
states), with no padding and no burn-in — every step of a chunk is learnt from and no step is seen twice.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rlworkbench import nest
from rlworkbench.agents.agent import PREPROCESSED
from rlworkbench.agents.impala import ImpalaAgent, SequenceContext
from rlworkbench.agents.impala_graph import ImpalaGraph
from rlworkbench.agents.input_checks import batch_key, check_rows
from rlworkbench.agents.ppo import BATCH_KEYS, PPOAgent
from rlworkbench.agents.ppo_graph import PPOGraph
from rlworkbench.agents.ppo_rollout import Rollout
from rlworkbench.agents.protocols import Arrays
from rlworkbench.agents.recurrent_acting import RecurrentActing, RowStates, State, with_time_axis
from rlworkbench.agents.sequence_buffer import SequenceBuffer, Sequences
from rlworkbench.agents.transitions import check_batch_keys
from rlworkbench.core.builder import OutputSpaceOf
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, Space


def recurrent_spaces(agent: PPOAgent | ImpalaAgent, spaces: dict[str, Space | OutputSpaceOf],
                     ) -> dict[str, Space | OutputSpaceOf]:
    """A root's input spaces with states and actions as sequences, plus ``internal_states`` and ``resets``."""
    spaces = dict(spaces)
    spaces["states"] = agent.state_space.with_batch_rank().with_time_rank()
    spaces["actions"] = agent.action_space.with_batch_rank().with_time_rank()
    spaces["internal_states"] = agent.root.policy.internal_state_space
    spaces["resets"] = BoolBox(add_batch_rank=True, add_time_rank=True)
    return spaces


def _as_sequences(value: Arrays, shape: tuple[int, int]) -> Arrays:
    """Flat ``(num_envs * length, ...)`` leaves as ``(num_envs, length, ...)``."""
    return nest.map_structure(lambda leaf: np.asarray(leaf).reshape(*shape, *np.shape(leaf)[1:]), value)


def _state_rows(states: State, rows: np.ndarray) -> State:
    """The rows ``rows`` (flat step numbers) of a per-step state ``(num_envs, length, units)``."""
    return tuple(leaf.reshape(-1, leaf.shape[-1])[rows] for leaf in states)


class RecurrentLearning(RecurrentActing):
    """What recurrent PPO and IMPALA share: acting and observing with the per-row state."""

    sequences: SequenceBuffer

    def _start_recurrence(self) -> None:
        self.sequences = SequenceBuffer()
        self.row_states = RowStates(self.internal_state_space)

    def _observe(self, env_ids: list[Hashable], starts: np.ndarray, preprocessed_states: Arrays, actions: Arrays,
                 rewards: np.ndarray, terminals: np.ndarray, next_states: Arrays) -> None:
        """Keeps each row's step with the state it acted with (env ids are the rows acted on)."""
        flat_next = {key: np.asarray(leaf) for key, leaf in self.state_space.flatten(next_states).items()}
        acted_with, acting_resets = self.row_states.rows_acted_with(env_ids)
        self.row_states.observed(env_ids, terminals, flat_next)
        self.sequences.add(env_ids, starts, self.preprocessed_space.flatten(preprocessed_states),  # type: ignore[attr-defined]
                           self.action_space.flatten(actions), rewards, terminals, flat_next, acted_with,  # type: ignore[attr-defined]
                           acting_resets)

    def _values_from(self, step_states: State, next_states: Arrays, rows: np.ndarray) -> np.ndarray:
        """``V(next_states)`` of the steps ``rows``, each from the state after its step."""
        preprocessed = with_time_axis(self.preprocess(next_states))
        values = self.api.get_state_values(preprocessed, _state_rows(step_states, rows),
                                           np.zeros((len(rows), 1), bool))
        return np.asarray(values, np.float32)[:, 0]

    def _checked_state(self, given: object, rows: int) -> State:
        """An outside batch's ``internal_states``: ``rows`` finite rows of the policy's recurrent state."""
        with batch_key("internal_states"):
            if not isinstance(given, (tuple, list)):
                raise SpaceError("a recurrent state is a tuple (h, c) of arrays", expected="(h, c)",
                                 got=type(given).__name__)
            try:
                state = tuple(np.asarray(leaf, np.float32) for leaf in given)
            except (ValueError, TypeError) as error:
                raise SpaceError(f"a recurrent state is arrays of numbers: {error}") from None
            check_rows(state, self.internal_state_space.strip_ranks(), rows, "internal_states", float_bounds=False)
        return state

    def reset(self) -> None:
        super().reset()  # type: ignore[misc]  # the agent class's
        self.row_states.clear()


@dataclass
class SequenceRollout(Rollout):
    """A :class:`Rollout` of ``(num_envs, length)`` sequences without padding, with their start states, resets
    and (once evaluated) the learner's state after every step."""

    initial_states: State = ()
    resets: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    step_states: State = ()


class RecurrentPPOAgent(RecurrentLearning, PPOAgent):
    """PPO with a recurrent policy (see the module docstring): ``update()`` learns once every environment seen has
    ``rollout_length`` steps; minibatches are shuffled whole sequences of ``sequence_length`` steps."""

    def make_root(self) -> PPOGraph:
        root = super().make_root()
        self.root = root  # (internal_state_space reads it)
        self._start_recurrence()
        update = self.config["update"]
        length = update["rollout_length"]
        self.sequence_length = update["sequence_length"] or length
        if length % self.sequence_length:
            raise ConfigError("sequences tile the rollout: sequence_length divides rollout_length",
                              key_path="update/sequence_length", expected=f"a divisor of {length}",
                              got=update["sequence_length"])
        return root

    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        spaces = recurrent_spaces(self, super().root_input_spaces())
        for name in ("prev_log_probs", "advantages", "value_targets", "prev_values"):
            spaces[name] = FloatBox(add_batch_rank=True, add_time_rank=True)
        return spaces

    def get_state_values(self, states: Arrays, preprocess: bool = True,
                         internal_states: State | None = None) -> np.ndarray:
        """``V(states)`` for a batch of states acting from ``internal_states`` (zeros when left out)."""
        self._require_built("get_state_values")
        preprocessed = self.preprocess(states) if preprocess else states
        batch = len(next(iter(self.preprocessed_space.flatten(preprocessed).values())))
        state = self.initial_state(batch) if internal_states is None else tuple(internal_states)
        values = self.api.get_state_values(with_time_axis(preprocessed), state, np.zeros((batch, 1), bool))
        return np.asarray(values)[:, 0]

    def wants_update(self) -> bool:
        return self.sequences.ready(self.config["update"]["rollout_length"])

    def update(self, batch: Mapping[str, Arrays] | None = None, out_of_bounds: str | None = None,
               ) -> dict[str, float]:
        """Learns from ``rollout_length`` collected steps of every environment, or from ``batch``: sequences as
        :meth:`PPOAgent.update` takes them, plus ``internal_states`` (the state each row starts from; left out:
        zeros)."""
        self._require_built("update")
        length = self.config["update"]["rollout_length"]
        sequences = self.sequences.take(length) if batch is None else self._external(batch, out_of_bounds)
        metrics = self._learn(self._rollout(sequences))
        self.updates += 1
        return metrics

    def _external(self, batch: Mapping[str, Arrays], out_of_bounds: str | None) -> Sequences:
        check_batch_keys(batch, BATCH_KEYS, optional=("internal_states",))
        rollout = self._external_rollout({key: batch[key] for key in BATCH_KEYS}, out_of_bounds)  # checked
        num_envs, length = np.asarray(batch["rewards"]).shape
        if length % self.sequence_length:
            raise SpaceError("a batch's sequences tile into sequence_length steps", argument="batch",
                             key_path="rewards", expected=f"a length divisible by {self.sequence_length}",
                             got=f"length {length}")
        given = batch.get("internal_states")
        initial = self.initial_state(num_envs) if given is None else self._checked_state(given, num_envs)
        starts = np.ones((num_envs, length), bool)
        starts[:, 1:] = ~rollout.continues.reshape(num_envs, length)[:, :-1]
        flat = lambda value: {key: leaf.reshape(num_envs, length, *leaf.shape[1:]) for key, leaf in value.items()}  # noqa: E731
        return Sequences(flat(rollout.states), flat(rollout.actions), rollout.rewards.reshape(num_envs, length),
                         rollout.terminals.reshape(num_envs, length), flat(rollout.next_states), starts,
                         rollout.continues.reshape(num_envs, length), initial)

    def _rollout(self, sequences: Sequences) -> SequenceRollout:
        num_envs, length = sequences.rewards.shape

        def flat(value: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            return {key: leaf.reshape(num_envs * length, *leaf.shape[2:]) for key, leaf in value.items()}

        continues = sequences.continues.reshape(-1)
        terminals = sequences.terminals.reshape(-1)
        initial = sequences.initial_states or self.initial_state(num_envs)
        return SequenceRollout(flat(sequences.states), flat(sequences.actions), sequences.rewards.reshape(-1),
                               terminals, flat(sequences.next_states), continues, ~terminals & ~continues,
                               np.arange(num_envs * length).reshape(num_envs, length), initial_states=initial,
                               resets=sequences.resets)

    def _evaluate_rollout(self, rollout: Rollout, states: Arrays, actions: Arrays) -> tuple[np.ndarray, np.ndarray]:
        assert isinstance(rollout, SequenceRollout)
        shape = rollout.index.shape
        states, actions = _as_sequences(states, shape), _as_sequences(actions, shape)
        log_probs, values = self.api.evaluate(states, actions, rollout.initial_states, rollout.resets)
        rollout.step_states = tuple(self.api.step_states(states, rollout.initial_states, rollout.resets))
        return np.asarray(log_probs).reshape(-1), np.asarray(values).reshape(-1)

    def _values_after(self, rollout: Rollout, rows: np.ndarray) -> np.ndarray:
        assert isinstance(rollout, SequenceRollout)
        next_states = self.state_space.unflatten({k: v[rows] for k, v in rollout.next_states.items()})
        return self._values_from(rollout.step_states, next_states, rows)

    def _minibatches(self, rollout: Rollout) -> Iterator[np.ndarray]:
        """``(sequences, sequence_length)`` step numbers per minibatch: each environment's rollout cut into
        sequences, ``num_epochs`` shuffled passes of ``num_minibatches`` sets of whole sequences."""
        config, size = self.config["update"], self.sequence_length
        chunks = rollout.index.reshape(-1, size)
        for _ in range(config["num_epochs"]):
            order = self.shuffle_rng.permutation(len(chunks))
            yield from (chunks[part] for part in np.array_split(order, min(config["num_minibatches"], len(chunks))))

    def _minibatch(self, rollout: Rollout, inputs: Mapping[str, Arrays], rows: np.ndarray) -> dict[str, object]:
        assert isinstance(rollout, SequenceRollout)
        batch = super()._minibatch(rollout, inputs, rows)
        length = rollout.index.shape[1]
        envs, steps = np.divmod(rows[:, 0], length)
        before = np.maximum(rows[:, 0] - 1, 0)  # the state after the step before each sequence's first
        start = [np.where((steps == 0)[:, None], initial[envs], step[before])
                 for initial, step in zip(rollout.initial_states, _flat_states(rollout.step_states))]
        batch["internal_states"] = tuple(start)
        batch["resets"] = rollout.resets.reshape(-1)[rows]
        return batch

    def load_extra_state(self, state: Mapping[str, object]) -> None:
        super().load_extra_state(state)
        self.sequences.clear()
        self.row_states.clear()


def _flat_states(states: State) -> State:
    return tuple(leaf.reshape(-1, leaf.shape[-1]) for leaf in states)


class RecurrentImpalaAgent(RecurrentLearning, ImpalaAgent):
    """IMPALA with a recurrent policy (see the module docstring): sequences and fragments carry the state of their
    first step (``internal_states`` in an outside batch; left out: zeros); v-trace is unchanged."""

    def make_root(self) -> ImpalaGraph:
        root = super().make_root()
        self.root = root
        self._start_recurrence()
        return root

    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        spaces = recurrent_spaces(self, super().root_input_spaces())
        spaces["sequence_states"] = PREPROCESSED  # (states are sequences already)
        spaces["sequence_actions"] = spaces["actions"]
        return spaces

    optional_batch_keys = ("behaviour_log_probs", "internal_states")

    def _context(self, initial_states: Sequence[np.ndarray] | None, resets: np.ndarray) -> SequenceContext:
        initial = (self.initial_state(len(resets)) if initial_states is None
                   else self._checked_state(initial_states, len(resets)))
        return initial, resets

    def _values_after(self, states: Arrays, next_states: Arrays, rows: np.ndarray,
                      context: SequenceContext) -> np.ndarray:
        initial, resets = _unpack(context)
        return self._values_from(tuple(self.api.step_states(states, initial, resets)), next_states, rows)

    def _log_probs_now(self, states: Arrays, actions: Arrays, context: SequenceContext) -> np.ndarray:
        initial, resets = _unpack(context)
        log_probs, _ = self.api.evaluate(states, actions, initial, resets)
        return np.asarray(log_probs, np.float32).reshape(-1)

    def _sequence_inputs(self, context: SequenceContext) -> dict[str, object]:
        initial, resets = _unpack(context)
        return {"internal_states": initial, "resets": resets}


def _unpack(context: SequenceContext) -> tuple[State, np.ndarray]:
    """The start state and resets of a recurrent agent's sequences (always given here)."""
    if context is None:
        raise SpaceError("recurrent sequences need their start state and resets", argument="sequences",
                         expected="(internal_states, resets)", got=None)
    return context


PPOAgent.recurrent_variant = RecurrentPPOAgent
ImpalaAgent.recurrent_variant = RecurrentImpalaAgent
