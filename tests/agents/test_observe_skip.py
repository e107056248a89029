"""``observe(..., on_bad="skip")`` drops the rows observe would refuse, warns once per kind of fault and counts them
(``observe/skipped``); ``"raise"`` stays the default; what is wrong with a batch as a whole is refused either way,
storing nothing. Checkpoints keep the count, and ``update/refused``'s (counted in test_agent_numerical_guard)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.errors import CheckpointError, ConfigError, SkippedInput, SpaceError
from rlworkbench.spaces import FloatBox, IntBox

STATES = FloatBox(-1.0, 1.0, shape=(4,))


def dqn(**execution) -> Agent:
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 8, "activation": "relu"}]
    config["memory"]["capacity"] = 64
    config["update"]["batch_size"] = 4
    config["loss"]["n_step"] = 1  # each observed row is a record at once
    if execution:
        config["execution"] = execution
    return Agent.from_config(config, state_space=STATES, action_space=IntBox(2), backend="torch", seed=0).build()


def transitions(rows: int = 4, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    states = rng.uniform(-0.5, 0.5, (rows, 4)).astype(np.float32)
    return {"states": states, "actions": rng.integers(0, 2, rows), "rewards": np.ones(rows, np.float32),
            "terminals": np.zeros(rows, bool), "next_states": (states + 0.01).astype(np.float32)}


def memory_size(agent: Agent) -> int:
    return int(agent.api.get_memory_size())


def records(agent: Agent) -> dict[str, np.ndarray]:
    return {name: value for name, value in agent.get_weights().items() if name.startswith("memory/")}


def observe_quietly(agent: Agent, **arguments) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent.observe(**arguments)
    return [str(w.message) for w in caught if issubclass(w.category, SkippedInput)]


BAD_ROWS = {  # argument -> a row 1 observe refuses
    "states": lambda batch: batch["states"].__setitem__((1, 2), np.nan),
    "next_states": lambda batch: batch["next_states"].__setitem__((1, 0), np.inf),
    "actions": lambda batch: batch["actions"].__setitem__(1, 7),
    "rewards": lambda batch: batch["rewards"].__setitem__(1, np.nan),
    "terminals": lambda batch: batch.__setitem__("terminals", np.array([0, 2, 0, 1])),
}


@pytest.mark.parametrize("argument", sorted(BAD_ROWS))
def test_skip_drops_the_bad_rows_only(argument):
    agent = dqn()
    batch = transitions()
    BAD_ROWS[argument](batch)
    before = records(agent)
    with pytest.raises(SpaceError) as error:  # "raise" is the default: nothing stored
        agent.observe(**batch)
    assert error.value.argument == argument
    for name, value in records(agent).items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
    messages = observe_quietly(agent, **batch, on_bad="skip")
    assert len(messages) == 1 and argument in messages[0]
    assert memory_size(agent) == 3 and agent.timesteps == 3 and agent.guard_counts.skipped_rows == 1
    for name, value in records(agent).items():
        if value.dtype.kind == "f":
            assert np.all(np.isfinite(value)), name
    assert agent.update()["observe/skipped"] == 1.0


def test_each_kind_of_fault_warns_once():
    agent = dqn()
    nan_state = transitions()
    BAD_ROWS["states"](nan_state)
    nan_reward = transitions(seed=1)
    BAD_ROWS["rewards"](nan_reward)
    assert len(observe_quietly(agent, **nan_state, on_bad="skip")) == 1
    assert observe_quietly(agent, **nan_state, on_bad="skip") == []  # the same kind: counted, not said again
    assert len(observe_quietly(agent, **nan_reward, on_bad="skip")) == 1
    assert agent.guard_counts.skipped_rows == 3 and memory_size(agent) == 9


def test_the_config_sets_the_default_and_an_argument_overrides_it():
    agent = dqn(on_bad="skip")
    batch = transitions()
    BAD_ROWS["actions"](batch)
    observe_quietly(agent, **batch)
    assert agent.guard_counts.skipped_rows == 1
    with pytest.raises(SpaceError):
        agent.observe(**batch, on_bad="raise")
    with pytest.raises(ConfigError) as error:
        agent.observe(**transitions(), on_bad="ignore")
    assert error.value.argument == "on_bad"
    with pytest.raises(ConfigError) as error:
        dqn(on_bad="drop")
    assert error.value.key_path == "execution/on_bad"


def test_a_batch_wrong_as_a_whole_is_refused_in_skip_mode_too():
    agent = dqn()
    for argument, value in (("actions", np.zeros(3, np.int64)), ("rewards", np.ones(5)), ("actions", [0.5] * 4),
                            ("terminals", ["no"] * 4), ("next_states", np.zeros((4, 3), np.float32))):
        with pytest.raises(SpaceError) as error:
            agent.observe(**{**transitions(), argument: value}, on_bad="skip")
        assert error.value.argument == argument
    assert memory_size(agent) == 0 and agent.guard_counts.skipped_rows == 0 and agent.timesteps == 0


def test_a_single_bad_transition_is_skipped_and_an_all_bad_batch_stores_nothing():
    agent = dqn()
    batch = transitions(rows=1)
    single = {key: value[0] for key, value in batch.items()}
    observe_quietly(agent, **{**single, "rewards": np.inf}, on_bad="skip")
    all_bad = transitions()
    all_bad["states"][:] = np.nan
    observe_quietly(agent, **all_bad, on_bad="skip")
    assert memory_size(agent) == 0 and agent.guard_counts.skipped_rows == 5 and agent.timesteps == 0
    agent.observe(**single, on_bad="skip")
    assert memory_size(agent) == 1


def test_checkpoints_keep_the_counts(tmp_path):
    agent = dqn()
    agent.guard_counts.skipped_rows, agent.guard_counts.refused_steps = 5, 2
    path = agent.save(tmp_path / "ckpt")
    other = dqn().load(path)
    assert (other.guard_counts.skipped_rows, other.guard_counts.refused_steps) == (5, 2)
    manifest = json.loads((path / "agent.json").read_text())
    assert manifest["guard_counts"] == {"skipped_rows": 5, "refused_steps": 2}


def test_counts_from_a_checkpoint_are_checked(tmp_path, monkeypatch):
    from rlworkbench.agents import agent as agent_module

    agent = dqn()
    path = agent.save(tmp_path / "ckpt")
    arrays, state = agent_module.read_checkpoint(path)
    for bad, expected in ((None, (0, 0)), ({"skipped_rows": -1, "refused_steps": 0}, None), ("x", None),
                          ({"skipped_rows": 1}, None), ({"skipped_rows": 1.5, "refused_steps": 0}, None)):
        copy = {**state}
        if bad is None:
            copy.pop("guard_counts")  # a checkpoint written before the counts were kept
        else:
            copy["guard_counts"] = bad
        monkeypatch.setattr(agent_module, "read_checkpoint", lambda _, copy=copy: (arrays, copy))
        other = dqn()
        other.guard_counts.skipped_rows = 3
        if expected is None:
            with pytest.raises(CheckpointError) as error:
                other.load(path)
            assert error.value.key_path == "guard_counts" and other.guard_counts.skipped_rows == 3
        else:
            other.load(path)
            assert (other.guard_counts.skipped_rows, other.guard_counts.refused_steps) == expected
