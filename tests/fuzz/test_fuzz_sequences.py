"""Hostile outside sequence batches for PPO's and IMPALA's ``update(batch)`` (and IMPALA's
``behaviour_log_probs``), and ``observe(..., on_bad="skip")`` under the observe mutations of the input fuzz.

A batch case ends in a typed error naming a place, leaving every variable and counter as it was, or in an update
whose metrics are finite — or whose non-finite steps the numerical guard refused and counted — with finite
weights. A skip case ends in a typed error that stored nothing, or stores only the good rows:
the rows it took plus the rows it counted as skipped are the rows it was given, and the memory holds no
non-finite number."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.errors import RLWorkbenchError
from rlworkbench.spaces import FloatBox, IntBox
from tests.fuzz.fuzz_helpers import assert_names_a_place, assert_refused_cleanly
from tests.fuzz.test_fuzz_inputs import AGENTS, OTHER_MUTATIONS, STATE_MUTATIONS, action_mutations

NAN, INF = math.nan, math.inf
SMALL = [{"type": "dense", "units": 8, "activation": "tanh"}]
ENVS, LENGTH = 2, 3


def learner(kind: str, continuous: bool) -> Agent:
    policy = {"network": SMALL, "value_network": SMALL, "distribution": "squashed_normal" if continuous else None}
    update = {"rollout_length": LENGTH, **({"num_minibatches": 2} if kind == "ppo" else {})}
    actions = FloatBox(-1.0, 1.0, shape=(2,)) if continuous else IntBox(2)
    return Agent.from_config({"type": kind, "policy": policy, "update": update},
                             state_space=FloatBox(-1.0, 1.0, shape=(4,)), action_space=actions, backend="torch",
                             seed=0).build()


def good_batch(continuous: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    chain = rng.uniform(-1, 1, (ENVS, LENGTH + 1, 4)).astype(np.float32)
    actions = (rng.uniform(-0.9, 0.9, (ENVS, LENGTH, 2)).astype(np.float32) if continuous
               else rng.integers(0, 2, (ENVS, LENGTH)))
    return {"states": chain[:, :-1].copy(), "actions": actions, "rewards": np.ones((ENVS, LENGTH), np.float32),
            "terminals": np.zeros((ENVS, LENGTH), bool), "next_states": chain[:, 1:].copy()}


def hostile(shape: tuple[int, ...], dtype: type) -> list[object]:
    """Bad values for a key whose leaves are ``shape`` (``(num_envs, length, ...)``) of ``dtype``."""
    zeros = np.zeros(shape, dtype)
    cases: list[object] = [
        np.full(shape, NAN), np.full(shape, INF), np.full(shape, -INF), zeros[0], zeros[:, 0], zeros[:1],
        zeros[:, :1], np.zeros((ENVS + 1, *shape[1:]), dtype), np.zeros((ENVS, LENGTH + 1, *shape[2:]), dtype),
        zeros[..., None], np.zeros((0, *shape[1:]), dtype), np.zeros((ENVS, 0, *shape[2:]), dtype),
        np.full(shape, "x"), None, 3.0, [[0.0] * LENGTH, [0.0] * (LENGTH - 1)], {"a": zeros}, (zeros, zeros),
        np.full(shape, 1e30, np.float64), np.full(shape, 7), np.full(shape, -1), np.full(shape, 2**40),
    ]
    one_nan = zeros.astype(np.float64)
    one_nan.reshape(-1)[1] = NAN
    return [*cases, one_nan]


def batch_cases(kind: str, continuous: bool) -> list[tuple[str, dict[str, object]]]:
    good = good_batch(continuous)
    keys = list(good) + (["behaviour_log_probs"] if kind == "impala" else [])
    shapes = {key: np.shape(good[key]) if key in good else (ENVS, LENGTH) for key in keys}
    cases = [(f"{key}={_short(value)}", {**good, key: value}) for key in keys
             for value in hostile(shapes[key], np.float32)]
    cases += [(f"terminals={value!r}", {**good, "terminals": np.full((ENVS, LENGTH), value)})
              for value in (2, 0.5, "no", -1)]
    cases += [(f"drop {key}", {k: v for k, v in good.items() if k != key}) for key in good]
    cases += [("unknown key", {**good, "no_such_key": good["rewards"]}),
              ("rows of other envs", {**good, "states": good["states"][::-1].copy()})]
    if continuous:
        cases += [(f"actions out of bounds {value}", {**good, "actions": np.full((ENVS, LENGTH, 2), value,
                                                                                  np.float32)})
                  for value in (1.5, -3.0, 1e30)]
    return cases


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # (rewards of 1e30: the guard refuses)
@pytest.mark.parametrize("continuous", [False, True], ids=["discrete", "squashed_normal"])
@pytest.mark.parametrize("kind", ["ppo", "impala"])
def test_hostile_sequence_batches_are_refused_cleanly_or_learnt_from(kind, continuous, tally):
    agent = learner(kind, continuous)
    for mutation, batch in batch_cases(kind, continuous):
        case = f"{kind}/{'continuous' if continuous else 'discrete'}: update({mutation})"
        before, updates, refused = agent.get_weights(), agent.updates, agent.guard_counts.refused_steps
        try:
            metrics = agent.update(batch)
        except RLWorkbenchError as error:
            assert_refused_cleanly(agent, before, error, case)
            assert agent.updates == updates, f"{case}: counted an update"
        else:  # finite inputs may still overflow (rewards of 1e30): the guard refuses those steps, and counts them
            finite = all(np.isfinite(value) for value in metrics.values())
            assert finite or agent.guard_counts.refused_steps > refused, f"{case}: {metrics}"
            assert all(np.all(np.isfinite(value)) for value in agent.get_weights().values()), case
        tally["sequence batch mutations"] += 1
        if kind == "impala":
            try:
                log_probs = agent.behaviour_log_probs({k: v for k, v in batch.items() if k != "behaviour_log_probs"})
            except RLWorkbenchError as error:
                assert_names_a_place(error, case.replace("update", "behaviour_log_probs"))
            else:
                assert np.all(np.isfinite(log_probs)), case
            tally["sequence batch mutations"] += 1


@pytest.mark.parametrize("kind", sorted(AGENTS))
def test_observe_skip_takes_the_good_rows_or_nothing(kind, tally):
    env_id, config = AGENTS[kind]()
    agent = Agent.from_env(env_id, config, backend="torch", seed=0).build()
    rng = np.random.default_rng(0)
    states = rng.uniform(-0.05, 0.05, (2, 4 if kind != "sac" else 3)).astype(np.float32)
    actions = agent.get_actions(states)
    valid = {"states": states, "actions": actions, "rewards": np.ones(2, np.float32),
             "terminals": np.zeros(2, bool), "next_states": (states + 0.01).astype(np.float32)}
    cases = [("states", value) for value in STATE_MUTATIONS] + \
            [("next_states", value) for value in STATE_MUTATIONS] + \
            [("actions", value) for value in action_mutations("sac" if kind == "sac" else "dqn")] + \
            [(argument, value) for argument, values in OTHER_MUTATIONS.items() for value in values]
    half_nan = states.copy()
    half_nan[1] = NAN
    cases += [("states", half_nan), ("next_states", half_nan), ("rewards", [1.0, INF]), ("terminals", [0, 3])]
    for argument, mutated in cases:
        sac_sized = kind == "sac" and isinstance(mutated, np.ndarray) and mutated.shape[-1:] == (4,)
        value = mutated[..., :3] if sac_sized else mutated  # the same mutation for Pendulum's 3 numbers
        case = f"{kind}: observe({argument}={_short(value)}, on_bad='skip')"
        before = {name: array.copy() for name, array in agent.get_weights().items() if name.startswith("memory/")}
        counts = (agent.timesteps, agent.guard_counts.skipped_rows)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (one per kind of fault: test_observe_skip counts them)
                agent.observe(**{**valid, argument: value}, on_bad="skip")
        except RLWorkbenchError as error:
            assert_names_a_place(error, case)
            after = agent.get_weights()
            for name, array in before.items():
                assert np.array_equal(after[name], array, equal_nan=True), f"{case}: changed {name}"
            assert (agent.timesteps, agent.guard_counts.skipped_rows) == counts, f"{case}: counted"
        else:
            taken = agent.timesteps - counts[0]
            skipped = agent.guard_counts.skipped_rows - counts[1]
            assert taken + skipped == 2, f"{case}: took {taken}, skipped {skipped} of 2 rows"
            for name, array in agent.get_weights().items():
                if name.startswith("memory/records") and array.dtype.kind == "f":
                    assert np.all(np.isfinite(array)), f"{case}: stored a non-finite {name}"
        tally["observe skip mutations"] += 1
    assert agent.guard_counts.skipped_rows > 0


def _short(value: object) -> str:
    text = repr(value if not isinstance(value, np.ndarray) else f"array{value.shape}{value.reshape(-1)[:2]}")
    return text[:60]
