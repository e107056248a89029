"""Episode boundaries and n-step returns per environment (NumPy), and DQN storing n-step transitions."""

from __future__ import annotations

import numpy as np
from agent_helpers import small_agent

from rlworkbench.agents.transitions import EpisodeTracker, NStepAccumulator

GAMMA = 0.9


def flat(values) -> dict:
    return {"": np.asarray(values, dtype=np.float32).reshape(-1, 1)}


def chain(env_steps: int, start: float = 0.0) -> list[tuple[float, float]]:
    """States ``start, start+1, ...``: each transition's next state is the following one's state."""
    return [(start + t, start + t + 1) for t in range(env_steps)]


def add(accumulator, tracker, env_ids, states, rewards, terminals, next_states):
    starts, _ = tracker.step(env_ids, flat(states), np.asarray(terminals), flat(next_states))
    return accumulator.add(env_ids, starts, flat(states), np.arange(len(env_ids)), np.asarray(rewards, np.float32),
                           np.asarray(terminals), flat(next_states))


def test_n_step_returns_and_terminals():
    acc, tracker = NStepAccumulator(3, GAMMA), EpisodeTracker()
    out = [add(acc, tracker, [0], [s], [r], [False], [sp]) for (s, sp), r in zip(chain(4), [1.0, 2.0, 3.0, 4.0])]
    assert out[0] is None and out[1] is None
    np.testing.assert_allclose(out[2]["rewards"], [1 + GAMMA * 2 + GAMMA ** 2 * 3])
    np.testing.assert_array_equal(out[2]["states"][""][:, 0], [0.0])
    np.testing.assert_array_equal(out[2]["next_states"][""][:, 0], [3.0])
    np.testing.assert_allclose(out[3]["rewards"], [2 + GAMMA * 3 + GAMMA ** 2 * 4])
    done = add(acc, tracker, [0], [4.0], [5.0], [True], [5.0])  # a terminal flushes the shorter returns too
    np.testing.assert_allclose(done["rewards"], [3 + GAMMA * 4 + GAMMA ** 2 * 5, 4 + GAMMA * 5, 5.0])
    np.testing.assert_array_equal(done["terminals"], [True, True, True])
    np.testing.assert_array_equal(done["next_states"][""][:, 0], [5.0, 5.0, 5.0])
    assert add(acc, tracker, [0], [10.0], [1.0], [False], [11.0]) is None  # a new episode starts empty


def test_truncated_episodes_drop_their_short_tails():
    """A transition that does not continue the last one (truncation + reset) starts a new trajectory; pending
    transitions of the old one cannot bootstrap with discount**n and are dropped."""
    acc, tracker = NStepAccumulator(3, GAMMA), EpisodeTracker()
    for s, sp in chain(4):
        add(acc, tracker, [0], [s], [1.0], [False], [sp])
    out = add(acc, tracker, [0], [100.0], [1.0], [False], [101.0])  # env reset after a truncation at state 4
    assert out is None
    out = [add(acc, tracker, [0], [s], [1.0], [False], [sp]) for s, sp in chain(2, start=101.0)]
    np.testing.assert_array_equal(out[1]["states"][""][:, 0], [100.0])


def test_environments_accumulate_separately():
    acc, tracker = NStepAccumulator(2, GAMMA), EpisodeTracker()
    assert add(acc, tracker, [0, 1], [0.0, 50.0], [1.0, 10.0], [False, False], [1.0, 51.0]) is None
    out = add(acc, tracker, [1, 0], [51.0, 1.0], [20.0, 2.0], [False, False], [52.0, 2.0])  # rows in another order
    np.testing.assert_array_equal(out["states"][""][:, 0], [50.0, 0.0])
    np.testing.assert_allclose(out["rewards"], [10 + GAMMA * 20, 1 + GAMMA * 2])


def test_episode_tracker_counts_terminated_and_unseen_ends():
    tracker = EpisodeTracker()
    starts, ended = tracker.step([0, 1], flat([0, 10]), np.array([False, True]), flat([1, 11]))
    assert starts.tolist() == [True, True] and ended == 1
    starts, ended = tracker.step([0, 1], flat([1, 20]), np.array([False, False]), flat([2, 21]))
    assert starts.tolist() == [False, True] and ended == 0  # env 1's episode had terminated: counted once
    starts, ended = tracker.step([0], flat([7]), np.array([False]), flat([8]))
    assert starts.tolist() == [True] and ended == 1  # env 0 jumped: its episode ended without a terminal
    tracker.reset()
    assert tracker.step([0], flat([8]), np.array([False]), flat([9]))[0].tolist() == [True]


def test_dqn_stores_n_step_transitions(backend):
    agent = small_agent(backend, loss={"n_step": 3}, discount=GAMMA)
    states = np.zeros((6, 4), np.float32)
    states[:, 0] = np.linspace(0, 0.5, 6)
    for t in range(5):
        agent.observe(states[t], t % 3, float(t + 1), t == 4, states[t + 1])
    weights = agent.get_weights()
    size = int(agent.executor.execute("get_memory_size"))
    assert size == 5
    rewards = weights["memory/records/rewards"][:size]
    expected = [1 + GAMMA * 2 + GAMMA ** 2 * 3, 2 + GAMMA * 3 + GAMMA ** 2 * 4, 3 + GAMMA * 4 + GAMMA ** 2 * 5,
                4 + GAMMA * 5, 5.0]
    np.testing.assert_allclose(rewards, expected, rtol=1e-6)
    np.testing.assert_array_equal(weights["memory/records/terminals"][:size], [False, False, True, True, True])
    np.testing.assert_array_equal(weights["memory/records/next_states"][:size, 0], states[[3, 4, 5, 5, 5], 0])
    np.testing.assert_array_equal(weights["memory/records/actions"][:size], [0, 1, 2, 0, 1])
    agent.observe(states[0], 0, 1.0, False, states[1])
    agent.reset()  # forgets the pending transition
    agent.observe(states[1], 0, 1.0, False, states[2])
    agent.observe(states[2], 0, 1.0, False, states[3])
    assert int(agent.executor.execute("get_memory_size")) == 5


class RowByRowTracker:
    """The episode rule of :class:`EpisodeTracker` row by row, from its definition: the reference below."""

    def __init__(self):
        self.last = {}

    def step(self, env_ids, states, terminals, next_states):
        starts, ended = np.zeros(len(env_ids), bool), 0
        for row, env in enumerate(env_ids):
            last = self.last.get(env)
            if last is None or not all(np.array_equal(last[k], states[k][row]) for k in last):
                starts[row] = True
                ended += last is not None
            if terminals[row]:
                ended += 1
                self.last.pop(env, None)
            else:
                self.last[env] = {k: np.array(v[row]) for k, v in next_states.items()}
        return starts, ended


def test_the_episode_tracker_agrees_with_the_row_by_row_rule_on_random_streams():
    """Random envs (ids of any kind, rows in any order, an env twice in one call, new envs late, dtypes widening
    from float32 to float64), continuations, jumps and terminals: the same starts and counts as row by row."""
    rng = np.random.default_rng(5)
    tracker, reference = EpisodeTracker(), RowByRowTracker()
    envs = [0, 1, "left", (2, 3), 7, 8, 9, 10, 11]
    current = {env: rng.integers(0, 3, (2, 2)).astype(np.float32) for env in envs}
    for step in range(400):
        ids = list(rng.choice(len(envs), int(rng.integers(1, 7)), replace=bool(rng.random() < 0.15)))
        ids = [envs[i] for i in ids if i < 4 + step // 50]  # more envs join as the stream goes on
        if not ids:
            continue
        dtype = np.float32 if step < 250 else np.float64
        states = np.stack([current[env] if rng.random() < 0.8 else rng.integers(0, 3, (2, 2)) for env in ids])
        next_states = rng.integers(0, 3, (len(ids), 2, 2)).astype(dtype)
        terminals = rng.random(len(ids)) < 0.1
        flat_states, flat_next = {"x": states.astype(dtype)}, {"x": next_states}
        got = tracker.step(ids, flat_states, terminals, flat_next)
        expected = reference.step(ids, flat_states, terminals, flat_next)
        assert got[0].tolist() == expected[0].tolist() and got[1] == expected[1], step
        for env, following in zip(ids, next_states):
            current[env] = following
        if step % 97 == 96:
            tracker.reset()
            reference.last.clear()
