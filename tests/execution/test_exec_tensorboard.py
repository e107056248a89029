"""TensorBoard scalars (read back with TensorBoard's EventAccumulator), written without importing torch or
TensorFlow (TensorBoard's own writers import TensorFlow whenever it is installed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
from exec_helpers import UpdatingAgent
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rlworkbench.execution import Worker, make_vector_env


def _scalars(logdir) -> dict[str, list[tuple[int, float]]]:
    accumulator = EventAccumulator(str(logdir), size_guidance={"scalars": 0})
    accumulator.Reload()
    return {tag: [(event.step, event.value) for event in accumulator.Scalars(tag)]
            for tag in accumulator.Tags()["scalars"]}


def test_event_files_hold_episode_update_and_throughput_scalars(tmp_path):
    env = make_vector_env("CartPole-v1", 2, seed=0)
    with Worker(UpdatingAgent.from_env(env, seed=0), env, logdir=tmp_path, progress=False, log_every=100) as worker:
        worker.run(timesteps=400)
        episodes, updates = worker.episodes, worker.updates
    env.close()
    scalars = _scalars(tmp_path)
    assert {"episode/return", "episode/length", "update/loss", "update/q_mean", "update/td_error",
            "throughput/env_steps_per_s"} <= set(scalars)
    returns = scalars["episode/return"]
    assert [step for step, _ in returns] == episodes["timesteps_total"].tolist()
    np.testing.assert_allclose([value for _, value in returns], episodes["return"], rtol=1e-6)
    np.testing.assert_allclose([value for _, value in scalars["episode/length"]], episodes["length"])
    assert [step for step, _ in scalars["update/loss"]] == updates["timesteps_total"].tolist()
    np.testing.assert_allclose([value for _, value in scalars["update/loss"]], updates["loss"], rtol=1e-6)
    throughput = scalars["throughput/env_steps_per_s"]
    assert [step for step, _ in throughput] == [100, 200, 300, 400] and all(v > 0 for _, v in throughput)


def test_logging_imports_neither_torch_nor_tensorflow(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        from rlworkbench.agents.random_agent import RandomAgent
        from rlworkbench.execution import Worker, make_vector_env
        env = make_vector_env("CartPole-v1", 2, seed=0)
        with Worker(RandomAgent.from_env(env), env, logdir={str(tmp_path)!r}, progress=False) as worker:
            worker.run(timesteps=50)
        print(sorted(m for m in ("torch", "tensorflow", "ray") if m in sys.modules))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    assert list(tmp_path.glob("events.out.tfevents.*"))
