"""Execution plans: each algorithm a short composition of operators, declared once in the registry; a plan a user
writes joins it and runs; the dataflow of a running plan names every actor, counts what flows, and finds the
bottleneck (a sampler whose env sleeps). Real local Ray throughout."""

from __future__ import annotations

import ast
import html
import inspect
import re
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import rlworkbench
from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray import PLANS, Plan, PlanRun, get_plan, plan_for, plans, register
from rlworkbench.execution.ray.ops import Broadcast, LearnerQueue, Rollouts, TrainOneStep, concurrently
from rlworkbench.execution.ray.plans import APEX, APPO, IMPALA
from rlworkbench.execution.ray.sampler import ImpalaSampler
from rlworkbench.visualize.dataflow_drawing import dataflow_svg

DQN = {"type": "dqn", "policy": {"network": [{"type": "dense", "units": 32, "activation": "relu"}]},
       "loss": {"n_step": 3}, "memory": {"type": "prioritized_replay", "capacity": 4000},
       "update": {"batch_size": 32, "learning_starts": 200, "update_interval": 4, "gradient_steps": 1}}
IMPALA_CONFIG = {"type": "impala", "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"}],
                                               "value_network": [{"type": "dense", "units": 16, "activation": "tanh"}]},
                 "update": {"rollout_length": 10}}
APEX_SETTINGS = {"workers": 2, "envs_per_worker": 2, "fragment_length": 25, "shards": 2, "sampler_cpus": 0,
                 "broadcast_every": 5, "weight_sync_steps": 100}


def code_lines(function) -> int:
    """Lines of a function's body without its docstring, blank lines and comments-only lines."""
    source = inspect.getsource(function)
    tree = ast.parse(source).body[0]
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    lines = source.splitlines()[body[0].lineno - 1:]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


@pytest.mark.parametrize("name", ["apex", "impala", "sync_ppo", "appo", "apex_ratio"])
def test_every_plan_is_a_short_composition(name):
    plan = get_plan(name)
    assert code_lines(plan.build) <= 40, name


def test_algorithm_names_are_declared_once_in_the_registry():
    assert {"apex", "impala", "sync_ppo", "appo", "apex_ratio"} <= set(PLANS)
    assert [plan_for(kind).name for kind in ("dqn", "impala", "ppo")] == ["apex", "impala", "sync_ppo"]
    assert plan_for("impala", "appo") is APPO
    table = plans()
    assert list(table.columns) == ["plan", "trains", "default", "summary"] and table["default"].sum() == 3
    workbench = Path(rlworkbench.__file__).parent / "workbench"
    spelled = [f"{path}:{number}" for path in workbench.rglob("*.py")
               for number, line in enumerate(path.read_text().splitlines(), 1)
               if re.search(r"""["'](apex|apex_ratio|impala|sync_ppo|appo)["']""", line)]
    assert spelled == []


def test_wrong_plans_are_config_errors_naming_the_key():
    with pytest.raises(ConfigError) as unknown:
        get_plan("apex_x")
    assert unknown.value.key_path == "execution/ray/plan" and "apex" in str(unknown.value)
    with pytest.raises(ConfigError) as wrong_agent:
        plan_for("dqn", "appo")
    assert wrong_agent.value.key_path == "execution/ray/plan" and "impala agents" in str(wrong_agent.value)
    with pytest.raises(ConfigError, match="no distributed algorithm"):
        plan_for("sac")
    with pytest.raises(ConfigError, match="exists"):
        register(Plan("apex", "dqn", APEX.build, "again"))
    with pytest.raises(ConfigError, match="default"):
        register(Plan("second_default", "dqn", APEX.build, "x", default=True))
    assert "second_default" not in PLANS


def test_appo_refuses_an_impala_agent_without_a_clip_ratio(ray_session):
    agent = Agent.from_env("CartPole-v1", IMPALA_CONFIG, backend="torch", seed=0)
    with pytest.raises(ConfigError) as missing:
        PlanRun(APPO, agent, "CartPole-v1", {"workers": 1, "envs_per_worker": 1, "sampler_cpus": 0})
    assert missing.value.key_path == "loss/clip_ratio"
    assert APPO.learner_config(IMPALA_CONFIG)["loss"]["clip_ratio"] == 0.2


def two_pass_impala(run: PlanRun):
    """A plan as a user writes one in a notebook: IMPALA whose learner takes the two newest fragments at once."""
    samplers = Rollouts(run, ImpalaSampler, steps=run.agent.config["update"]["rollout_length"], to="queue")
    queue, train, broadcast = LearnerQueue(run, capacity=4), TrainOneStep(run), Broadcast(run, every=1)

    def step():
        samplers.request_in_turn(room=queue.room(coming=samplers.in_flight()))
        concurrently(samplers, timeout=0.5)
        queue.put(samplers.ready())
        while len(queue) >= 2:
            first, second = queue.get(), queue.get()
            train({key: np.concatenate([first.batch[key], second.batch[key]]) for key in first.batch})
            broadcast.hand_all()
    return step


def test_a_plan_written_by_a_user_registers_and_runs(ray_session):
    plan = register(Plan("two_fragment_impala", "impala", two_pass_impala, "two fragments per update"),
                    replace=True)
    try:
        agent = Agent.from_env("CartPole-v1", IMPALA_CONFIG, backend="torch", seed=0)
        run = PlanRun(plan, agent, "CartPole-v1", {"workers": 2, "envs_per_worker": 2, "sampler_cpus": 0}, seed=0)
        try:
            run.train(400)

            def delivered() -> set[tuple[str, str]]:
                flow = run.dataflow().edges_frame()
                return set(zip(flow["source"], flow["target"]))

            # A sampler slow to start under load may deliver nothing in the first 400 frames: go on (bounded)
            # until both have fed the queue, so the dataflow is checked for both.
            while not {("sampler 0", "queue"), ("sampler 1", "queue")} <= delivered() and run.timesteps < 8000:
                run.train(run.timesteps + 200)
            assert run.agent.updates > 0 and (run.updates["rollout_steps"] == 40.0).all()  # 2 x (2 envs x 10)
            assert {("queue", "learner"), ("sampler 0", "queue"), ("sampler 1", "queue"),
                    ("learner", "sampler 1")} <= delivered()
        finally:
            run.close()
    finally:
        PLANS.pop("two_fragment_impala")


def test_the_dataflow_of_apex_names_every_actor_and_counts_what_flows(ray_session):
    agent = Agent.from_env("CartPole-v1", DQN, backend="torch", seed=0)
    run = PlanRun(APEX, agent, "CartPole-v1", APEX_SETTINGS, seed=0)
    try:
        run.train(2000)
        for _ in range(20):  # on a loaded machine one sampler's process may start late: until both have sampled
            if min(stats.timesteps for stats in run.stats) > 0:
                break
            run.train(run.timesteps + 500)
        assert min(stats.timesteps for stats in run.stats) > 0, [stats.timesteps for stats in run.stats]
        snapshot = run.dataflow()
    finally:
        run.close()
    actors = {"sampler 0", "sampler 1", "shard 0", "shard 1", "learner"}
    assert {node.id for node in snapshot.nodes} == actors
    labels = set(re.findall(r"<text[^>]*>([^<]*)</text>", html.unescape(dataflow_svg(snapshot))))
    assert actors <= labels and {"Transitions", "Batch"} <= labels  # the drawing names every actor
    edges = snapshot.edges_frame().set_index(["source", "target"])
    carried = dict(edges["carries"].items())
    assert carried[("sampler 0", "shard 0")] == "Transitions" and carried[("shard 1", "learner")] == "Batch"
    assert carried[("learner", "shard 0")] == "Priorities" and carried[("learner", "sampler 1")] == "Weights"
    handed = edges.loc[[pair for pair in carried if carried[pair] == "Weights"], "items"]
    assert handed.sum() > len(handed)  # each sampler starts with the weights; broadcasts handed newer ones
    into_shards = edges.loc[[pair for pair in carried if pair[1].startswith("shard") and pair[0] != "learner"]]
    assert into_shards["items"].sum() == run.shards()["records"].sum()  # every transition counted once
    batches = edges.loc[[pair for pair in carried if carried[pair] == "Batch"]]
    assert batches["items"].sum() == run.agent.updates and (batches["bytes"] > 32 * 4 * 4).all()
    assert snapshot.node("learner").busy is not None and 0 < snapshot.node("learner").busy <= 1
    assert sum(edge.bottleneck for edge in snapshot.edges) == 1
    assert snapshot.notes["batch_size"] == 32


def sleepy_env_factory():
    """A picklable env factory (defined in a function, so Ray's workers get it by value): sampler 1's envs (seeds
    2000…2999 with run seed 0) sleep 20 ms a step, the others 2 ms — every sampler slower than the learner, one
    much slower."""

    class SleepyCartPole(gym.Wrapper):
        def __init__(self):
            super().__init__(gym.make("CartPole-v1"))
            self.slow: bool | None = None

        def reset(self, *, seed=None, options=None):
            if self.slow is None:  # the first reset's seed says whose env this is
                self.slow = seed is not None and 2000 <= seed < 3000
            return self.env.reset(seed=seed, options=options)

        def step(self, action):
            time.sleep(0.02 if self.slow else 0.002)
            return self.env.step(action)

    return SleepyCartPole


def test_a_throttled_sampler_shows_as_the_bottleneck(ray_session):
    agent = Agent.from_env("CartPole-v1", IMPALA_CONFIG, backend="torch", seed=0)
    run = PlanRun(IMPALA, agent, sleepy_env_factory(), {"workers": 2, "envs_per_worker": 2, "sampler_cpus": 0,
                                                    "queue_size": 4}, seed=0)
    try:
        run.train(1500)
        snapshot = run.dataflow()
    finally:
        run.close()
    assert snapshot.node("learner").busy < 0.8, snapshot.node("learner")
    assert snapshot.bottleneck is not None
    assert (snapshot.bottleneck.source, snapshot.bottleneck.target) == ("sampler 1", "queue")
    steps = run.workers().set_index("worker")["env_steps"]
    assert steps[1] < steps[0]  # the sleepy one sampled less in the same time


def last_20_mean(run: PlanRun) -> float:
    returns = run.episodes["return"]
    return float(returns.tail(20).mean()) if len(returns) >= 20 else float("nan")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_appo_on_two_workers_solves_cartpole(ray_session):
    """The shipped appo_cartpole config (IMPALA's network, clip ratio 0.2, each fragment learnt twice; 2 workers x
    4 envs): a last-20 mean return of 475."""
    agent = Agent.from_env("CartPole-v1", "appo_cartpole", backend="torch", seed=0)
    run = PlanRun(plan_for("impala", agent.config["execution"]["ray"]["plan"]), agent, "CartPole-v1",
                  {"sampler_cpus": 0}, seed=0)
    try:
        while run.timesteps < 300_000 and not last_20_mean(run) >= 475:
            run.train(run.timesteps + 5000)
        assert last_20_mean(run) >= 475, (run.timesteps, last_20_mean(run))
        consumed = run.dataflow().edges_frame().set_index(["source", "target"]).loc[("queue", "learner"), "items"]
        assert run.agent.updates == 2 * consumed and "clip_fraction" in run.updates  # each fragment learnt twice
    finally:
        run.close()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_apex_at_a_fixed_replay_ratio_solves_cartpole(ray_session):
    """The shipped DQN config under the apex_ratio plan (8 replayed per sampled transition, half its schedule's 16;
    2 workers x 4 envs): the learner's greedy policy scores 475 over 5 episodes within 100,000 steps, and its
    updates kept the ratio."""
    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0)
    run = PlanRun(get_plan("apex_ratio"), agent, "CartPole-v1",
                  {"workers": 2, "envs_per_worker": 4, "sampler_cpus": 0, "replay_ratio": 8}, seed=0)
    try:
        score = 0.0
        while run.timesteps < 100_000 and score < 475:
            run.train(run.timesteps + 5000)
            score = float(run.evaluate(5)["return"].mean())
        assert score >= 475, (run.timesteps, score)
        kept = run.agent.updates * 64 / (run.timesteps - 1000)
        assert 0.8 * 8 <= kept <= 1.05 * 8, kept
    finally:
        run.close()
