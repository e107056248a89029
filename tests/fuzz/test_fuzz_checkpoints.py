"""Corrupted checkpoints: bytes flipped and files truncated in agent.json and the weights, every manifest entry
retyped — signed again (so the checks behind the checksums run) or not — each load ends in a CheckpointError and
leaves the agent as it was (or, for a change that changes nothing, loads the very same weights)."""

from __future__ import annotations

import json
import shutil

import numpy as np

from rlworkbench.agents import Agent, CheckpointError
from rlworkbench.agents.checkpoint import MANIFEST, _file_digest, _manifest_digest
from rlworkbench.agents.config import builtin_config
from rlworkbench.execution.envs import make_vector_env
from tests.fuzz.fuzz_helpers import RETYPES

BYTE_FLIPS = 60


def small_agent(seed=0):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 8, "activation": "relu"}]
    config["memory"]["capacity"] = 16
    env = make_vector_env("CartPole-v1", 1)
    try:
        return Agent.from_env(env, config, backend="torch", seed=seed).build()
    finally:
        env.close()


def test_corrupted_checkpoints_are_refused_and_change_nothing(tmp_path, tally):
    saved = small_agent(0)
    saved.save(tmp_path / "good")
    agent = small_agent(1)
    before = agent.get_weights()
    rng = np.random.default_rng(0)

    def attempt(damage, case):
        folder = tmp_path / f"case{tally['checkpoint corruptions']}"
        shutil.copytree(tmp_path / "good", folder)
        damage(folder)
        try:
            agent.load(folder)
        except CheckpointError as error:
            assert error.key_path or error.argument or error.got is not None, f"{case}: {error!r} says nowhere"
            for name, array in agent.get_weights().items():
                assert np.array_equal(array, before[name]), f"{case}: changed {name}"
        else:  # only a change that changes nothing may load — and then to the saved weights
            for name, array in agent.get_weights().items():
                assert np.array_equal(array, saved.get_weights()[name]), f"{case}: loaded other weights"
            agent.set_weights(before)
        assert (agent.timesteps, agent.updates) == (0, 0)
        tally["checkpoint corruptions"] += 1
        shutil.rmtree(folder)

    for target in (MANIFEST, "weights"):
        for _ in range(BYTE_FLIPS // 2):
            position, bit = int(rng.integers(0, 10**9)), int(rng.integers(0, 8))
            attempt(lambda folder, p=position, b=bit, t=target: _flip(_file(folder, t), p, b), f"flip {target}")
        for fraction in (0.0, 0.1, 0.5, 0.99):
            attempt(lambda folder, f=fraction, t=target: _truncate(_file(folder, t), f), f"truncate {target}")
    manifest = json.loads((tmp_path / "good" / MANIFEST).read_text())
    for key in manifest:
        for new in RETYPES:
            for resign in (False, True):
                attempt(lambda folder, k=key, n=new, r=resign: _edit(folder, k, n, r), f"{key}={new!r} r={resign}")


def _file(folder, target):
    return folder / MANIFEST if target == MANIFEST else next(folder.glob("weights-*.npz"))


def _flip(path, position, bit):
    data = bytearray(path.read_bytes())
    data[position % len(data)] ^= 1 << bit
    path.write_bytes(bytes(data))


def _truncate(path, fraction):
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * fraction)])


def _edit(folder, key, value, resign):
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest[key] = value
    if resign:
        weights = folder / str(manifest.get("weights_file"))
        if weights.is_file() and weights.parent == folder:
            manifest["weights_sha256"] = _file_digest(weights)
        manifest["checksum"] = _manifest_digest(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest))
