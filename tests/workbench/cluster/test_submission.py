"""What is checked before anything reaches a cluster: settings, the env, the target inside the job, the runtime
environment the job gets, and that a trained prototype ships its weights but not its replay memory."""

from __future__ import annotations

import pytest

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError
from rlworkbench.execution.envs import make_vector_env
from rlworkbench.workbench.cluster.submission import PACKAGE_DIR, job_runtime_env, plan_submission
from rlworkbench.workbench.promote import promote
from rlworkbench.workbench.run_spec import make_spec
from tests.workbench.run_helpers import small_dqn

ADDRESS = "http://127.0.0.1:1"  # nothing answers: every case below must fail (or plan) before connecting


def plan(prototype=None, **settings):
    return plan_submission(make_spec(prototype if prototype is not None else small_dqn(), address=ADDRESS,
                                     logdir="runs", **settings))


def test_the_target_inside_the_job_follows_workers():
    assert plan(workers=0).target == "local"
    assert plan(workers=0, devices=["cpu", "cpu"]).target == "multi_gpu"
    ape_x = plan(workers=3, shards=1)
    assert ape_x.target == "ray" and ape_x.spec["options"]["address"] == "auto" and ape_x.metadata["workers"] == "3"
    assert plan().metadata["workers"] == "2"  # the Ray default


@pytest.mark.parametrize(("settings", "argument"), [
    ({"workers": 0, "shards": 2}, "shards"),          # Ray settings mean nothing to a local worker
    ({"workers": 2, "shards": 0}, None),              # checked as on a local Ray: execution/ray/shards
    ({"envs": 3}, "envs"),                            # unknown
    ({"stop_grace": -1}, "stop_grace"),
    ({"runtime_env": ["pip"]}, "runtime_env"),
    ({"mirror": "yes"}, "mirror"),
    ({"env": lambda: None}, "env"),                   # a factory cannot travel as JSON
])
def test_bad_cluster_settings_are_config_errors_before_submission(settings, argument):
    with pytest.raises(ConfigError) as raised:
        plan(**settings)
    if argument is not None:
        assert raised.value.argument == argument
    else:
        assert raised.value.key_path == "execution/ray/shards"


def test_a_bad_config_fails_in_promote_before_anything_is_sent():
    config = small_dqn()
    config["update"]["batch_size"] = 0
    with pytest.raises(ConfigError, match="batch_size"):
        promote(config, to="ray", address=ADDRESS, workers=0)


def test_the_runtime_env_adds_the_code_and_the_job_and_keeps_the_users(tmp_path):
    submission = plan(workers=0, runtime_env={"pip": ["tqdm"], "env_vars": {"MINE": "1"}, "py_modules": ["/x"]},
                      stop_grace=7.5)
    env = job_runtime_env(submission, tmp_path / "package")
    assert env["pip"] == ["tqdm"] and env["env_vars"]["MINE"] == "1"
    assert env["py_modules"] == ["/x", str(PACKAGE_DIR), str(tmp_path / "package")]
    assert env["env_vars"]["RAY_JOB_STOP_WAIT_TIME_S"] == "8" and "__pycache__" in env["excludes"]
    assert env["env_vars"]["RLWORKBENCH_RUNS_DIR"] == "off"  # the notebook's Run publishes the job's record
    assert str(PACKAGE_DIR) not in job_runtime_env(plan(workers=0, ship_code=False), tmp_path)["py_modules"]


def test_a_local_head_shares_this_logdir_and_a_remote_one_gets_its_own(tmp_path):
    local = plan_submission(make_spec(small_dqn(), address="http://localhost:8265", logdir=tmp_path, workers=0))
    assert local.spec["logdir"] == str(tmp_path.resolve()) and local.local_run_dir.parent == tmp_path.resolve()
    remote = plan_submission(make_spec(small_dqn(), address="https://head.example:8265", logdir=tmp_path, workers=0))
    assert remote.spec["logdir"] == "~/rlworkbench/runs"


def test_a_built_prototype_ships_its_weights_without_its_memory():
    env = make_vector_env("CartPole-v1", 1)
    agent = Agent.from_env(env, small_dqn(), backend="torch").build()
    env.close()
    weights = plan(agent, env="CartPole-v1", workers=0).weights
    assert weights and not any(name.startswith("memory/") for name in weights)
    assert weights.keys() <= agent.get_weights().keys() and "policy/network/dense_0/kernel" in weights
    unbuilt = Agent.from_env(make_vector_env("CartPole-v1", 1), small_dqn(), backend="torch")
    assert plan(unbuilt, env="CartPole-v1", workers=0).weights is None
