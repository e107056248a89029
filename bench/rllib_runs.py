"""What the side-by-side benchmarks against RLlib share: contenders (an rlworkbench plan on Ray, an RLlib algorithm),
one timed run of a contender, and a family's measurement over worker counts and repeats.

A contender has ``advance()`` (about ``STEP_FRAMES`` more env frames), ``frames`` and ``trained`` (env frames sampled
and samples trained so far), ``recent_return()`` (last-20 training mean), ``greedy_return(episodes, seed)`` (the
learner's current policy, acting greedily on an env of its own) and ``close()``. :func:`one_run` builds one, warms it
up, times a window of frames, then trains on until the learner's policy reaches the family's threshold or a frame
budget. :func:`measure` runs every contender of a :class:`Family` ``repeats`` times per worker count, in turns whose
order flips every repeat, and returns one row per (workers, contender) of medians with ratios against the family's
baseline measured in the same run. The benchmarks' module docstrings say what each contender is.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench import common

STEP_FRAMES = 1000  # env frames per advance (and per threshold check) of every contender
WINDOW = 20  # training episodes in a recent mean
EVAL_EPISODES = 5  # greedy episodes per solve check (--solve-on greedy)
EVAL_EVERY = 2000  # env frames between greedy solve checks
SOLVE_ON = ("greedy", "training")
SEED = 0
RUNNER_CPUS = 1  # per rlworkbench sampler and per RLlib env runner

# RLlib 2.60's result dict (new API stack), as paths of nested keys
SAMPLED_KEY = ("env_runners", "num_env_steps_sampled_lifetime")
TRAINED_KEY = ("learners", "__all_modules__", "num_env_steps_trained_lifetime")
RETURN_KEY = ("env_runners", "episode_return_mean")
EPISODES_KEY = ("env_runners", "num_episodes_lifetime")


class RLlibError(RuntimeError):
    """An RLlib contender failed (its API moved, a setting was refused, a result key is gone)."""


def last_mean(returns: Any) -> float:
    """Mean of the last WINDOW episode returns; NaN before WINDOW episodes ended."""
    values = np.asarray(returns, dtype=np.float64)
    return float(values[-WINDOW:].mean()) if len(values) >= WINDOW else float("nan")


# ----- contenders ---------------------------------------------------------------------------------------------
class PlanContender:
    """An rlworkbench plan (``plan``, e.g. ``IMPALA``) on Ray with ``config``: the learner in this process, W
    sampler actors of E envs (``sampler_cpus`` RUNNER_CPUS), other settings the plan's and config's.
    ``trained(run)`` counts the samples trained so far (default: the updates' ``rollout_steps``)."""

    def __init__(self, plan: Any, config: dict[str, Any], env_id: str, workers: int, envs: int, seed: int,
                 trained: Callable[[Any], int] | None = None, **settings: Any):
        from rlworkbench.agents import Agent
        from rlworkbench.execution.ray import PlanRun

        agent = Agent.from_env(env_id, config, backend="torch", seed=seed)
        self.run = PlanRun(plan, agent, env_id, {"workers": workers, "envs_per_worker": envs,
                                                 "sampler_cpus": RUNNER_CPUS, **settings}, seed=seed)
        self._trained = trained or (lambda run: rollout_steps_trained(run.updates))

    def advance(self) -> None:
        self.run.train(self.run.timesteps + STEP_FRAMES)

    @property
    def frames(self) -> int:
        return int(self.run.timesteps)

    @property
    def trained(self) -> int:
        return self._trained(self.run)

    def recent_return(self) -> float:
        return last_mean(self.run.episodes["return"])

    def greedy_return(self, episodes: int, seed: int) -> float:
        return float(self.run.evaluate(episodes, seed=seed)["return"].mean())

    def close(self) -> None:
        self.run.close()


class LocalContender:
    """The same agent ``config`` in one process, no Ray: a :class:`~rlworkbench.execution.Worker` on one vector env
    of W x E envs. ``trained(worker)`` counts the samples trained (default: the updates' ``rollout_steps``)."""

    def __init__(self, config: dict[str, Any], env_id: str, workers: int, envs: int, seed: int,
                 trained: Callable[[Any], int] | None = None):
        from rlworkbench.agents import Agent
        from rlworkbench.execution import Worker, make_vector_env

        self.env_id = env_id
        env = make_vector_env(env_id, num_envs=workers * envs, seed=seed)
        agent = Agent.from_env(env_id, config, backend="torch", seed=seed).build()
        self.worker = Worker(agent, env, seed=seed, progress=False, log_every=10**12)
        self._trained = trained or (lambda worker: rollout_steps_trained(worker.book.updates()))

    def advance(self) -> None:
        self.worker.run(timesteps=STEP_FRAMES)

    @property
    def frames(self) -> int:
        return int(self.worker.timesteps)

    @property
    def trained(self) -> int:
        return self._trained(self.worker)

    def recent_return(self) -> float:
        return last_mean(self.worker.book.episodes()["return"])

    def greedy_return(self, episodes: int, seed: int) -> float:
        from rlworkbench.execution import evaluate_greedy

        return float(evaluate_greedy(self.worker.agent, self.env_id, episodes, seed=seed)["return"].mean())

    def close(self) -> None:
        self.worker.env.close()


def rollout_steps_trained(updates: Any) -> int:
    """Samples an on-policy learner trained: the sum of its ``updates``' ``rollout_steps`` (each sample once)."""
    return int(updates["rollout_steps"].sum()) if "rollout_steps" in updates else 0


def result_value(result: dict[str, Any], path: tuple[str, ...], name: str) -> float:
    """The number at ``path`` in an RLlib result dict; an RLlibError naming the keys there if it is not."""
    node: Any = result
    for depth, key in enumerate(path):
        if not isinstance(node, dict) or key not in node:
            import ray

            where = "/".join(path[:depth]) or "the result"
            keys = sorted(node) if isinstance(node, dict) else type(node).__name__
            raise RLlibError(f"{name}: RLlib {ray.__version__} result has no {'/'.join(path)!r} (keys under "
                             f"{where}: {keys})")
        node = node[key]
    return float(node)


class RLlibRun:
    """An RLlib algorithm built from ``config``; ``env_id`` for its greedy checks; ``expect_ratio``: the samples
    trained per frame it should keep from ``learning_starts`` frames on (checked by :func:`one_run` over the
    window)."""

    def __init__(self, name: str, config: Any, env_id: str, expect_ratio: float | None = None,
                 learning_starts: int = 0):
        self.name, self.env_id, self.expect_ratio = name, env_id, expect_ratio
        self.learning_starts = learning_starts
        self.result: dict[str, Any] = {}
        try:
            self.algo = config.build_algo()
        except Exception as error:
            import ray

            raise RLlibError(f"{name}: RLlib {ray.__version__} could not build the algorithm: "
                             f"{type(error).__name__}: {error}") from error

    def advance(self) -> None:
        before = self.frames
        self.result = self.algo.train()
        if self.frames <= before:
            raise RLlibError(f"{self.name}: algo.train() sampled nothing ({'/'.join(SAMPLED_KEY)} stayed {before})")

    @property
    def frames(self) -> int:
        return int(result_value(self.result, SAMPLED_KEY, self.name)) if self.result else 0

    @property
    def trained(self) -> int:
        if "learners" not in self.result or "__all_modules__" not in self.result["learners"]:  # no update yet
            return 0
        return int(result_value(self.result, TRAINED_KEY, self.name))

    def recent_return(self) -> float:
        if not self.result or result_value(self.result, EPISODES_KEY, self.name) < WINDOW:
            return float("nan")
        return result_value(self.result, RETURN_KEY, self.name)

    def greedy_return(self, episodes: int, seed: int) -> float:
        """The learner's current weights acting greedily (RLModule ``forward_inference``: DQN's ``actions``, the
        policy-gradient modules' ``action_dist_inputs`` argmax) on a gymnasium env of its own."""
        import gymnasium as gym
        import torch

        module = self.algo.get_module()
        learned = self.algo.learner_group.get_weights()
        learned = learned.get("default_policy", learned)
        own = module.state_dict()
        missing = [key for key in own if key not in learned]
        if missing:
            raise RLlibError(f"{self.name}: the learner's weights lack the acting module's {missing[:4]}")
        module.load_state_dict({key: torch.tensor(np.array(learned[key])) for key in own})
        env = gym.make(self.env_id)
        returns = []
        try:
            for episode in range(episodes):
                obs, _ = env.reset(seed=seed + episode)
                total, done = 0.0, False
                while not done:
                    with torch.no_grad():
                        out = module.forward_inference({"obs": torch.as_tensor(obs[None], dtype=torch.float32)})
                    action = out["actions"] if "actions" in out else out["action_dist_inputs"].argmax(-1)
                    obs, reward, terminated, truncated, _ = env.step(int(action[0]))
                    total, done = total + float(reward), terminated or truncated
                returns.append(total)
        finally:
            env.close()
        return float(np.mean(returns))

    def close(self) -> None:
        self.algo.stop()


def mlp_layers(network: list[dict[str, Any]]) -> tuple[list[int], str]:
    """A dense network's units and (shared) activation, for RLlib's MLP."""
    activations = {layer.get("activation") for layer in network}
    if len(activations) != 1 or any(layer["type"] != "dense" for layer in network):
        raise ValueError(f"RLlib's default MLP needs dense layers of one activation, got {network}")
    return [int(layer["units"]) for layer in network], str(activations.pop())


def model_config(hidden: Sequence[int], activation: str, **extra: Any) -> Any:
    """RLlib's default MLP with our network's layers."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    return DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation=activation, **extra)


def rllib_reporting(config: Any, seed: int) -> Any:
    """The reporting every RLlib contender shares: one ``train()`` per ~STEP_FRAMES frames (no time floor: APPO's and
    IMPALA's default is 10 s per call), last-WINDOW episode means, the run's seed."""
    return (config.reporting(metrics_num_episodes_for_smoothing=WINDOW, min_sample_timesteps_per_iteration=STEP_FRAMES,
                             min_time_s_per_iteration=None)
            .debugging(seed=seed))


# ----- one run ------------------------------------------------------------------------------------------------
def one_run(make: Callable[[int], Any], seed: int, warmup: int, timesteps: int, solve_budget: int,
            threshold: float, solve_on: str = "greedy") -> dict[str, Any]:
    """Builds a contender, warms it up, times a window of ``timesteps`` frames, then (``solve_budget``) trains on
    until ``threshold`` or the budget; returns the run's figures. ``solve_on`` "greedy": the learner's policy is
    evaluated greedily every EVAL_EVERY frames outside the window, with the clock stopped; "training": the
    training episodes' last-20 mean, after every advance. A contender with an ``expect_ratio`` must have trained
    about that many samples per frame in the window when it began past its ``learning_starts`` (else RLlibError)."""
    gc.collect()
    start = time.perf_counter()
    run = make(seed)
    built = time.perf_counter()
    solved: tuple[float, int] | None = None
    evaluated = {"seconds": 0.0, "next": EVAL_EVERY, "last": math.nan}

    def check(in_window: bool) -> None:
        nonlocal solved
        if not solve_budget or solved is not None:
            return
        if solve_on == "training":
            reached = run.recent_return() >= threshold
        elif in_window or run.frames < evaluated["next"]:
            return
        else:
            began = time.perf_counter()
            evaluated["last"] = run.greedy_return(EVAL_EPISODES, seed=10_000 + seed)
            evaluated["seconds"] += time.perf_counter() - began
            evaluated["next"] = run.frames + EVAL_EVERY
            reached = evaluated["last"] >= threshold
        if reached:
            solved = (time.perf_counter() - built - evaluated["seconds"], run.frames)

    try:
        while run.frames < warmup:
            run.advance()
            check(in_window=False)
        frames0, trained0, window0 = run.frames, run.trained, time.perf_counter()
        while run.frames < frames0 + timesteps:
            run.advance()
            check(in_window=True)
        seconds = time.perf_counter() - window0
        frames, trained = run.frames - frames0, run.trained - trained0
        check(in_window=False)
        while solve_budget and solved is None and run.frames < solve_budget:
            run.advance()
            check(in_window=False)
        final_return = run.recent_return()
    finally:
        run.close()
    expect, learning = getattr(run, "expect_ratio", None), frames0 >= getattr(run, "learning_starts", 0)
    if expect and learning and not 0.5 * expect <= trained / frames <= 2.0 * expect:
        raise RLlibError(f"{run.name}: trained {trained / frames:.2f} samples per sampled step in the window, "
                         f"expected ~{expect:g} (does its setting still mean what it did?)")
    return {"build_s": built - start, "frames_per_s": frames / seconds, "trained_per_s": trained / seconds,
            "window_frames": frames, "time_to_threshold_s": solved[0] if solved else math.nan,
            "steps_to_threshold": solved[1] if solved else math.nan, "frames_run": run.frames,
            "final_mean_return": final_return, "final_greedy_return": evaluated["last"],
            "eval_s": evaluated["seconds"]}


def median_or_nan(values: list[float]) -> float:
    """Median with NaN (a missed threshold) counted as infinitely slow; NaN if that is where the median lands."""
    value = common.median([math.inf if math.isnan(v) else v for v in values])
    return math.nan if math.isinf(value) else value


def ratio(a: float, b: float) -> float:
    return a / b if b and not (math.isnan(a) or math.isnan(b)) else math.nan


# ----- a family of contenders ---------------------------------------------------------------------------------
@dataclass
class Family:
    """One side-by-side benchmark: its contenders (``make(name, workers, envs)`` -> ``make_run(seed)``), the
    baseline the ratios divide by, the threshold of the solve phase, targets ``{contender: (column, least)}``
    (e.g. ``{"impala": ("frames_ratio", 2.0)}``), and constant columns for every row."""

    name: str
    contenders: Sequence[str]
    baseline: str
    threshold: float
    make: Callable[[str, int, int], Callable[[int], Any]]
    targets: dict[str, tuple[str, float]] = field(default_factory=dict)
    columns: dict[str, Any] = field(default_factory=dict)
    learner_actor: Sequence[str] = ()  #: contenders whose learner is an actor of its own (the rest: this process)


def measure(family: Family, workers: Sequence[int], envs: int, warmup: int, timesteps: int, solve_budget: int,
            repeats: int, contenders: Sequence[str], report: Callable[[str], None],
            solve_on: str = "greedy") -> list[dict[str, Any]]:
    """Every contender ``repeats`` times per worker count (order flipping every repeat): one row of medians each."""
    rows: list[dict[str, Any]] = []
    for count in workers:
        makers = {name: family.make(name, count, envs) for name in contenders}
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in contenders}
        for repeat in range(repeats):
            for name in contenders if repeat % 2 == 0 else list(reversed(contenders)):
                runs[name].append(one_run(makers[name], SEED + repeat, warmup, timesteps, solve_budget,
                                          family.threshold, solve_on))
                last = runs[name][-1]
                solve = (f", time to {family.threshold:g}: {last['time_to_threshold_s']:.1f} s"
                         if solve_budget else "")
                report(f"  workers {count}, {name}, repeat {repeat}: {last['frames_per_s']:,.0f} frames/s, "
                       f"{last['trained_per_s']:,.0f} trained/s{solve}")
        for name in contenders:
            values = {key: [run[key] for run in runs[name]] for key in runs[name][0]}
            rows.append({
                "benchmark": family.name, "contender": name, "workers": count, "envs_per_worker": envs,
                **family.columns, "warmup_frames": warmup, "frames_per_round": timesteps,
                "solve_budget": solve_budget, "threshold": family.threshold, "solve_on": solve_on, "window": WINDOW,
                "eval_episodes": EVAL_EPISODES, "eval_every": EVAL_EVERY, "repeats": repeats,
                "frames_per_s": common.median(values["frames_per_s"]),
                "frames_per_s_min": float(np.min(values["frames_per_s"])),
                "frames_per_s_max": float(np.max(values["frames_per_s"])),
                "trained_per_s": common.median(values["trained_per_s"]),
                "time_to_threshold_s": median_or_nan(values["time_to_threshold_s"]),
                "steps_to_threshold": median_or_nan(values["steps_to_threshold"]),
                "solved": int(sum(not math.isnan(v) for v in values["time_to_threshold_s"])) if solve_budget else 0,
                "final_mean_return": common.median(values["final_mean_return"]),
                "final_greedy_return": common.median(values["final_greedy_return"]),
                "eval_s": common.median(values["eval_s"]),
                "build_s": common.median(values["build_s"]),
                "learner": "actor" if name in family.learner_actor else "driver", "runner_cpus": RUNNER_CPUS,
                "_frames": values["frames_per_s"]})
        add_ratios(family, [row for row in rows if row["workers"] == count])
    for row in rows:
        del row["_frames"]
    return rows


def add_ratios(family: Family, rows: list[dict[str, Any]]) -> None:
    """Ratios against the family's baseline at the same worker count, and each target's verdict."""
    by_name = {row["contender"]: row for row in rows}
    base = by_name.get(family.baseline)
    for row in rows:
        if base is not None:
            row |= {"frames_ratio": ratio(row["frames_per_s"], base["frames_per_s"]),
                    "frames_paired_ratio": common.paired_ratio(row["_frames"], base["_frames"]),
                    "trained_ratio": ratio(row["trained_per_s"], base["trained_per_s"]),
                    "time_ratio": ratio(row["time_to_threshold_s"], base["time_to_threshold_s"])}
        if row["contender"] in family.targets:
            column, least = family.targets[row["contender"]]
            row |= {"target": f"{column} >= {least:g}",
                    "meets_target": bool(row[column] >= least) if base is not None else None}


# ----- running a family from the command line -----------------------------------------------------------------
@contextlib.contextmanager
def quiet_ray_logs(quiet: bool) -> Iterator[None]:
    """With ``quiet``, Ray's and RLlib's driver-side warnings are held back while the block runs."""
    logger = logging.getLogger("ray")
    level = logger.level
    if quiet:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def arg_parser(family: Family, description: str, out: Any, default_budget: int) -> Any:
    """The command line every side-by-side benchmark takes."""
    parser = common.arg_parser(description, f"{family.name}.csv", 3,
                               "runs per contender and worker count (seeds 0, 1, ...; order flips every repeat)")
    parser.set_defaults(out=out)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2],
                        help="sampling workers W to sweep (larger hosts: e.g. 1 2 4 8 with --num-cpus 9)")
    parser.add_argument("--envs-per-worker", type=int, default=4, help="envs per sampling worker (E)")
    parser.add_argument("--timesteps", type=int, default=10_000,
                        help="env frames in the timed throughput window of each run")
    parser.add_argument("--warmup", type=int, default=2000, help="env frames before the window")
    parser.add_argument("--solve-budget", type=int, default=default_budget,
                        help=f"env frames a run may take to reach {family.threshold:g} (0: no solve phase)")
    parser.add_argument("--solve-on", choices=SOLVE_ON, default="greedy",
                        help=f"greedy: the learner's policy, {EVAL_EPISODES} greedy episodes every {EVAL_EVERY} "
                             f"frames (clock stopped); training: the last {WINDOW} training episodes")
    parser.add_argument("--num-cpus", type=int, default=None,
                        help="CPUs of the local Ray session (default: max(--workers) + 1)")
    parser.add_argument("--contenders", nargs="+", default=list(family.contenders), choices=family.contenders,
                        help=f"which to run (default all; without {family.baseline} there are no ratios)")
    return parser


def run_family(family: Family, args: Any, learner_cpus: Callable[[Sequence[str]], int], title: str) -> Any:
    """Runs ``family`` as ``args`` (from :func:`arg_parser`) say in a local Ray session, writes and prints the CSV;
    returns the frame. ``learner_cpus(contenders)``: the CPUs the contenders' learner actors need beside W."""
    if min(args.workers) < 1 or args.envs_per_worker < 1 or args.timesteps < 1:
        raise SystemExit("--workers, --envs-per-worker and --timesteps must be >= 1")
    needed = max(args.workers) + learner_cpus(args.contenders)
    num_cpus = args.num_cpus or max(args.workers) + 1
    report = (lambda line: None) if args.quiet else print

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # RLlib imports TensorFlow when it is installed
    import ray

    from rlworkbench.execution.ray import ensure_ray

    started = not ray.is_initialized()
    cpus = float(ensure_ray(num_cpus=num_cpus).get("CPU", 0))
    try:
        if cpus < needed:
            raise ValueError(f"the Ray session has {cpus:g} CPUs; the largest contender needs {needed} "
                             f"({max(args.workers)} sampling workers of {RUNNER_CPUS:g} CPU + learner actors)")
        with common.torch_threads(args.threads), quiet_ray_logs(args.quiet):
            rows = measure(family, sorted(set(args.workers)), args.envs_per_worker, args.warmup, args.timesteps,
                           args.solve_budget, args.repeats, list(args.contenders), report, args.solve_on)
            frame = common.results_frame(rows).assign(ray=ray.__version__, ray_cpus=cpus)
    finally:
        if started:
            ray.shutdown()
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        columns = ["workers", "contender", "frames_per_s", "trained_per_s", "time_to_threshold_s", "solved"]
        columns += [c for c in ("frames_ratio", "frames_paired_ratio", "trained_ratio", "time_ratio", "target",
                                "meets_target") if c in frame.columns]
        common.print_table(f"{title}, {args.envs_per_worker} envs per worker, {cpus:g} Ray CPUs, ray "
                           f"{ray.__version__} (medians; ratios = contender / {family.baseline})", frame, columns,
                           path)
    return frame
