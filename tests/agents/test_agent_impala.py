"""The IMPALA agent on both backends: sequences with a time rank, v-trace's handling of episode ends inside a
sequence (terminal: nothing after it counts; truncated: the final observation's value does), behaviour log-probs
that make an off-policy batch on-policy again, the observe/update schedule, checkpoints, config errors, learning."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.execution import Worker, make_vector_env
from rlworkbench.spaces import FloatBox

CONFIG = {"type": "impala", "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"}],
                                        "value_network": [{"type": "dense", "units": 16, "activation": "tanh"}]},
          "update": {"rollout_length": 5}}


def agent_for(backend: str, seed: int = 0, **config):
    return Agent.from_env("CartPole-v1", {**CONFIG, **config}, backend=backend, seed=seed).build()


def sequences(seed: int = 0, envs: int = 3, length: int = 5) -> dict[str, np.ndarray]:
    """Continuous CartPole-like sequences: each step's next state is the next step's state."""
    rng = np.random.default_rng(seed)
    chain = rng.normal(size=(envs, length + 1, 4)).astype(np.float32)
    return {"states": chain[:, :-1].copy(), "actions": rng.integers(0, 2, (envs, length)),
            "rewards": np.ones((envs, length), np.float32), "terminals": np.zeros((envs, length), bool),
            "next_states": chain[:, 1:].copy()}


def loss_of(backend: str, batch: dict[str, np.ndarray]) -> float:
    return agent_for(backend).update(batch)["loss"]


def test_sequences_of_any_batch_and_length_update(backend):
    agent = agent_for(backend)
    metrics = agent.update(sequences())
    assert set(metrics) == {"loss", "policy_loss", "value_loss", "entropy", "grad_norm", "rollout_steps",
                            "update/refused", "observe/skipped"}
    assert metrics["rollout_steps"] == 15.0 and np.isfinite(metrics["loss"]) and agent.updates == 1
    assert agent.update(sequences(envs=2, length=9))["rollout_steps"] == 18.0  # batch and time ranks are free
    assert agent.update(sequences(envs=2, length=1))["rollout_steps"] == 2.0


def test_episode_ends_inside_a_sequence(backend):
    base = sequences()
    base["terminals"][0, 1] = True   # env 0 terminates at step 1; a new episode starts at step 2
    base["next_states"][1, 2] += 5.0  # env 1 is truncated at step 2: its final observation is not step 3's state
    reference = loss_of(backend, base)
    after_terminal = copy.deepcopy(base)
    after_terminal["next_states"][0, 1] += 3.0  # the terminal's next state: never bootstrapped from
    assert loss_of(backend, after_terminal) == pytest.approx(reference, rel=1e-6)
    final_observation = copy.deepcopy(base)
    final_observation["next_states"][1, 2] += 3.0  # the truncation's final observation: its value counts
    assert loss_of(backend, final_observation) != pytest.approx(reference, rel=1e-4)
    last = copy.deepcopy(base)
    last["next_states"][2, -1] += 3.0  # the last step of a sequence bootstraps from V(next state)
    assert loss_of(backend, last) != pytest.approx(reference, rel=1e-4)


def test_behaviour_log_probs_of_the_current_weights_are_the_on_policy_update(backend):
    batch = sequences()
    agent = agent_for(backend)
    behaviour = agent.behaviour_log_probs(batch)
    assert behaviour.shape == (3, 5) and (behaviour <= 0).all()
    on_policy = loss_of(backend, batch)
    assert loss_of(backend, {**batch, "behaviour_log_probs": behaviour}) == pytest.approx(on_policy, rel=1e-5)
    clipped = loss_of(backend, {**batch, "behaviour_log_probs": behaviour - 0.5})  # rho = e^0.5: clipped to 1
    assert clipped == pytest.approx(on_policy, rel=1e-5)
    stale = loss_of(backend, {**batch, "behaviour_log_probs": behaviour + 0.5})  # rho = e^-0.5: weighs less
    assert stale != pytest.approx(on_policy, rel=1e-4)


def test_observe_collects_rollout_length_steps_per_env_then_updates(backend):
    env = make_vector_env("CartPole-v1", 4, seed=0)
    agent = Agent.from_env(env, CONFIG, backend=backend, seed=0).build()
    worker = Worker(agent, env, progress=False)
    worker.run(timesteps=4 * 5 * 6)
    assert agent.updates == 6 and not agent.wants_update()
    assert (worker.updates["rollout_steps"] == 20.0).all()
    env.close()


def test_checkpoints_restore_the_weights(backend, tmp_path):
    agent = agent_for(backend)
    agent.update(sequences())
    agent.save(tmp_path / "ckpt")
    other = agent_for(backend, seed=1).load(tmp_path / "ckpt")
    batch = sequences(seed=3)
    np.testing.assert_allclose(other.behaviour_log_probs(batch), agent.behaviour_log_probs(batch), rtol=1e-6)
    assert other.updates == 1


def test_bad_configs_and_batches():
    with pytest.raises(ConfigError) as error:
        Agent.from_env("CartPole-v1", {**CONFIG, "loss": {"clip_rho_threshold": 0}})
    assert error.value.key_path == "loss/clip_rho_threshold"
    with pytest.raises(ConfigError) as error:
        Agent.from_env("CartPole-v1", {**CONFIG, "preprocessing": [{"type": "frame_stack", "num_frames": 2}]})
    assert "stateless" in str(error.value)
    agent = agent_for("torch")
    with pytest.raises(SpaceError, match="sequences"):
        agent.update({key: value[0] for key, value in sequences().items()})
    with pytest.raises(SpaceError, match="rollout_length steps of every environment"):
        agent.update()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_impala_config_solves_cartpole_locally(backend, one_torch_thread):
    """The shipped config on 8 envs, learning on-policy: a last-20 mean of 475 within 400,000 steps."""
    config = {k: v for k, v in builtin_config("impala_cartpole").items() if k != "execution"}
    env = make_vector_env("CartPole-v1", 8, seed=0)
    agent = Agent.from_env(env, config, backend=backend, seed=0).build()
    worker = Worker(agent, env, progress=False)
    recent = 0.0
    while worker.timesteps < 400_000 and recent < 475:
        worker.run(timesteps=8000)
        recent = float(worker.episodes["return"].tail(20).mean())
    assert recent >= 475, (worker.timesteps, recent)


@pytest.mark.parametrize("distribution", [None, "squashed_normal", "beta"])
def test_float_actions_update_from_sequences(backend, distribution):
    """An action adapter reshapes each call's own batch (and time) axes: IMPALA's policy acts on batches and learns
    on batches of sequences (a float action's adapter took the first call's ranks and failed to build)."""
    agent = Agent.from_config({**CONFIG, "policy": {**CONFIG["policy"], "distribution": distribution}},
                              state_space=FloatBox(shape=(4,)), action_space=FloatBox(-1.0, 1.0, shape=(2,)),
                              backend=backend, seed=0).build()
    batch = {**sequences(), "actions": np.random.default_rng(0).uniform(-0.9, 0.9, (3, 5, 2)).astype(np.float32)}
    assert np.isfinite(agent.update(batch)["loss"]) and agent.get_actions(batch["states"][:, 0]).shape == (3, 2)
