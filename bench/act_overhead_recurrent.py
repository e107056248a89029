"""Recurrent act overhead: one acting step of an LSTM policy through a built graph against a hand-written torch loop.

Run ``python -m bench.act_overhead_recurrent [--repeats N] [--round-ms MS] [--out PATH.csv]`` (default
``datasets/benchmarks/act_overhead_recurrent.csv``).

Ours is a built :class:`~rlworkbench.components.policies.RecurrentPolicy` (``dense`` tanh, then ``lstm``, then the
action adapter's linear layer; categorical actions), called as ``executor.execute("get_deterministic_action",
states, internal_states, resets)`` on a one-step sequence ``(batch, 1, obs)``: NumPy in, NumPy ``(actions,
(h, c))`` out, the returned state fed into the next call. The baseline is what one writes by hand: ``nn.Linear`` +
``tanh``, ``nn.LSTMCell``, ``nn.Linear``, ``argmax`` of the logits, under ``torch.no_grad()``, with **the same
weights** (``Linear.weight = kernel.T``; ``LSTMCell.weight_ih = kernel.T``, ``weight_hh = recurrent_kernel.T``,
``bias_ih = bias``, ``bias_hh = 0``: the gate order ``[i, f, g, o]`` is torch's too), carrying ``(h, c)`` as
torch tensors from call to call and zeroing the rows whose ``resets`` is set — NumPy states and resets in, NumPy
actions out. Both contenders run the same sequence of steps: before anything is timed, ``CHECK_STEPS`` steps from
the zero state (with resets) must give equal actions and ``(h, c)`` (``np.allclose``, rtol 1e-5, atol 1e-6).

Cases: CartPole ``4 → dense 64 → lstm 64 → 2`` and ``64 → dense 256 → lstm 256 → 18``, batch 1 and 64. Each case
runs ``--repeats`` rounds; a round times back-to-back calls of one contender (about ``--round-ms`` of work, the
same number of calls for both), the contenders alternating (A,B / B,A / …). Figures are per-call medians over
rounds; ``ratio`` = ours / baseline. Target (issue 29): **ratio ≤ 1.10 at batch 64** (batch 1 for information).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import rlworkbench
from bench import common
from rlworkbench.components.policies import RecurrentPolicy
from rlworkbench.spaces import BoolBox, FloatBox, IntBox

ROOT = Path(__file__).resolve().parents[1]
DATASET_DIR = ROOT / "datasets" / "benchmarks"
SEED = 7
CASES: dict[str, tuple[int, int, int]] = {
    # name: (observation size, units of the dense layer and the lstm, actions)
    "cartpole 4-64-lstm64-2": (4, 64, 2),
    "large 64-256-lstm256-18": (64, 256, 18),
}
BATCHES = (1, 64)
TARGETS = {64: 1.10}
RESET_RATE = 0.1  # share of rows whose episode begins at a step
CHECK_STEPS = 5
ACT = "get_deterministic_action"


def build_ours(obs: int, units: int, actions: int) -> Any:
    layers = [{"type": "dense", "units": units, "activation": "tanh"}, {"type": "lstm", "units": units}]
    policy = RecurrentPolicy(layers, IntBox(actions), name="policy")
    sequences = {"add_batch_rank": True, "add_time_rank": True}
    spaces = {"states": FloatBox(shape=(obs,), **sequences), "internal_states": policy.internal_state_space,
              "resets": BoolBox(**sequences)}
    return rlworkbench.build(policy, spaces, backend="torch", seed=SEED, api_methods=[ACT])


def build_baseline(obs: int, units: int, actions: int, weights: dict[str, np.ndarray]) -> Any:
    """``(encoder, cell, head)``: ``nn.Linear``, ``nn.LSTMCell``, ``nn.Linear`` with the executor's weights."""
    import torch
    from torch import nn

    encoder, cell, head = nn.Linear(obs, units), nn.LSTMCell(units, units), nn.Linear(units, actions)
    with torch.no_grad():
        for linear, name in ((encoder, "network/dense_0"), (head, "action_adapter/dense")):
            linear.weight.copy_(torch.from_numpy(weights[f"{name}/kernel"].T.copy()))
            linear.bias.copy_(torch.from_numpy(weights[f"{name}/bias"]))
        cell.weight_ih.copy_(torch.from_numpy(weights["network/lstm_1/kernel"].T.copy()))
        cell.weight_hh.copy_(torch.from_numpy(weights["network/lstm_1/recurrent_kernel"].T.copy()))
        cell.bias_ih.copy_(torch.from_numpy(weights["network/lstm_1/bias"]))
        cell.bias_hh.zero_()
    return encoder.eval(), cell.eval(), head.eval()


class OursLoop:
    """Acting steps through the executor, the returned NumPy state carried into the next call."""

    def __init__(self, executor: Any, batch: int, units: int):
        self.execute = executor.execute
        self.state: tuple[np.ndarray, np.ndarray] = (np.zeros((batch, units), np.float32),) * 2

    def step(self, states: np.ndarray, resets: np.ndarray) -> np.ndarray:
        actions, self.state = self.execute(ACT, states, self.state, resets)
        return actions


class BaselineLoop:
    """The hand-written acting step: (h, c) carried as torch tensors, zeroed on the rows that reset."""

    def __init__(self, modules: Any, batch: int, units: int):
        import torch

        self.torch = torch
        self.encoder, self.cell, self.head = modules
        self.h = self.c = torch.zeros(batch, units)

    def step(self, states: np.ndarray, resets: np.ndarray) -> np.ndarray:
        torch = self.torch
        with torch.no_grad():
            keep = torch.from_numpy(~resets).to(torch.float32)  # (batch, 1)
            x = torch.tanh(self.encoder(torch.from_numpy(states[:, 0])))
            self.h, self.c = self.cell(x, (self.h * keep, self.c * keep))
            return self.head(self.h).argmax(-1, keepdim=True).numpy()

    @property
    def state(self) -> tuple[np.ndarray, np.ndarray]:
        return self.h.numpy(), self.c.numpy()


def inputs(obs: int, batch: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` one-step sequences ``(steps, batch, 1, obs)`` and their resets ``(steps, batch, 1)``."""
    rng = np.random.default_rng(SEED)
    states = rng.standard_normal((steps, batch, 1, obs)).astype(np.float32)
    resets = rng.random((steps, batch, 1)) < RESET_RATE
    resets[0] = True
    return states, resets


def check_equal(case: str, batch: int, ours: OursLoop, baseline: BaselineLoop, states: np.ndarray,
                resets: np.ndarray) -> None:
    """Runs both loops over the same steps; actions and the carried state must agree after every step."""
    for t in range(len(states)):
        mine, theirs = ours.step(states[t], resets[t]), baseline.step(states[t], resets[t])
        if not (mine.shape == theirs.shape and mine.dtype == theirs.dtype and np.array_equal(mine, theirs)):
            raise AssertionError(f"{case}, batch {batch}, step {t}: actions differ ({mine.ravel()[:8]} vs "
                                 f"{theirs.ravel()[:8]}, shapes {mine.shape} / {theirs.shape})")
        for name, a, b in zip("hc", ours.state, baseline.state):
            if not (a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)):
                raise AssertionError(f"{case}, batch {batch}, step {t}: {name} differs (max |diff| "
                                     f"{np.max(np.abs(a - b))})")


def measure(case: str, batch: int, rounds: int, round_s: float) -> dict[str, Any]:
    obs, units, actions = CASES[case]
    executor = build_ours(obs, units, actions)
    modules = build_baseline(obs, units, actions, executor.get_weights())
    states, resets = inputs(obs, batch, CHECK_STEPS + 1)
    ours, baseline = OursLoop(executor, batch, units), BaselineLoop(modules, batch, units)
    check_equal(case, batch, ours, baseline, states[:CHECK_STEPS], resets[:CHECK_STEPS])
    x, r = states[-1], resets[-1]  # every timed call: one step from the carried state, ~10 % of rows resetting
    calls: dict[str, tuple[Callable[..., Any], tuple]] = {"ours": (ours.step, (x, r)),
                                                          "baseline": (baseline.step, (x, r))}
    timed, counts = common.per_call_us(calls, round_s, shared=True)
    samples = common.interleaved(timed, rounds)
    mine, theirs = common.median(samples["ours"]), common.median(samples["baseline"])
    target = TARGETS.get(batch)
    return {
        "benchmark": "act_overhead_recurrent", "case": case, "batch": batch, "units": units,
        "ours_median_us": mine, "baseline_median_us": theirs, "overhead_us": mine - theirs, "ratio": mine / theirs,
        "paired_ratio": common.paired_ratio(samples["ours"], samples["baseline"]),
        "ours_min_us": float(np.min(samples["ours"])), "baseline_min_us": float(np.min(samples["baseline"])),
        "checked_steps": CHECK_STEPS, "outputs_equal": True, "repeats": rounds, "calls_per_round": counts["ours"],
        "target": f"ratio <= {target:.2f}" if target else "",
        "meets_target": (mine / theirs <= target) if target else None,
    }


def run(rounds: int, round_s: float) -> list[dict[str, Any]]:
    return [measure(case, batch, rounds, round_s) for case in CASES for batch in BATCHES]


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "act_overhead_recurrent.csv", 300,
                               "measurement rounds per case (each contender)")
    parser.set_defaults(out=DATASET_DIR / "act_overhead_recurrent.csv")
    parser.add_argument("--round-ms", type=float, default=2.0, help="work per round and contender, in ms")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        frame = common.results_frame(run(args.repeats, args.round_ms / 1e3))
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("Recurrent act overhead: execute('get_deterministic_action', x, (h, c), resets) vs "
                           "nn.Linear + nn.LSTMCell + nn.Linear, same weights (per step, medians)", frame,
                           ["case", "batch", "ours_median_us", "baseline_median_us", "overhead_us", "ratio",
                            "paired_ratio", "target", "meets_target"], path)
    return frame


if __name__ == "__main__":
    main()
