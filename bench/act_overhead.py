"""Act overhead: one API call through a built graph against a hand-written torch network with the same weights.

Run ``python -m bench.act_overhead [--repeats N] [--out bench/results/act_overhead.csv]``.

Ours is ``executor.execute("apply", x)`` on a built :class:`NeuralNetwork` (NumPy in, NumPy out). The baseline is
``nn.Sequential`` of ``nn.Linear``/``nn.ReLU`` holding the same weights (``nn.Linear.weight = kernel.T``), called as
``with torch.no_grad(): net(torch.from_numpy(x)).numpy()`` — the same NumPy → torch → NumPy conversion. Outputs
are checked equal before anything is timed. A third contender, the "floor", calls ``torch.addmm``/``torch.relu``
directly (no ``nn.Module``): the least any Python caller can do, shown for reference (``ratio_vs_floor``).

Each case runs ``--repeats`` rounds; a round times many back-to-back calls of one contender (about
``--round-ms`` of work), the contenders alternating (A,B,C / C,B,A / …). Figures are per-call medians over rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import rlworkbench
from bench import common
from rlworkbench.components import Dense, NeuralNetwork
from rlworkbench.spaces import FloatBox

SEED = 7
NETWORKS: dict[str, tuple[int, list[tuple[int, str | None]]]] = {
    # name: (input size, [(units, activation), ...])
    "cartpole_dqn 4-64-64-2": (4, [(64, "relu"), (64, "relu"), (2, None)]),
    "large 64-256-256-18": (64, [(256, "relu"), (256, "relu"), (18, None)]),
}
BATCHES = (1, 256)
TARGETS = {1: 1.10, 256: 1.02}


def build_ours(inputs: int, layers: Sequence[tuple[int, str | None]], backend: str = "torch",
               executor_options: dict[str, Any] | None = None) -> Any:
    network = NeuralNetwork([Dense(units, activation=act, name=f"dense_{i}") for i, (units, act) in enumerate(layers)])
    return rlworkbench.build(network, {"inputs": FloatBox(shape=(inputs,), add_batch_rank=True)}, backend=backend,
                             seed=SEED, executor_options=executor_options)


def build_baseline(inputs: int, layers: Sequence[tuple[int, str | None]], weights: dict[str, np.ndarray]) -> Any:
    """``nn.Sequential`` with the executor's weights (kernel ``(in, out)``, so ``weight = kernel.T``)."""
    import torch
    from torch import nn

    modules: list[nn.Module] = []
    size = inputs
    for i, (units, act) in enumerate(layers):
        linear = nn.Linear(size, units)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(weights[f"dense_{i}/kernel"].T.copy()))
            linear.bias.copy_(torch.from_numpy(weights[f"dense_{i}/bias"]))
        modules += [linear, nn.ReLU()] if act == "relu" else [linear]
        size = units
    return nn.Sequential(*modules).eval()


def baseline_call(net: Any) -> Any:
    import torch

    def act(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return net(torch.from_numpy(x)).numpy()

    return act


def floor_call(layers: Sequence[tuple[int, str | None]], weights: dict[str, np.ndarray]) -> Any:
    """The least torch can do: ``torch.addmm`` / ``torch.relu`` straight on the kernels, no ``nn.Module`` calls.

    Not the baseline of the targets; it shows how much of any gap is the framework's Python and how much is
    ``nn.Module.__call__`` on the baseline's side.
    """
    import torch

    params = [(torch.from_numpy(weights[f"dense_{i}/kernel"]), torch.from_numpy(weights[f"dense_{i}/bias"]),
               act == "relu") for i, (_, act) in enumerate(layers)]

    def act(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            h = torch.from_numpy(x)
            for kernel, bias, relu in params:
                h = torch.addmm(bias, h, kernel)
                if relu:
                    h = torch.relu(h)
            return h.numpy()

    return act


def check_equal(case: str, batch: int, name: str, ours: np.ndarray, other: np.ndarray, rtol: float = 1e-5,
                atol: float = 1e-6, ours_name: str = "ours") -> None:
    if not (ours.shape == other.shape and ours.dtype == other.dtype
            and np.allclose(ours, other, rtol=rtol, atol=atol)):
        raise AssertionError(f"{case}, batch {batch}: outputs of {ours_name} and {name} differ "
                             f"(shapes {ours.shape} / {other.shape}, max |diff| {np.max(np.abs(ours - other))})")


def measure(case: str, batch: int, rounds: int, round_s: float) -> dict[str, Any]:
    inputs, layers = NETWORKS[case]
    executor = build_ours(inputs, layers)
    weights = executor.get_weights()
    x = np.random.default_rng(SEED).standard_normal((batch, inputs)).astype(np.float32)
    contenders = {"ours": (executor.execute, ("apply", x)),
                  "baseline": (baseline_call(build_baseline(inputs, layers, weights)), (x,)),
                  "floor": (floor_call(layers, weights), (x,))}
    reference = executor.execute("apply", x)
    for name in ("baseline", "floor"):
        fn, args = contenders[name]
        check_equal(case, batch, name, reference, fn(*args))
    timed, counts = common.per_call_us(contenders, round_s, shared=True)
    calls = counts["ours"]
    samples = common.interleaved(timed, rounds)
    ours, theirs, floor = (common.median(samples[name]) for name in ("ours", "baseline", "floor"))
    target = TARGETS[batch]
    return {
        "benchmark": "act_overhead", "case": case, "batch": batch, "ours_median_us": ours,
        "baseline_median_us": theirs, "overhead_us": ours - theirs, "ratio": ours / theirs,
        "paired_ratio": common.paired_ratio(samples["ours"], samples["baseline"]), "floor_median_us": floor,
        "ratio_vs_floor": ours / floor, "repeats": rounds, "calls_per_round": calls,
        "target": f"ratio <= {target:.2f}", "meets_target": ours / theirs <= target,
    }


def run(rounds: int, round_s: float) -> list[dict[str, Any]]:
    return [measure(case, batch, rounds, round_s) for case in NETWORKS for batch in BATCHES]


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "act_overhead.csv", 300,
                               "measurement rounds per case (each contender)")
    parser.add_argument("--round-ms", type=float, default=1.0,
                        help="work per round and contender, in ms (short rounds: adjacent A/B/C rounds then see "
                             "the same machine load)")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        frame = common.results_frame(run(args.repeats, args.round_ms / 1e3))
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("Act overhead: executor.execute('apply', x) vs nn.Sequential, same weights (per call, "
                           "medians)", frame, ["case", "batch", "ours_median_us", "baseline_median_us",
                                               "overhead_us", "ratio", "paired_ratio", "floor_median_us",
                                               "ratio_vs_floor", "target", "meets_target"], path)
    return frame


if __name__ == "__main__":
    main()
