"""Backends: the same components on TensorFlow and on PyTorch, one API call and one build, side by side.

Run ``python -m bench.backends [--repeats N] [--build-repeats N] [--round-ms MS] [--batches B ...] [--out PATH]
[--threads N]``.

Three tables (one CSV, told apart by the ``benchmark`` column):

- ``backends_act`` — ``executor.execute("apply", x)``, NumPy in and out, of the same :class:`NeuralNetwork` built
  for torch, for TF and for TF with XLA (``executor_options={"jit_compile": True}``), **with the same weights**
  (torch's, copied with ``get_weights``/``set_weights``; outputs checked equal before anything is timed).
  Networks of :mod:`bench.act_overhead`, batches 1 … 1024. ``ratio`` = TF / torch (per-call medians; < 1: TF is
  faster), ``xla_ratio`` = TF-XLA / torch. ``tf_xla_first_call_ms`` is the first call at that batch size: XLA
  compiles per input shape there, and the first batch's first call also traces (it is not in the medians).
  Targets: a batch-1 call of the CartPole network (nearly all fixed per-call cost) within 100 µs on TF; on the
  large network at batch >= 256, ``ratio <= 1``.
- ``backends_build`` — ``rlworkbench.build`` of the cases of :mod:`bench.build_overhead` on each backend (TF:
  the one build trace; API methods are traced at their first call); ``ratio`` = TF / torch.
- ``backends_agent_build`` — the shipped ``dqn_dueling_per_cartpole`` agent built on each backend, and built plus
  its first ``get_actions``/``observe``/``update`` calls (where TF traces those API methods). Target: the TF
  build within 1 s.
- ``backends_tf_call_path`` — where a TF call's time goes: ``executor.execute`` against calling its
  ``tf.function`` directly with the same NumPy input, against its concrete function (``tf.constant`` in,
  ``.numpy()`` out) and the concrete function on a ready tensor (no conversions). ``ratio`` = execute /
  tf.function: what rlworkbench's own Python adds.

Contenders alternate in interleaved rounds (A,B,C / C,B,A / …); figures are medians over rounds, ratios compare
medians of the same run, ``paired_ratio`` is the median of per-round ratios.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import act_overhead, build_overhead, common

# before TensorFlow is first imported: nothing above imports it (rlworkbench loads backends lazily), main() does
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

SEED = act_overhead.SEED
NETWORKS = act_overhead.NETWORKS
BATCHES = (1, 16, 64, 256, 1024)
CALL_PATH_CASE = "cartpole_dqn 4-64-64-2"
CALL_PATH_BATCHES = (1, 256)
CALL_TARGET_US = 100.0
THROUGHPUT_CASE = "large 64-256-256-18"
ACT_BACKENDS: dict[str, tuple[str, dict[str, Any] | None]] = {  # contender: (backend, executor options)
    "torch": ("torch", None),
    "tf": ("tf", None),
    "tf_xla": ("tf", {"jit_compile": True}),
}
# different GEMM kernels (torch's vs oneDNN/Eigen/XLA) sum in different orders: equal up to float32 round-off
RTOL, ATOL = 1e-4, 1e-5
NO_TARGET = {"target": "", "meets_target": None}


# ----- act: TF vs torch, same network, same weights -----------------------------------------------------------
def build_executors(case: str) -> dict[str, Any]:
    """The network of ``case`` built once per contender; TF ones get torch's weights (checked)."""
    inputs, layers = NETWORKS[case]
    executors = {name: act_overhead.build_ours(inputs, layers, backend, options)
                 for name, (backend, options) in ACT_BACKENDS.items()}
    weights = executors["torch"].get_weights()
    for name, executor in executors.items():
        if name == "torch":
            continue
        executor.set_weights(weights)
        copied = executor.get_weights()
        if copied.keys() != weights.keys() or not all(np.array_equal(copied[k], weights[k]) for k in weights):
            raise AssertionError(f"{case}: {name} did not take torch's weights")
    return executors


def measure_act(case: str, executors: dict[str, Any], batch: int, rounds: int, round_s: float) -> dict[str, Any]:
    x = np.random.default_rng(SEED).standard_normal((batch, NETWORKS[case][0])).astype(np.float32)
    reference = executors["torch"].execute("apply", x)
    first_xla_ms = common.time_once_ns(lambda: executors["tf_xla"].execute("apply", x)) / 1e6  # XLA compiles here
    for name in ("tf", "tf_xla"):
        act_overhead.check_equal(case, batch, name, reference, executors[name].execute("apply", x), RTOL, ATOL,
                                 ours_name="torch")
    timed, counts = common.per_call_us({name: (ex.execute, ("apply", x)) for name, ex in executors.items()},
                                       round_s)
    samples = common.interleaved(timed, rounds)
    us = {name: common.median(values) for name, values in samples.items()}
    return {
        "benchmark": "backends_act", "case": case, "batch": batch,
        **{f"{name}_median_us": us[name] for name in executors},
        **{f"{name}_samples_per_s": round(batch / us[name] * 1e6) for name in executors},
        "ratio": us["tf"] / us["torch"], "paired_ratio": common.paired_ratio(samples["tf"], samples["torch"]),
        "xla_ratio": us["tf_xla"] / us["torch"],
        "xla_paired_ratio": common.paired_ratio(samples["tf_xla"], samples["torch"]),
        "tf_xla_first_call_ms": first_xla_ms, "repeats": rounds,
        **{f"{name}_calls_per_round": counts[name] for name in executors}, **act_target(case, batch, us),
    }


def act_target(case: str, batch: int, us: dict[str, float]) -> dict[str, Any]:
    """The issue's TF targets: a batch-1 call of the smallest network (nearly all fixed per-call cost) within
    ``CALL_TARGET_US``; on the large network at batch >= 256, TF at least torch's throughput (ratio <= 1)."""
    if case == CALL_PATH_CASE and batch == 1:
        return {"target": f"tf_median_us <= {CALL_TARGET_US:.0f}", "meets_target": bool(us["tf"] <= CALL_TARGET_US)}
    if case == THROUGHPUT_CASE and batch >= 256:
        return {"target": "ratio <= 1.0", "meets_target": bool(us["tf"] <= us["torch"])}
    return NO_TARGET


def run_act(rounds: int, round_s: float, batches: tuple[int, ...] = BATCHES) -> list[dict[str, Any]]:
    rows = []
    for case in NETWORKS:
        executors = build_executors(case)
        rows += [measure_act(case, executors, batch, rounds, round_s) for batch in batches]
    return rows


# ----- build: TF (trace included) vs torch --------------------------------------------------------------------
def run_build(repeats: int) -> list[dict[str, Any]]:
    rows = []
    for case, make, _, _ in build_overhead.CASES:
        contenders = {backend: build_overhead.build_ms(make, backend) for backend in ("torch", "tf")}
        common.interleaved(contenders, max(2, repeats // 10))  # warm-up: TF's first trace in a process is slow
        samples = common.interleaved(contenders, repeats)
        torch_ms, tf_ms = common.median(samples["torch"]), common.median(samples["tf"])
        rows.append({
            "benchmark": "backends_build", "case": case, "components": sum(1 for _ in make().walk()),
            "batch": None, "torch_median_ms": torch_ms, "tf_median_ms": tf_ms, "difference_ms": tf_ms - torch_ms,
            "ratio": tf_ms / torch_ms, "paired_ratio": common.paired_ratio(samples["tf"], samples["torch"]),
            "repeats": repeats, **NO_TARGET,
        })
    return rows


# ----- a whole agent: build, and build + the first call of each API method a training step uses ------------
AGENT_CONFIG, AGENT_ENV, AGENT_ENVS = "dqn_dueling_per_cartpole", "CartPole-v1", 4
AGENT_BUILD_TARGET_MS = 1000.0  # TF agent build (issue: the seed paper's TF1 figure was ~1 s)
OBSERVE_STEPS = 20  # vector steps observed before the first update: 80 transitions >= batch 64 after 3-step


def agent_build_ms(backend: str, ready: bool) -> Callable[[], float]:
    """A contender: ms to build the shipped dueling-DQN-with-PER agent on ``backend`` (``ready``: and to make
    the first act, observe and update calls, where TF traces the API methods they use)."""
    from rlworkbench.agents import Agent
    from rlworkbench.execution import make_vector_env

    env = make_vector_env(AGENT_ENV, num_envs=AGENT_ENVS, seed=SEED)
    states, _ = env.reset(seed=SEED)
    rewards, terminals = np.ones(AGENT_ENVS, np.float32), np.zeros(AGENT_ENVS, bool)

    def ours() -> float:
        start = time.perf_counter_ns()
        agent = Agent.from_env(env, AGENT_CONFIG, backend=backend, seed=SEED).build()
        if ready:
            for _ in range(OBSERVE_STEPS):
                agent.observe(states, agent.get_actions(states), rewards, terminals, states)
            agent.update()
        return (time.perf_counter_ns() - start) / 1e6

    return ours


def run_agent_build(repeats: int) -> list[dict[str, Any]]:
    rows = []
    for ready in (False, True):
        contenders = {backend: agent_build_ms(backend, ready) for backend in ("torch", "tf")}
        common.interleaved(contenders, 1)  # warm-up: imports, TF's runtime start
        samples = common.interleaved(contenders, repeats)
        torch_ms, tf_ms = common.median(samples["torch"]), common.median(samples["tf"])
        target = {"target": f"tf_median_ms <= {AGENT_BUILD_TARGET_MS:.0f}",
                  "meets_target": bool(tf_ms <= AGENT_BUILD_TARGET_MS)} if not ready else NO_TARGET
        rows.append({
            "benchmark": "backends_agent_build", "case": AGENT_CONFIG + (" + first act/observe/update" if ready
                                                                        else " build"),
            "torch_median_ms": torch_ms, "tf_median_ms": tf_ms, "difference_ms": tf_ms - torch_ms,
            "ratio": tf_ms / torch_ms, "paired_ratio": common.paired_ratio(samples["tf"], samples["torch"]),
            "repeats": repeats, **target,
        })
    return rows


# ----- where a TF call's time goes ----------------------------------------------------------------------------
def call_path_contenders(executor: Any, x: np.ndarray) -> dict[str, tuple[Any, tuple]]:
    """``executor.execute`` and three ways of calling the same graph without rlworkbench, as ``(fn, args)``."""
    import tensorflow as tf

    function = executor.graph_function(executor.root, "apply")
    concrete = function.get_concrete_function()
    tensor = tf.constant(x)
    return {
        "execute": (executor.execute, ("apply", x)),
        "tf_function": (lambda a: function(a).numpy(), (x,)),
        "concrete": (lambda a: concrete(tf.constant(a)).numpy(), (x,)),
        "concrete_tensor": (concrete, (tensor,)),
    }


def run_call_path(rounds: int, round_s: float) -> list[dict[str, Any]]:
    inputs, layers = NETWORKS[CALL_PATH_CASE]
    executor = act_overhead.build_ours(inputs, layers, "tf")
    rows = []
    for batch in CALL_PATH_BATCHES:
        x = np.random.default_rng(SEED).standard_normal((batch, inputs)).astype(np.float32)
        calls = call_path_contenders(executor, x)
        reference = executor.execute("apply", x)
        for name, (fn, args) in calls.items():
            out = fn(*args)
            act_overhead.check_equal(CALL_PATH_CASE, batch, name, reference, np.asarray(out), 0.0, 0.0,
                                     ours_name="execute")
        timed, _ = common.per_call_us(calls, round_s)
        samples = common.interleaved(timed, rounds)
        us = {name: common.median(values) for name, values in samples.items()}
        rows.append({
            "benchmark": "backends_tf_call_path", "case": CALL_PATH_CASE, "batch": batch,
            **{f"{name}_median_us": us[name] for name in calls},
            "ratio": us["execute"] / us["tf_function"],
            "paired_ratio": common.paired_ratio(samples["execute"], samples["tf_function"]),
            "ratio_vs_concrete": us["execute"] / us["concrete"],
            "ratio_vs_concrete_tensor": us["execute"] / us["concrete_tensor"], "repeats": rounds, **NO_TARGET,
        })
    return rows


# ----- main ---------------------------------------------------------------------------------------------------
TABLES = {
    "backends_act": ("Act: executor.execute('apply', x), TF and TF-XLA vs torch, same network and weights "
                     "(per call, medians; ratio = tf / torch)",
                     ["case", "batch", "torch_median_us", "tf_median_us", "tf_xla_median_us", "torch_samples_per_s",
                      "tf_samples_per_s", "tf_xla_samples_per_s", "ratio", "paired_ratio", "xla_ratio",
                      "xla_paired_ratio", "tf_xla_first_call_ms", "target", "meets_target"]),
    "backends_build": ("Build: rlworkbench.build on TF (tracing included) vs torch (medians; ratio = tf / torch)",
                       ["case", "components", "torch_median_ms", "tf_median_ms", "difference_ms", "ratio",
                        "paired_ratio"]),
    "backends_agent_build": ("Agent build: the shipped dueling DQN with PER on CartPole x 4, TF vs torch "
                             "(medians; TF traces each API method at its first call)",
                             ["case", "torch_median_ms", "tf_median_ms", "difference_ms", "ratio", "paired_ratio",
                              "target", "meets_target"]),
    "backends_tf_call_path": ("TF call path: executor.execute vs its tf.function / concrete function, same graph "
                              "(per call, medians; ratio = execute / tf_function)",
                              ["case", "batch", "execute_median_us", "tf_function_median_us", "concrete_median_us",
                               "concrete_tensor_median_us", "ratio", "paired_ratio", "ratio_vs_concrete",
                               "ratio_vs_concrete_tensor"]),
}


def main(argv: list[str] | None = None):
    parser = common.arg_parser(__doc__.splitlines()[0], "backends.csv", 300,
                               "measurement rounds per act / call-path case (each contender)")
    parser.description += (" --threads pins TensorFlow's intra- and inter-op pools too (if its runtime has not "
                           "started yet in this process).")
    parser.add_argument("--build-repeats", type=int, default=50, help="timed builds per case (each backend)")
    parser.add_argument("--agent-repeats", type=int, default=5,
                        help="timed agent builds per case (each backend)")
    parser.add_argument("--round-ms", type=float, default=3.0,
                        help="work per round and contender, in ms (each contender makes as many calls as fit)")
    parser.add_argument("--batches", type=int, nargs="+", default=list(BATCHES),
                        help=f"batch sizes of the act table (default {' '.join(map(str, BATCHES))})")
    args = parser.parse_args(argv)
    common.pin_tf_threads(args.threads)
    with common.torch_threads(args.threads):
        rows = (run_act(args.repeats, args.round_ms / 1e3, tuple(args.batches)) + run_build(args.build_repeats)
                + run_agent_build(args.agent_repeats) + run_call_path(args.repeats, args.round_ms / 1e3))
        frame = common.results_frame(rows, tensorflow=True)
    integral = [c for c in frame.columns if c in ("batch", "components") or c.endswith(("_samples_per_s",
                                                                                         "_calls_per_round"))]
    frame = frame.astype(dict.fromkeys(integral, "Int64"))  # one CSV for three tables: blanks, not 1.0
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        for benchmark, (title, columns) in TABLES.items():
            common.print_table(title, frame[frame["benchmark"] == benchmark], columns, path)
    return frame


if __name__ == "__main__":
    main()
