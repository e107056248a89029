"""Builder redraw: how long a change in the GraphBuilder takes to show, for the dueling DQN with prioritised replay.

Run ``python -m bench.builder_redraw [--repeats N] [--out bench/results/builder_redraw.csv]``.

Per backend (torch, tf): a ``GraphBuilder("dqn_dueling_per_cartpole")``; each repeat changes the value stream's
width (128 ↔ 96 units, so spaces and variables change and the diff has work to do) through ``builder.set`` and
reads ``builder.redraw_seconds``: validate the config, make and build the agent, fingerprint it, compare, draw
the SVG with the changes marked. The baseline, interleaved repeat by repeat, is the bare work without the
builder: ``Agent.from_config(config).build()`` plus ``graph_svg(agent)``. ``ratio`` = builder / baseline
(medians); the target is the issue's: a change → redraw under 0.5 s on torch.

``--first-switch N``: also the first switch to TF, N times each in a fresh process — the builder opened on torch and
shown (as a notebook shows it), then switched at once or after 10 s — with the background import of the other
backends (ours) and without it (baseline, ``RLWORKBENCH_PRELOAD_BACKENDS=0``), interleaved.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from typing import Any

from bench import common

CONFIG = "dqn_dueling_per_cartpole"
WIDTHS = (96, 128)
TARGET_S = {"torch": 0.5}
SWITCH_WAITS_S = (0, 10)  # seconds between showing the builder and the first switch to TF
FIRST_SWITCH = """
import time
from rlworkbench.workbench import GraphBuilder
builder = GraphBuilder({config!r}, backend="torch")
builder._repr_mimebundle_()  # shown, as a notebook shows it: the background import starts (when on)
time.sleep({wait})
started = time.perf_counter()
assert builder.set_backend("tf"), builder.status
print(time.perf_counter() - started)
"""


def run(repeats: int) -> list[dict[str, Any]]:
    import gymnasium

    from rlworkbench.agents import Agent
    from rlworkbench.visualize import graph_svg
    from rlworkbench.workbench import GraphBuilder

    env = gymnasium.make("CartPole-v1")
    rows = []
    for backend in ("torch", "tf"):
        builder = GraphBuilder(CONFIG, backend=backend)
        builder.set("policy/value_units", [WIDTHS[0]])  # warm: the first build of a backend pays its start-up

        ours, baseline = [], []
        for repeat in range(repeats):
            width = WIDTHS[(repeat + 1) % 2]
            if not builder.set("policy/value_units", [width]):
                raise RuntimeError(f"the builder did not build: {builder.status}")
            ours.append(builder.redraw_seconds)
            config = {**builder.config, "policy": {**builder.config["policy"], "value_units": [width]}}
            started = time.perf_counter()  # the bare work: make, build, draw
            agent = Agent.from_config(config, state_space=env.observation_space, action_space=env.action_space,
                                      backend=backend).build()
            graph_svg(agent)
            baseline.append(time.perf_counter() - started)
        builder.close()
        ours_s, base_s = statistics.median(ours), statistics.median(baseline)
        target = TARGET_S.get(backend)
        rows.append({"benchmark": "builder_redraw", "case": f"dueling_per_dqn_{backend}", "backend": backend,
                     "batch": None, "ours_median_s": ours_s, "baseline_median_s": base_s, "ratio": ours_s / base_s,
                     "paired_ratio": statistics.median(o / b for o, b in zip(ours, baseline, strict=True)),
                     "repeats": repeats, "target": f"redraw < {target} s" if target else "",
                     "meets_target": ours_s < target if target else None})
    env.close()
    return rows


def first_switch_seconds(wait: float, preload: bool) -> float:
    """The first switch to TF in a fresh process, ``wait`` seconds after the builder was shown."""
    env = {**os.environ, "RLWORKBENCH_PRELOAD_BACKENDS": "1" if preload else "0", "TF_CPP_MIN_LOG_LEVEL": "2",
           "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", FIRST_SWITCH.format(config=CONFIG, wait=wait)], env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the first-switch process failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def run_first_switch(repeats: int) -> list[dict[str, Any]]:
    rows = []
    for wait in SWITCH_WAITS_S:
        ours, baseline = [], []
        for repeat in range(repeats):  # interleaved, the order turned each repeat
            for preload in ((True, False) if repeat % 2 == 0 else (False, True)):
                (ours if preload else baseline).append(first_switch_seconds(wait, preload))
        ours_s, base_s = statistics.median(ours), statistics.median(baseline)
        rows.append({"benchmark": "builder_redraw", "case": f"first_tf_switch_{wait}s_after_shown", "backend": "tf",
                     "batch": None, "ours_median_s": ours_s, "baseline_median_s": base_s, "ratio": ours_s / base_s,
                     "paired_ratio": statistics.median(o / b for o, b in zip(ours, baseline, strict=True)),
                     "repeats": repeats, "target": "", "meets_target": None})
    return rows


def main(argv: list[str] | None = None):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    parser = common.arg_parser(__doc__.splitlines()[0], "builder_redraw.csv", 15, "changes per backend")
    parser.add_argument("--first-switch", type=int, default=0, metavar="N",
                        help="also time the first switch to TF in N fresh processes per case (with / without the "
                             "background import)")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        common.pin_tf_threads(args.threads)
        rows = run(args.repeats) + (run_first_switch(args.first_switch) if args.first_switch else [])
        frame = common.results_frame(rows, tensorflow=True)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("GraphBuilder: change → redraw, dueling DQN + PER (medians, seconds)", frame,
                           ["case", "ours_median_s", "baseline_median_s", "ratio", "paired_ratio", "target",
                            "meets_target"], path)
    return frame


if __name__ == "__main__":
    main()
