"""PPO-LSTM update time: ``RecurrentPPOAgent.update(batch)`` against the same update written by hand in PyTorch.

Run ``python -m bench.ppo_lstm_update [--repeats N] [--round-s S] [--out PATH.csv]`` (default
``datasets/benchmarks/ppo_lstm_update.csv``).

Ours is the shipped ``ppo_lstm_cartpole`` agent with its network pinned to dense 64 tanh -> lstm 64 (the layout the
hand-written update mirrors; the shipped config puts the lstm first) -> logits and a linear value head, Adam
1e-3 with gradient-norm clipping 0.5, GAE lambda 0.8) with ``update`` set to ``rollout_length`` 32, ``num_epochs``
4, ``num_minibatches`` 2, ``sequence_length`` 16, calling ``agent.update(batch)`` on one fixed outside batch: 8
CartPole-v1 envs x 32 steps of random actions (``states, actions, rewards, terminals, next_states`` shaped
``(8, 32, ...)``, the true final observation where an episode ended; no ``internal_states``: zeros). The baseline
is :class:`bench.hand_ppo_lstm.HandPPOLSTM` on the same batch, from the same weights. Both do the same learning
work per update:

- episode starts and bootstrap steps found from the batch (ours: per step, through its ``preprocess`` API call —
  the config has no preprocessing — as ``update(batch)`` does for any outside batch);
- a no-grad evaluation of the 256 steps (log-probs, values, the LSTM state after every step) and one LSTM step for
  each bootstrapping step's ``V(next_state)`` (the last step of every env whose episode goes on);
- GAE;
- 4 epochs x 2 minibatches = **8 gradient steps**, each a forward and backward pass over 8 whole sequences of 16
  steps (128 steps) from their recomputed start states, clipped surrogate + 0.5 x value loss (+ entropy x 0), Adam,
  clipping. The sequences are cut and shuffled alike (same generator state), so from equal weights both make the
  same steps: before anything is timed one update of each, from a fresh agent and a fresh baseline, must give the
  same metrics (``rtol`` 1e-3) and weights after it (``atol`` 1e-4).

A third contender, ``baseline_cell``, is the same hand-written update stepping an ``nn.LSTMCell`` instead of a
one-step ``nn.LSTM`` (same weights and maths, checked alike): ``nn.LSTM``'s per-call Python (argument checks,
weight flattening) costs more per step than the fused cell, so this is the leaner hand-written loop;
``ratio_vs_cell`` = ours / it, for information (the target is against ``nn.LSTM``).

One difference in the evaluation is ours' own cost and counted against it: the agent unrolls the rollout twice
without gradients (``evaluate`` for log-probs and values, ``step_states`` for the state after every step), the hand
loop once (its per-step states come out of the same pass). The hand loop steps ``nn.LSTM`` one step at a time (it
must: states reset inside the sequences), ours its own unroll (one input projection, then per-step recurrent
matmul and gates).

Rounds alternate (A,B / B,A / …); a round is back-to-back updates for about ``--round-s`` (the same number for
both); the figure is ms per update, median over rounds; ``ratio`` = ours / baseline. Target (issue 29): **ratio ≤
1.15**. Updates keep changing both sets of weights while timed; the work per update does not depend on them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from bench import common
from bench.hand_ppo_lstm import HandPPOLSTM, Settings

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"
CONFIG = ROOT / "rlworkbench" / "agents" / "configs" / "ppo_lstm_cartpole.json"
ENV_ID = "CartPole-v1"
NUM_ENVS, LENGTH = 8, 32
SEED = 0
NETWORK = [{"type": "dense", "units": 64, "activation": "tanh"}, {"type": "lstm", "units": 64}]
TARGET = 1.15
METRICS = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "grad_norm",
           "explained_variance", "gradient_steps")


def agent_config(settings: Settings) -> dict[str, Any]:
    config = json.loads(CONFIG.read_text())
    config["policy"]["network"] = NETWORK  # what HandPPOLSTM mirrors, whatever the shipped config's layout
    config["update"].update(rollout_length=LENGTH, num_epochs=settings.num_epochs,
                            num_minibatches=settings.num_minibatches, sequence_length=settings.sequence_length)
    return config


def make_agent(settings: Settings) -> Any:
    from rlworkbench.agents import Agent

    return Agent.from_env(ENV_ID, agent_config(settings), backend="torch", seed=SEED).build()


def collect(num_envs: int = NUM_ENVS, length: int = LENGTH, seed: int = SEED) -> dict[str, np.ndarray]:
    """``length`` steps of ``num_envs`` CartPoles with random actions, as ``(num_envs, length, ...)`` sequences."""
    from rlworkbench.execution import make_vector_env

    env = make_vector_env(ENV_ID, num_envs=num_envs, seed=seed)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    columns: dict[str, list[np.ndarray]] = {key: [] for key in ("states", "actions", "rewards", "terminals",
                                                                 "next_states")}
    for _ in range(length):
        actions = rng.integers(0, 2, num_envs)
        following, rewards, terminated, _, infos = env.step(actions)
        next_states = following.copy()
        if "final_obs" in infos:
            for row in np.flatnonzero(infos["_final_obs"]):
                next_states[row] = infos["final_obs"][row]
        for key, value in (("states", obs), ("actions", actions), ("rewards", rewards),
                           ("terminals", terminated), ("next_states", next_states)):
            columns[key].append(np.asarray(value))
        obs = following
    env.close()
    batch = {key: np.stack(values, 1) for key, values in columns.items()}
    batch["states"], batch["next_states"] = (batch[k].astype(np.float32) for k in ("states", "next_states"))
    batch["rewards"], batch["terminals"] = batch["rewards"].astype(np.float32), batch["terminals"].astype(bool)
    batch["actions"] = batch["actions"].astype(np.int64)
    return batch


def make_pair(settings: Settings, cell: bool = False) -> tuple[Any, HandPPOLSTM]:
    agent = make_agent(settings)
    return agent, HandPPOLSTM(agent.get_weights(), settings, agent.shuffle_rng.bit_generator.state, cell=cell)


def check_same_update(settings: Settings, batch: dict[str, np.ndarray], cell: bool = False) -> dict[str, float]:
    """One update of a fresh agent and a fresh baseline: equal metrics and weights after, else AssertionError.
    Returns the largest relative metric difference and absolute weight difference seen."""
    agent, hand = make_pair(settings, cell)
    ours, theirs = agent.update(batch), hand.update(batch)
    worst_metric = 0.0
    for name in METRICS:
        a, b = ours[name], theirs[name]
        if not np.isclose(a, b, rtol=1e-3, atol=1e-5):
            raise AssertionError(f"update metric {name} differs: ours {a}, hand {b}")
        worst_metric = max(worst_metric, abs(a - b) / max(abs(b), 1e-12))
    mine, other = agent.get_weights(), hand.weights()
    worst_weight = 0.0
    for name, value in other.items():
        diff = float(np.max(np.abs(mine[name] - value)))
        if diff > 1e-4:
            raise AssertionError(f"weights {name} after one update differ: max |diff| {diff}")
        worst_weight = max(worst_weight, diff)
    return {"max_metric_rel_diff": worst_metric, "max_weight_abs_diff": worst_weight}


def run(rounds: int, round_s: float) -> list[dict[str, Any]]:
    settings = Settings()
    batch = collect()
    checks = [check_same_update(settings, batch, cell) for cell in (False, True)]
    check = {key: max(c[key] for c in checks) for key in checks[0]}
    agent, hand = make_pair(settings)
    cell = HandPPOLSTM(agent.get_weights(), settings, agent.shuffle_rng.bit_generator.state, cell=True)
    timed, counts = common.per_call_us({"ours": (agent.update, (batch,)), "baseline": (hand.update, (batch,)),
                                        "baseline_cell": (cell.update, (batch,))}, round_s, shared=True)
    samples = common.interleaved(timed, rounds)
    ms = {name: [us / 1e3 for us in values] for name, values in samples.items()}
    mine, theirs, leaner = (common.median(ms[name]) for name in ("ours", "baseline", "baseline_cell"))
    steps = NUM_ENVS * LENGTH
    gradient_steps = settings.num_epochs * settings.num_minibatches
    return [{
        "benchmark": "ppo_lstm_update", "case": f"cartpole {NUM_ENVS}x{LENGTH} lstm{settings.units}",
        "num_envs": NUM_ENVS, "length": LENGTH, "units": settings.units, "num_epochs": settings.num_epochs,
        "num_minibatches": settings.num_minibatches, "sequence_length": settings.sequence_length,
        "gradient_steps": gradient_steps, "ours_median_ms": mine, "baseline_median_ms": theirs,
        "overhead_ms": mine - theirs, "ratio": mine / theirs, "paired_ratio": common.paired_ratio(ms["ours"],
                                                                                                 ms["baseline"]),
        "cell_median_ms": leaner, "ratio_vs_cell": mine / leaner,
        "paired_ratio_vs_cell": common.paired_ratio(ms["ours"], ms["baseline_cell"]),
        "ours_min_ms": float(np.min(ms["ours"])), "baseline_min_ms": float(np.min(ms["baseline"])),
        "ours_steps_per_s": steps / (mine / 1e3), "baseline_steps_per_s": steps / (theirs / 1e3),
        "outputs_equal": True, **check, "repeats": rounds, "calls_per_round": counts["ours"],
        "target": f"ratio <= {TARGET:.2f}", "meets_target": mine / theirs <= TARGET,
    }]


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "ppo_lstm_update.csv", 15,
                               "measurement rounds (each contender)")
    parser.set_defaults(out=DATASET_DIR / "ppo_lstm_update.csv")
    parser.add_argument("--round-s", type=float, default=0.5, help="work per round and contender, in seconds")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        frame = common.results_frame(run(args.repeats, args.round_s))
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("PPO-LSTM update: RecurrentPPOAgent.update(batch) vs the same update by hand in PyTorch "
                           "(ms per update, medians; ratio = ours / hand)", frame,
                           ["case", "gradient_steps", "ours_median_ms", "baseline_median_ms", "overhead_ms", "ratio",
                            "paired_ratio", "cell_median_ms", "ratio_vs_cell", "target", "meets_target"], path)
    return frame


if __name__ == "__main__":
    main()
