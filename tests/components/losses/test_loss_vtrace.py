"""VTrace and VTraceLoss (IMPALA) against NumPy loops of the paper's recursion and of its defining sum, time-major
and batch-major, built once and run with two time lengths (unknown while tracing on TensorFlow)."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import VTrace, VTraceLoss
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest

TIME_MAJOR = {"add_batch_rank": True, "add_time_rank": True, "time_major": True}
BATCH_MAJOR = {"add_batch_rank": True, "add_time_rank": True}
NAMES = ["log_probs", "behaviour_log_probs", "rewards", "values", "bootstrap_values", "discounts"]
CLIPS = {"clip_rho_threshold": 1.0, "clip_pg_rho_threshold": 0.8, "clip_c_threshold": 0.9}


def vtrace_spaces(ranks: dict) -> dict:
    step = FloatBox(**ranks)
    return {"log_probs": FloatBox(-2.0, 0.0, **ranks), "behaviour_log_probs": FloatBox(-2.0, 0.0, **ranks),
            "rewards": step, "values": step, "bootstrap_values": FloatBox(add_batch_rank=True),
            "discounts": FloatBox(0.0, 0.99, **ranks), "entropies": FloatBox(0.0, 2.0, **ranks)}


def sample(spaces: dict, batch: int, time: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {name: space.sample(batch if name == "bootstrap_values" else (batch, time), seed=rng)
            for name, space in spaces.items()}


def by_name(api: str, x: dict, names: list[str]) -> tuple:
    """``(api, [log_probs], {the others by name})``: all but ``log_probs`` are keyword-only."""
    return api, [x["log_probs"]], {name: x[name] for name in names if name != "log_probs"}


def clip(x, threshold):
    return x if threshold is None else min(threshold, x)


def vtrace_reference(log_probs, behaviour_log_probs, rewards, values, bootstrap_values, discounts,
                     clip_rho_threshold=1.0, clip_pg_rho_threshold=1.0, clip_c_threshold=1.0):
    """Time-major (T, B) inputs; the paper's recursion v_s = V(x_s) + delta_s + gamma_s c_s (v_{s+1} - V(x_{s+1}))."""
    T, B = rewards.shape
    rhos = np.exp(log_probs - behaviour_log_probs)
    vs, pg_advantages = np.zeros((T, B)), np.zeros((T, B))
    for b in range(B):
        next_vs, next_value = bootstrap_values[b], bootstrap_values[b]  # v_T = V(x_T)
        for s in reversed(range(T)):
            delta = clip(rhos[s, b], clip_rho_threshold) * (rewards[s, b] + discounts[s, b] * next_value
                                                            - values[s, b])
            c = clip(rhos[s, b], clip_c_threshold)
            vs[s, b] = values[s, b] + delta + discounts[s, b] * c * (next_vs - next_value)
            pg_advantages[s, b] = clip(rhos[s, b], clip_pg_rho_threshold) * (
                rewards[s, b] + discounts[s, b] * next_vs - values[s, b])
            next_vs, next_value = vs[s, b], values[s, b]
    return pg_advantages, vs


def vtrace_by_definition(log_probs, behaviour_log_probs, rewards, values, bootstrap_values, discounts,
                         clip_rho_threshold=1.0, clip_c_threshold=1.0, **_):
    """The paper's eq. (1): v_s = V(x_s) + sum_t (prod_{i<t} gamma_i c_i) delta_t, to the end of the sequence."""
    T, B = rewards.shape
    rhos = np.exp(log_probs - behaviour_log_probs)
    extended = np.concatenate([values, bootstrap_values[None]], 0)
    vs = np.zeros((T, B))
    for b in range(B):
        for s in range(T):
            total, weight = values[s, b], 1.0
            for t in range(s, T):
                delta = clip(rhos[t, b], clip_rho_threshold) * (rewards[t, b] + discounts[t, b] * extended[t + 1, b]
                                                                - values[t, b])
                total += weight * delta
                weight *= discounts[t, b] * clip(rhos[t, b], clip_c_threshold)
            vs[s, b] = total
    return vs


def as_time_major(x: dict, ranks: dict) -> dict:
    return {k: v if k == "bootstrap_values" or ranks.get("time_major") else np.swapaxes(v, 0, 1) for k, v in x.items()}


def vtrace_test(built, backend: str, ranks: dict, clips: dict) -> ComponentTest:
    spaces = {k: v for k, v in vtrace_spaces(ranks).items() if k != "entropies"}
    return built((backend, tuple(ranks), tuple(clips.items())),
                 lambda: ComponentTest(VTrace(**clips), spaces, backend=backend))


@pytest.mark.parametrize("ranks", [TIME_MAJOR, BATCH_MAJOR])
@pytest.mark.parametrize("clips", [CLIPS, {"clip_rho_threshold": None, "clip_pg_rho_threshold": None,
                                           "clip_c_threshold": 2.0}])
def test_vtrace_matches_the_papers_recursion(backend, built, ranks, clips):
    test = vtrace_test(built, backend, ranks, clips)
    for batch, time in ((3, 5), (2, 9)):  # one build, two time lengths
        x = sample(vtrace_spaces(ranks), batch, time, seed=time)
        pg_advantages, vs = vtrace_reference(**{k: v for k, v in as_time_major(x, ranks).items()
                                                if k != "entropies"}, **clips)
        if not ranks.get("time_major"):
            pg_advantages, vs = pg_advantages.T, vs.T
        test.test(by_name("calculate", x, NAMES), expected_outputs=(pg_advantages, vs), decimals=4)
    assert test.graph.output_space("calculate") == (FloatBox(**ranks), FloatBox(**ranks))


def test_vtrace_matches_the_papers_definition(backend, built):
    test = vtrace_test(built, backend, TIME_MAJOR, CLIPS)
    x = sample(vtrace_spaces(TIME_MAJOR), 4, 7, seed=11)
    _, vs = test.test(by_name("calculate", x, NAMES))
    np.testing.assert_allclose(vs, vtrace_by_definition(**{k: x[k] for k in NAMES}, **CLIPS), rtol=1e-4, atol=1e-5)


def test_on_policy_vtrace_is_the_n_step_bellman_target(backend, built):
    test = vtrace_test(built, backend, TIME_MAJOR, {})  # thresholds 1: rho = c = 1 on-policy
    x = sample(vtrace_spaces(TIME_MAJOR), 3, 6, seed=5)
    x["behaviour_log_probs"] = x["log_probs"]  # rho = c = 1
    returns = np.zeros((6, 3))
    for b in range(3):
        running = x["bootstrap_values"][b]
        for t in reversed(range(6)):
            running = x["rewards"][t, b] + x["discounts"][t, b] * running
            returns[t, b] = running
    _, vs = test.test(by_name("calculate", x, NAMES))
    np.testing.assert_allclose(vs, returns, rtol=1e-4, atol=1e-5)


def test_vtrace_loss_is_the_actor_critic_loss_on_vtrace_targets(backend, built):
    spaces = vtrace_spaces(TIME_MAJOR)
    config = {"value_weight": 0.5, "entropy_weight": 0.02, **CLIPS}
    test = built((backend, "loss"), lambda: ComponentTest(VTraceLoss(**config), spaces, backend=backend))
    order = ["log_probs", "behaviour_log_probs", "entropies", "rewards", "values", "bootstrap_values", "discounts"]
    for time in (4, 10):
        x = sample(spaces, 3, time, seed=time)
        pg_advantages, vs = vtrace_reference(**{k: x[k] for k in NAMES}, **CLIPS)
        policy = -x["log_probs"] * pg_advantages
        value = 0.5 * (x["values"] - vs) ** 2
        per_item = policy + 0.5 * value - 0.02 * x["entropies"]
        parts = {"policy_loss": policy.mean(), "value_loss": value.mean(), "entropy": x["entropies"].mean()}
        test.test(by_name("loss", x, order), expected_outputs=(per_item.mean(), per_item, parts), decimals=4)
    assert test.graph.output_space("loss")[1] == FloatBox(**TIME_MAJOR)
    assert sorted(c.relative_path(test.component) for c in test.component.walk())[1:] == ["actor_critic", "vtrace"]


@pytest.mark.parametrize("key, space", [("rewards", FloatBox(add_batch_rank=True)),
                                        ("bootstrap_values", FloatBox(**TIME_MAJOR)),
                                        ("discounts", FloatBox(**BATCH_MAJOR))])
def test_bad_input_spaces_name_the_argument(backend, key, space):
    spaces = {**{k: v for k, v in vtrace_spaces(TIME_MAJOR).items() if k != "entropies"}, key: space}
    with pytest.raises(SpaceError) as info:
        ComponentTest(VTrace(), spaces, backend=backend)
    assert (info.value.argument, info.value.component) == (key, "vtrace")


def test_sequences_need_a_time_rank(backend):
    spaces = {**{k: FloatBox(add_batch_rank=True) for k in NAMES}}
    with pytest.raises(SpaceError) as info:
        ComponentTest(VTrace(), spaces, backend=backend)
    assert info.value.argument == "log_probs" and "time rank" in str(info.value)


def test_thresholds_must_be_positive(backend):
    with pytest.raises(ConfigError) as info:
        VTraceLoss(clip_c_threshold=0.0)
    assert info.value.key_path == "clip_c_threshold"
