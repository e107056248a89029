"""Checkpoints: save → load → continue is exact (weights, optimizer state, memory, counters), saves are atomic
(a crash mid-save leaves the previous checkpoint readable), and a bad checkpoint raises a typed error while
leaving the agent unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest
from agent_helpers import ACTIONS, STATES, small_agent, transitions
from agent_test_support import assert_same_weights

from rlworkbench.agents import Agent, CheckpointError
from rlworkbench.agents.checkpoint import MANIFEST, _file_digest, _manifest_digest


def trained_agent(backend: str, updates: int = 5, **sections):
    agent = small_agent(backend, **sections)
    batch = transitions(40, seed=1, terminal_every=4)
    agent.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
    for _ in range(updates):
        agent.update()
    return agent


def test_save_load_continue_is_exact(backend, tmp_path):
    agent = trained_agent(backend)
    agent.save(tmp_path / "ckpt")
    restored = small_agent(backend, seed=99).load(tmp_path / "ckpt")
    weights = agent.get_weights()
    assert_same_weights(restored.get_weights(), weights)
    assert weights["optimizer/steps"] == 5 and np.any(weights["optimizer/v/policy/network/dense_0/kernel"] > 0)
    assert (restored.timesteps, restored.updates, restored.episodes) == (40, 5, 10)
    assert restored.config == agent.config
    batch = transitions(16, seed=2)  # continue both the same way, random draws included
    for twin in (agent, restored):
        twin.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
    states = STATES.sample(64, seed=4)
    for _ in range(3):
        np.testing.assert_array_equal(restored.get_actions(states), agent.get_actions(states))  # exploration
        assert agent.update() == restored.update()  # memory sampling
        assert agent.update(batch) == restored.update(batch)
    assert_same_weights(restored.get_weights(), agent.get_weights())


def test_from_checkpoint_uses_the_saved_config(backend, tmp_path):
    agent = trained_agent(backend, policy={"dueling": True})
    agent.save(tmp_path)
    restored = Agent.from_checkpoint(tmp_path, state_space=STATES, action_space=ACTIONS, backend=backend)
    assert restored.config["policy"]["dueling"] and restored.updates == agent.updates
    assert_same_weights(restored.get_weights(), agent.get_weights())


def test_files_json_and_npz_without_pickle(backend, tmp_path):
    agent = trained_agent(backend, updates=1)
    agent.save(tmp_path)
    agent.update()
    agent.save(tmp_path)  # a second save replaces the first
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and files[0] == MANIFEST and files[1].startswith("weights-") and files[1].endswith(".npz")
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["counters"] == {"timesteps": 40, "updates": 2, "episodes": 10}
    assert manifest["agent_type"] == "dqn" and manifest["config"] == agent.config
    with np.load(tmp_path / files[1], allow_pickle=False) as archive:
        assert sorted(archive.files) == sorted(agent.get_weights())


def test_a_crash_mid_save_leaves_the_previous_checkpoint(backend, tmp_path, monkeypatch):
    agent = trained_agent(backend, updates=2)
    agent.save(tmp_path)
    saved = agent.get_weights()
    agent.update()
    real_savez = np.savez

    def crash_midway(file, **arrays):
        real_savez(file, **dict(list(arrays.items())[:3]))  # part of the data is on disk …
        raise OSError("disk full")  # … then the writer fails

    monkeypatch.setattr(np, "savez", crash_midway)
    with pytest.raises(CheckpointError, match="disk full"):  # an OS error on save is a CheckpointError
        agent.save(tmp_path)
    monkeypatch.undo()
    restored = small_agent(backend).load(tmp_path)
    assert_same_weights(restored.get_weights(), saved)
    assert restored.updates == 2
    assert len(list(tmp_path.glob("weights-*.npz"))) == 1 and not list(tmp_path.glob(".*.tmp"))


def test_a_crash_while_replacing_the_manifest_leaves_the_previous_checkpoint(backend, tmp_path, monkeypatch):
    agent = trained_agent(backend, updates=1)
    agent.save(tmp_path)
    agent.update()
    import rlworkbench.agents.checkpoint as checkpoint

    real_replace = checkpoint.os.replace

    def fail_on_manifest(source, target):
        if str(target).endswith(MANIFEST):
            raise OSError("power cut")
        real_replace(source, target)

    monkeypatch.setattr(checkpoint.os, "replace", fail_on_manifest)
    with pytest.raises(CheckpointError, match="power cut"):
        agent.save(tmp_path)
    monkeypatch.undo()
    assert small_agent(backend).load(tmp_path).updates == 1


def _resign(directory):
    """Recomputes the checksums, as a checkpoint written that way would have them (so the checks behind them run)."""
    manifest = json.loads((directory / MANIFEST).read_text())
    weights = directory / str(manifest["weights_file"])
    if weights.is_file() and weights.parent == directory:
        manifest["weights_sha256"] = _file_digest(weights)
    manifest["checksum"] = _manifest_digest(manifest)
    (directory / MANIFEST).write_text(json.dumps(manifest))


def _corrupt_weights(directory, resign=True):
    weights = next(directory.glob("weights-*.npz"))
    weights.write_bytes(weights.read_bytes()[:200])
    if resign:
        _resign(directory)


def _flip_a_weights_byte(directory):
    weights = next(directory.glob("weights-*.npz"))
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0x01
    weights.write_bytes(bytes(data))


def _drop_variable(directory):
    weights = next(directory.glob("weights-*.npz"))
    with np.load(weights) as archive:
        arrays = {name: archive[name] for name in archive.files if name != "optimizer/steps"}
    np.savez(weights, **arrays)
    manifest = json.loads((directory / MANIFEST).read_text())
    del manifest["variables"]["optimizer/steps"]
    (directory / MANIFEST).write_text(json.dumps(manifest))
    _resign(directory)


def _edit_manifest(resign=True, **changes):
    def edit(directory):
        manifest = json.loads((directory / MANIFEST).read_text())
        manifest.update(changes)
        (directory / MANIFEST).write_text(json.dumps(manifest))
        if resign:
            _resign(directory)
    return edit


@pytest.mark.parametrize("damage, match", [
    (_corrupt_weights, "unreadable weights file"),
    (lambda d: _corrupt_weights(d, resign=False), "SHA-256 differs"),
    (_flip_a_weights_byte, "SHA-256 differs"),
    (_drop_variable, "variables differ"),
    (_edit_manifest(agent_type="ppo"), "another agent type"),
    (_edit_manifest(resign=False, counters={"timesteps": 10, "updates": 2, "episodes": 0}), "was changed"),
    (_edit_manifest(format=99), "unknown checkpoint format"),
    (_edit_manifest(counters={"timesteps": 1}), "bad counters"),
    (_edit_manifest(counters={"timesteps": -1, "updates": 2, "episodes": 0}), "integers >= 0"),
    (_edit_manifest(counters={"timesteps": True, "updates": 2, "episodes": 0}), "integers >= 0"),
    (_edit_manifest(counters=None), "integers >= 0"),
    (_edit_manifest(variables=None), "variables manifest"),
    (_edit_manifest(variables={"optimizer/steps": [1]}), "bad variable entry"),
    (_edit_manifest(weights_file="../other/weights-0123456789abcdef.npz"), "plain weights"),
    (_edit_manifest(weights_file="weights.npy"), "plain weights"),
    (_edit_manifest(random_stream="x"), "bad random stream"),
    (lambda d: (d / MANIFEST).write_text("{not json"), "unreadable"),
    (lambda d: (d / MANIFEST).write_text('{"format": NaN}'), "unreadable"),
    (lambda d: (d / MANIFEST).unlink(), "no checkpoint here"),
])
def test_bad_checkpoints_raise_and_change_nothing(backend, tmp_path, damage, match):
    agent = trained_agent(backend, updates=2)
    agent.save(tmp_path)
    damage(tmp_path)
    agent.update()  # the agent moves on from its (damaged) checkpoint
    before, counters = agent.get_weights(), (agent.timesteps, agent.updates, agent.episodes)
    with pytest.raises(CheckpointError, match=match):
        agent.load(tmp_path)
    assert_same_weights(agent.get_weights(), before)
    assert (agent.timesteps, agent.updates, agent.episodes) == counters


def test_a_checkpoint_of_another_network_does_not_fit(backend, tmp_path):
    small_agent(backend, policy={"network": [{"type": "dense", "units": 12, "activation": "relu"}]}).save(tmp_path)
    agent = small_agent(backend)
    before = agent.get_weights()
    with pytest.raises(CheckpointError, match="does not fit") as error:
        agent.load(tmp_path)
    assert error.value.key_path.startswith(("policy/", "target_policy/", "optimizer/"))
    assert "16" in str(error.value.expected) and "12" in str(error.value.got)
    assert_same_weights(agent.get_weights(), before)


def test_non_finite_weights_are_never_saved_silently(backend, tmp_path):
    agent = trained_agent(backend, updates=1)
    agent.save(tmp_path / "good")
    weights = agent.get_weights()
    name = next(name for name in agent.get_weights(trainable_only=True) if name.startswith("policy/"))
    weights[name] = np.full_like(weights[name], np.nan)
    agent.set_weights(weights)
    with pytest.raises(CheckpointError, match="non-finite weights") as raised:
        agent.save(tmp_path / "good")
    assert name in str(raised.value)
    assert np.all(np.isfinite(small_agent(backend).load(tmp_path / "good").get_weights()[name]))  # untouched


def test_an_unwritable_directory_is_a_checkpoint_error(backend, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(CheckpointError, match="cannot write the checkpoint"):
        trained_agent(backend, updates=1).save(blocker / "checkpoint")
