"""Build overhead: ``rlworkbench.build`` (assembly + build + executor) against making the torch modules by hand.

Run ``python -m bench.build_overhead [--repeats N] [--out bench/results/build_overhead.csv]``.

Cases:

- ``one_dense``: one :class:`Dense` (64 → 64) against one ``torch.nn.Linear(64, 64)``.
- ``stack``: a root with a :class:`PreprocessorStack` (one :class:`Clip`) and a :class:`NeuralNetwork` of 7
  Dense layers (64 units, relu but the last) — 11 components — against ``nn.Sequential``s holding a
  ``Hardtanh`` (the clip) and the 7 ``nn.Linear``/``nn.ReLU``.
- scaling (a second table, ``build_scaling``): a :class:`NeuralNetwork` of ``N - 1`` Dense layers (8 units) for
  ``N`` = 10, 100 and 1,000 components, against an ``nn.Sequential`` of as many ``nn.Linear(8, 8)``; the build's
  cost per component, and its ratio to the 100-component case (target: at most 1.5 at 1,000 — the build grows
  linearly with the graph).

"Ours" times ``build(...)`` only; the components are composed (plain Python objects) before the clock starts,
a fresh tree per repeat. The baseline times creating the modules (parameters initialised by torch's own
initialisers, from torch's global RNG: no ``torch.manual_seed`` in the timed region, as that alone costs
~0.25 ms here and would flatter our figure). Build and baseline alternate repeat by repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import rlworkbench
from bench import common
from rlworkbench.components import Clip, Dense, NeuralNetwork, PreprocessorStack
from rlworkbench.core import Component, api
from rlworkbench.spaces import FloatBox

SEED = 7
WIDTH = 64
STACK_LAYERS = 7
TARGET_ONE_MS = 5.0
SCALING_COMPONENTS = (10, 100, 1000)
SCALING_WIDTH = 8
TARGET_SCALING = 1.5  # per-component cost at 1,000 components / at 100


class StackRoot(Component):
    """Root of the stack case: preprocess, then the network."""

    def __init__(self, preprocessors: Component, network: Component, **kwargs: Any):
        super().__init__(preprocessors, network, **kwargs)
        self.preprocessors, self.network = preprocessors, network

    @api
    def get_output(self, inputs: Any) -> Any:
        return self.network.apply(self.preprocessors.preprocess(inputs))


def make_one_dense() -> Component:
    return Dense(WIDTH, name="dense")


def make_stack() -> Component:
    layers = [Dense(WIDTH, activation="relu" if i < STACK_LAYERS - 1 else None, name=f"dense_{i}")
              for i in range(STACK_LAYERS)]
    return StackRoot(PreprocessorStack([Clip(-10.0, 10.0)]), NeuralNetwork(layers), name="root")


def torch_one_dense() -> Any:
    import torch

    return torch.nn.Linear(WIDTH, WIDTH)


def torch_stack() -> Any:
    from torch import nn

    modules: list[nn.Module] = []
    for i in range(STACK_LAYERS):
        modules.append(nn.Linear(WIDTH, WIDTH))
        if i < STACK_LAYERS - 1:
            modules.append(nn.ReLU())
    return nn.Sequential(nn.Sequential(nn.Hardtanh(-10.0, 10.0)), nn.Sequential(*modules))


CASES: list[tuple[str, Callable[[], Component], Callable[[], Any], float | None]] = [
    ("one_dense", make_one_dense, torch_one_dense, TARGET_ONE_MS),
    ("stack", make_stack, torch_stack, None),
]


def make_network(components: int) -> Callable[[], Component]:
    """A NeuralNetwork with ``components - 1`` Dense layers (``components`` components in all)."""
    return lambda: NeuralNetwork([Dense(SCALING_WIDTH, name=f"dense_{i}") for i in range(components - 1)])


def torch_network(components: int) -> Callable[[], Any]:
    def make() -> Any:
        from torch import nn

        return nn.Sequential(*(nn.Linear(SCALING_WIDTH, SCALING_WIDTH) for _ in range(components - 1)))

    return make


def build_ms(make: Callable[[], Component], backend: str = "torch", width: int = WIDTH) -> Callable[[], float]:
    """A contender for :func:`common.interleaved`: composes a fresh tree with ``make`` (untimed), then returns
    the milliseconds ``rlworkbench.build`` of it on ``backend`` takes."""
    spaces = {"inputs": FloatBox(shape=(width,), add_batch_rank=True)}

    def ours() -> float:
        root = make()
        return common.time_once_ns(lambda: rlworkbench.build(root, spaces, backend=backend, seed=SEED)) / 1e6

    return ours


def measure_case(make: Callable[[], Component], baseline: Callable[[], Any], repeats: int,
                 warmup: int, width: int = WIDTH) -> dict[str, list[float]]:
    def theirs() -> float:
        return common.time_once_ns(baseline) / 1e6

    contenders = {"ours": build_ms(make, width=width), "baseline": theirs}
    common.interleaved(contenders, warmup)
    return common.interleaved(contenders, repeats)


def run(repeats: int) -> list[dict[str, Any]]:
    rows = []
    for case, make, baseline, target in CASES:
        samples = measure_case(make, baseline, repeats, warmup=max(2, repeats // 10))
        ours, theirs = common.median(samples["ours"]), common.median(samples["baseline"])
        overhead = ours - theirs
        rows.append({
            "benchmark": "build_overhead", "case": case, "components": sum(1 for _ in make().walk()), "batch": None,
            "ours_median_ms": ours, "baseline_median_ms": theirs, "overhead_ms": overhead, "ratio": ours / theirs,
            "paired_ratio": common.paired_ratio(samples["ours"], samples["baseline"]), "repeats": repeats,
            "target": f"overhead <= {target:g} ms" if target is not None else "",
            "meets_target": (overhead <= target) if target is not None else None,
        })
    return rows


def run_scaling(repeats: int) -> list[dict[str, Any]]:
    """Build cost per component as the graph grows (fewer repeats for the large cases)."""
    rows = []
    for components in SCALING_COMPONENTS:
        count = max(3, repeats // max(1, components // 10))
        samples = measure_case(make_network(components), torch_network(components), count, warmup=1,
                               width=SCALING_WIDTH)
        ours, theirs = common.median(samples["ours"]), common.median(samples["baseline"])
        rows.append({"benchmark": "build_scaling", "case": f"network_{components}", "components": components,
                     "batch": None, "ours_median_ms": ours, "baseline_median_ms": theirs,
                     "ours_ms_per_component": ours / components, "ratio": ours / theirs, "repeats": count})
    per_100 = next(row["ours_ms_per_component"] for row in rows if row["components"] == 100)
    for row in rows:
        row["per_component_vs_100"] = row["ours_ms_per_component"] / per_100
        if row["components"] > 100:
            row["target"] = f"per_component_vs_100 <= {TARGET_SCALING:g}"
            row["meets_target"] = row["per_component_vs_100"] <= TARGET_SCALING
        else:
            row["target"], row["meets_target"] = "", None
    return rows


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "build_overhead.csv", 100,
                               "timed builds per case (each contender)")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        frame = common.results_frame(run(args.repeats) + run_scaling(args.repeats))
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        overhead, scaling = frame[frame.benchmark == "build_overhead"], frame[frame.benchmark == "build_scaling"]
        common.print_table("Build overhead: rlworkbench.build vs torch modules by hand (medians)", overhead,
                           ["case", "components", "ours_median_ms", "baseline_median_ms", "overhead_ms", "ratio",
                            "paired_ratio", "target", "meets_target"], None)
        common.print_table("Build scaling: cost per component as the graph grows (medians)", scaling,
                           ["case", "components", "ours_median_ms", "baseline_median_ms", "ours_ms_per_component",
                            "per_component_vs_100", "target", "meets_target"], path)
    return frame


if __name__ == "__main__":
    main()
