"""How far one Ape-X learner and its replay shards scale: per-item costs measured here, a model of the bottleneck
at 16, 64 and 256 samplers, and the model checked against real runs on this machine.

Run ``python -m bench.capacity [--repeats N] [--skip-pong] [--gpu-pong-samples-per-s X] [--out PATH.csv]``
(default ``datasets/benchmarks/capacity.csv``; the table goes into ``bench/README.md`` by hand).

**Costs** (one process, one thread each, medians over ``--repeats`` rounds), for two workloads: ``cartpole`` (the
Ape-X bench's dueling PER DQN, 4-256-256, batch 64, one update per 4 env steps: 16 trained samples per frame,
samplers paced by ``max_updates_owed`` 100, 2 shards) and ``pong`` (the shipped ``apex_pong`` config on
``atari_env("Pong")``: the Nature CNN, batch 512, 128 trained samples per frame *asked*, samplers running free,
4 shards):

- ``sampler``: frames/s of one :class:`~rlworkbench.execution.ray.apex_sampler.ApexSampler` of 4 envs producing
  prioritised fragments of 50 steps (acting with epsilon, env steps, n-step transitions, priorities: everything but
  the send) and its CPU seconds per frame, and its ``set_weights`` seconds; ``transition_bytes`` = the object-store
  bytes of one transition (states *and* next states are sent: with stacked Atari frames each frame travels up to 8
  times);
- ``learner``: seconds of one ``update_with_priorities`` of a replay batch (the learner's work per update);
  ``traffic_s`` — the learner process's CPU seconds (all its threads: Ray's own included) per update for its replay
  traffic with a real shard actor (a sample request, its batch received, the priorities sent); ``weight_bytes`` and
  ``put_s`` — one ``ray.put`` of the weights (a broadcast; the samplers' gets are their own);
- ``shard``: a :class:`~rlworkbench.execution.ray.replay_shard.ReplayShard` filled to each capacity (records with
  random priorities), then ``insert_s`` per fragment (4 envs x 50 steps = 200 records) and ``sample_s`` per batch
  (``sample`` + ``update_priorities`` of the learner's batch size) — throughput against shard size.

**Model** (one learner, ``S`` shards, ``N`` samplers, one core each; ``r`` = trained samples per frame the config
asks for, ``B`` its batch): a sampler makes ``f = 1 / (1/f_s + sync_s / weight_sync_steps)`` frames/s; the
learner trains ``L = B / (update_s + traffic_s + put_s / broadcast_every)`` samples/s; a shard spends ``c_i`` s per
inserted record and ``c_s`` per sampled one (priorities updated). Paced (CartPole): frames/s = min(``N f``,
``L / r``, ``S / (c_i + r c_s)``) and the smallest names the bottleneck. Free (the paper's Ape-X, and Pong's
config): the learner trains ``L`` whatever the frames; frames/s = min(``N f``, ``(S - L c_s) / c_i``) (the smaller
is ``frames_bound``) and the replay ratio *achieved* is ``L`` / frames — "learner" is the bottleneck when that falls
short of ``r``. Both modes are tabled for every workload. ``feeds`` = the samplers one learner keeps at the
config's ratio (``L / (r f)``), ``learners_for_ratio`` its inverse at N samplers, ``shards_needed`` = shards
busy at that rate. Bandwidth: ``object_store_MB_s`` = frames/s x ``transition_bytes``; ``weights_MB_s`` = the
weights pulled (each sampler takes the newest every ``weight_sync_steps`` frames, never faster than the learner
publishes: every ``broadcast_every`` updates) x ``weight_bytes``. Assumed: one core per sampler, shard and learner;
the driver loop's bookkeeping, the network and the object store cost nothing beyond what is measured (their bytes
are given to compare with a link: 10 Gb/s = 1,250 MB/s, ``over_10gbe``); rows for a GPU learner only where a
measured GPU figure is given (``--gpu-pong-samples-per-s``: none is on record, no GPU was lent to this project's
machines).

**Validation** on this machine (``cores`` = its CPUs: the model's extra bound is ``cores`` / CPU seconds per frame
— sampler CPU, ``r / L``, shard work — as every process shares them): the real ``apex`` plan on CartPole (2
shards, ``max_updates_owed`` 100), predicted vs measured frames/s at 1 and 2 samplers (learner-bound here) and with
one sampler slowed down (``SlowCartPole``: each env step sleeps ``--slow-ms``; sampler-bound). ``error`` =
measured / predicted - 1; the goal is |error| <= 25 %.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "benchmarks" / "capacity.csv"
SAMPLER_COUNTS = (16, 64, 256)
ENVS, FRAGMENT = 4, 50
WINDOW_FRAMES, WARMUP_FRAMES = 6000, 2000
GOAL = 0.25
WARMUP_UPDATES = 10
LINK_MB_S = 1250.0


class SlowCartPole(gym.Wrapper):
    """CartPole-v1 whose every step also sleeps ``delay_s``: a sampler slowed down on purpose."""

    def __init__(self, delay_s: float):
        super().__init__(gym.make("CartPole-v1"))
        self.delay_s = delay_s

    def step(self, action: Any) -> Any:
        time.sleep(self.delay_s)
        return self.env.step(action)


class SlowCartPoleFactory:
    """A picklable zero-argument factory of :class:`SlowCartPole` (sampler actors make their envs with it)."""

    def __init__(self, delay_s: float):
        self.delay_s = delay_s

    def __call__(self) -> SlowCartPole:
        return SlowCartPole(self.delay_s)


@dataclass(frozen=True)
class Workload:
    name: str
    env: Any
    config: Callable[[], dict[str, Any]]
    shard_sizes: tuple[int, ...]
    settings: dict[str, Any]


def cartpole_config() -> dict[str, Any]:
    from bench.apex_vs_rllib import dqn_config

    return dqn_config()


def pong_config() -> dict[str, Any]:
    from rlworkbench.agents.config import builtin_config

    return builtin_config("apex_pong")


def workloads(pong: bool, shard_sizes: Sequence[int] = (4096, 65536, 1 << 20)) -> list[Workload]:
    from rlworkbench.execution.ray.settings import DEFAULTS

    found = [Workload("cartpole", "CartPole-v1", cartpole_config, tuple(shard_sizes), dict(DEFAULTS))]
    if pong:
        from rlworkbench.execution.atari import atari_env

        found.append(Workload("pong", atari_env("Pong"), pong_config, (4096, 16384),
                              {**DEFAULTS, **pong_config()["execution"]["ray"]}))
    return found


# ----- per-item costs -------------------------------------------------------------------------------------------
@dataclass
class Costs:
    """What one sampler, the learner and one shard cost per item (medians), and the bytes they move."""

    workload: str
    sampler_frames_per_s: float
    sampler_cpu_s_per_frame: float
    sync_s: float
    transition_bytes: float
    update_s: float
    traffic_s: float  # the learner's CPU per update for replay requests and priorities
    put_s: float
    weight_bytes: int
    batch_size: int
    ratio: float  # trained samples per frame the config asks for
    paced: bool
    shard_insert_s_per_record: float
    shard_sample_s_per_record: float
    weight_sync_steps: int
    broadcast_every: int
    shards: int


def make_sampler(workload: Workload, env: Any = None) -> Any:
    from rlworkbench.execution.ray.apex_sampler import ApexSampler
    from rlworkbench.execution.ray.plans.apex import apex_sampler_config

    config = apex_sampler_config(SimpleNamespace(settings={"workers": 1}), 0, workload.config())  # type: ignore[arg-type]
    return ApexSampler(0, config, workload.env if env is None else env, ENVS, "torch", seed=0)


def sampler_costs(sampler: Any, repeats: int) -> tuple[float, float, float, Any]:
    """(frames/s, CPU seconds per frame, set_weights seconds, one fragment's Transitions) of ``sampler``, medians
    over ``repeats`` (CPU and wall time differ for a sampler that waits on its env)."""
    sampler.prioritised_fragment(FRAGMENT)  # warm-up
    rates, cpu, syncs, transitions = [], [], [], None
    weights = sampler.weights()
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        _, transitions = sampler.prioritised_fragment(FRAGMENT)
        rates.append(FRAGMENT * ENVS / (time.perf_counter() - started))
        cpu.append((time.process_time() - started_cpu) / (FRAGMENT * ENVS))
        started = time.perf_counter()
        sampler.set_weights(weights, 1)
        syncs.append(time.perf_counter() - started)
    return common.median(rates), common.median(cpu), common.median(syncs), transitions


def learner_batch(transitions: Any, size: int, rng: np.random.Generator) -> dict[str, Any]:
    """A replay batch of ``size`` rows drawn from ``transitions``, with importance weights, as shards return them."""
    from rlworkbench import nest

    rows = rng.integers(0, len(transitions), size)
    batch = {key: nest.map_structure(lambda leaf: np.asarray(leaf)[rows], value)
             for key, value in transitions.records.items()}
    return {**batch, "importance_weights": rng.uniform(0.1, 1.0, size).astype(np.float32)}


def learner_costs(workload: Workload, transitions: Any, repeats: int) -> tuple[float, float, int]:
    """(update seconds, ray.put seconds of the weights, weight bytes) of the learner, medians."""
    import ray

    from rlworkbench.agents import Agent
    from rlworkbench.execution.ray.plans.apex import learner_without_replay

    config = learner_without_replay(workload.config())
    env = workload.env if isinstance(workload.env, str) else workload.env()
    agent = Agent.from_env(env, config, backend="torch", seed=0).build()
    batch = learner_batch(transitions, int(config["update"]["batch_size"]), np.random.default_rng(0))
    for _ in range(WARMUP_UPDATES):
        agent.update_with_priorities(batch)
    updates, puts = [], []
    weights = agent.get_weights(trainable_only=True)
    for _ in range(repeats):
        started = time.perf_counter()
        agent.update_with_priorities(batch)
        updates.append(time.perf_counter() - started)
        started = time.perf_counter()
        ray.put(agent.get_weights(trainable_only=True))
        puts.append(time.perf_counter() - started)
    return common.median(updates), common.median(puts), sum(value.nbytes for value in weights.values())


def replay_traffic_s(space: Any, transitions: Any, batch: int, repeats: int) -> float:
    """The learner process's CPU seconds per update for its replay traffic with a real shard actor: one sample
    request, its batch received, the new priorities sent (the shard's own work is the shard's), median."""
    import ray

    from rlworkbench.execution.ray.replay_shard import ReplayShard

    shard = ray.remote(num_cpus=0)(ReplayShard).remote(space, 4 * len(transitions), seed=0)
    try:
        ray.get([shard.add.remote(transitions) for _ in range(2)])
        seconds = []
        for _ in range(WARMUP_UPDATES + repeats):
            started = time.process_time()
            _, indices, weights = ray.get(shard.sample.remote(batch))
            shard.update_priorities.remote(indices, np.asarray(weights))
            seconds.append(time.process_time() - started)
        return common.median(seconds[WARMUP_UPDATES:])
    finally:
        ray.kill(shard)


def shard_costs(space: Any, transitions: Any, capacity: int, batch: int, repeats: int) -> tuple[float, float]:
    """(seconds per fragment insert, seconds per batch sample + priority update) of a shard of ``space`` records
    filled to ``capacity`` with random priorities, medians."""
    from rlworkbench import nest
    from rlworkbench.execution.ray.flow_types import Transitions
    from rlworkbench.execution.ray.replay_shard import ReplayShard

    rng = np.random.default_rng(0)
    shard = ReplayShard(space, capacity, seed=0)
    copies = max(1, min(capacity, 8192) // len(transitions))
    records = {key: nest.map_structure(lambda leaf: np.concatenate([leaf] * copies), value)
               for key, value in transitions.records.items()}
    while shard.size() < capacity:
        shard.add(Transitions(records, rng.uniform(0.01, 1.0, copies * len(transitions)).astype(np.float32)))
    inserts, samples = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        shard.add(transitions)
        inserts.append(time.perf_counter() - started)
        started = time.perf_counter()
        _, indices, _ = shard.sample(batch)
        shard.update_priorities(indices, rng.uniform(0.01, 1.0, batch))
        samples.append(time.perf_counter() - started)
    return common.median(inserts), common.median(samples)


def measure_costs(workload: Workload, repeats: int) -> tuple[Costs, list[dict[str, Any]]]:
    """The workload's :class:`Costs` (the shard's at its largest size) and a row per shard size."""
    from rlworkbench.execution.ray.replay_shard import transition_space

    sampler = make_sampler(workload)
    frames_per_s, cpu_s_per_frame, sync_s, transitions = sampler_costs(sampler, repeats)
    update_s, put_s, weight_bytes = learner_costs(workload, transitions, repeats)
    config, settings = workload.config(), workload.settings
    batch = int(config["update"]["batch_size"])
    update = config["update"]
    shard_rows = []
    for capacity in workload.shard_sizes:
        insert_s, sample_s = shard_costs(transition_space(sampler.agent), transitions, capacity, batch, repeats)
        shard_rows.append({"case": "shard", "workload": workload.name, "shard_capacity": capacity,
                           "insert_s": insert_s, "sample_s": sample_s,
                           "inserts_per_s": len(transitions) / insert_s, "samples_per_s": batch / sample_s})
    largest = shard_rows[-1]
    traffic_s = replay_traffic_s(transition_space(sampler.agent), transitions, batch, repeats)
    costs = Costs(workload=workload.name, sampler_frames_per_s=frames_per_s, sampler_cpu_s_per_frame=cpu_s_per_frame,
                  sync_s=sync_s, transition_bytes=transitions.bytes / len(transitions), update_s=update_s,
                  traffic_s=traffic_s, put_s=put_s, weight_bytes=weight_bytes, batch_size=batch,
                  ratio=batch * update["gradient_steps"] / update["update_interval"],
                  paced=settings["max_updates_owed"] is not None,
                  shard_insert_s_per_record=largest["insert_s"] / len(transitions),
                  shard_sample_s_per_record=largest["sample_s"] / batch,
                  weight_sync_steps=int(settings["weight_sync_steps"]),
                  broadcast_every=int(settings["broadcast_every"]), shards=int(settings["shards"]))
    return costs, shard_rows


# ----- the model -----------------------------------------------------------------------------------------------
def predict(costs: Costs, samplers: int, shards: int | None = None, cores: float | None = None,
            update_s: float | None = None, paced: bool | None = None) -> dict[str, Any]:
    """Frames/s, samples trained/s and the bottleneck of one learner, ``shards`` shards (default: the config's) and
    ``samplers`` samplers of ``costs`` (see the module docstring); ``cores`` bounds everything by shared CPUs;
    ``update_s`` replaces the learner's update time (a GPU learner); ``paced`` (default: the config's) keeps the
    config's replay ratio, else the samplers run free."""
    shards = costs.shards if shards is None else shards
    paced = costs.paced if paced is None else paced
    per_sampler = 1.0 / (1.0 / costs.sampler_frames_per_s + costs.sync_s / costs.weight_sync_steps)
    update_s = costs.update_s if update_s is None else update_s
    learner = costs.batch_size / (update_s + costs.traffic_s + costs.put_s / costs.broadcast_every)
    c_insert, c_sample, ratio = costs.shard_insert_s_per_record, costs.shard_sample_s_per_record, costs.ratio
    if paced:
        bounds = {"samplers": samplers * per_sampler, "learner": learner / ratio,
                  "shards": shards / (c_insert + ratio * c_sample)}
        if cores is not None:
            cpu_per_frame = costs.sampler_cpu_s_per_frame + ratio / learner + c_insert + ratio * c_sample
            bounds["cores"] = cores / cpu_per_frame
        bottleneck = frames_bound = min(bounds, key=bounds.__getitem__)
        frames = bounds[bottleneck]
        trained = ratio * frames
    else:
        bounds = {"samplers": samplers * per_sampler, "shards": max(shards - learner * c_sample, 0.0) / c_insert}
        bottleneck = frames_bound = min(bounds, key=bounds.__getitem__)
        frames, trained = bounds[bottleneck], learner
        if trained / frames < ratio:
            bottleneck = "learner"
    publishes_per_s = learner / costs.batch_size / costs.broadcast_every
    pulls_per_s = samplers * min(frames / samplers / costs.weight_sync_steps, publishes_per_s)
    return {"samplers": samplers, "shards": shards, "paced": paced, "frames_per_s": frames, "trained_per_s": trained,
            "replay_ratio": trained / frames, "config_ratio": ratio, "bottleneck": bottleneck,
            "frames_bound": frames_bound,
            "feeds": learner / (ratio * per_sampler), "learners_for_ratio": samplers * per_sampler * ratio / learner,
            "shards_needed": math.ceil(frames * c_insert + trained * c_sample),
            "object_store_MB_s": frames * costs.transition_bytes / 1e6,
            "weights_MB_s": pulls_per_s * costs.weight_bytes / 1e6}


def capacity_rows(costs: Costs, gpu_samples_per_s: float | None) -> list[dict[str, Any]]:
    """The model's table: 16, 64 and 256 samplers with the config's shards, paced and free, for a CPU learner (and
    a GPU one where a measured figure is given)."""
    learners: dict[str, float | None] = {"cpu": None}
    if gpu_samples_per_s and costs.workload == "pong":
        learners["gpu"] = costs.batch_size / gpu_samples_per_s
    rows = []
    for device, update_s in learners.items():
        for paced in (True, False):
            for samplers in SAMPLER_COUNTS:
                row = predict(costs, samplers, update_s=update_s, paced=paced)
                rows.append({"case": "capacity", "workload": costs.workload, "learner": device, **row,
                             "over_10gbe": row["object_store_MB_s"] + row["weights_MB_s"] > LINK_MB_S})
    return rows


# ----- validation against real runs ------------------------------------------------------------------------------
def measured_frames_per_s(env: Any, workers: int, warmup: int, window: int, seed: int = 0) -> float:
    """Frames/s of the real ``apex`` plan on CartPole (the bench config), over a window after a warm-up."""
    from bench.rllib_runs import RUNNER_CPUS
    from rlworkbench.agents import Agent
    from rlworkbench.execution.ray import PlanRun
    from rlworkbench.execution.ray.plans import APEX

    agent = Agent.from_env("CartPole-v1", cartpole_config(), backend="torch", seed=seed)  # a slowed env's spaces too
    run = PlanRun(APEX, agent, env, {"workers": workers, "envs_per_worker": ENVS, "sampler_cpus": RUNNER_CPUS},
                  seed=seed)
    try:
        run.train(warmup)
        started, frames = time.perf_counter(), run.timesteps
        run.train(frames + window)
        return (run.timesteps - frames) / (time.perf_counter() - started)
    finally:
        run.close()


def validation_rows(costs: Costs, slow_ms: float, repeats: int, warmup: int, window: int) -> list[dict[str, Any]]:
    cores = float(os.cpu_count() or 1)
    slow = SlowCartPoleFactory(slow_ms / 1e3)
    slow_frames_per_s, slow_cpu_s, _, _ = sampler_costs(make_sampler(workloads(False)[0], env=slow), repeats)
    slowed = Costs(**{**asdict(costs), "sampler_frames_per_s": slow_frames_per_s,
                      "sampler_cpu_s_per_frame": slow_cpu_s})
    rows = []
    for name, env, workers, model in (("1 sampler", "CartPole-v1", 1, costs), ("2 samplers", "CartPole-v1", 2, costs),
                                      (f"1 sampler slowed {slow_ms:g} ms/step", slow, 1, slowed)):
        predicted = predict(model, workers, cores=cores)
        measured = measured_frames_per_s(env, workers, warmup, window)
        error = measured / predicted["frames_per_s"] - 1.0
        rows.append({"case": "validation", "workload": "cartpole", "setting": name, "samplers": workers,
                     "cores": cores, "predicted_frames_per_s": predicted["frames_per_s"],
                     "bottleneck": predicted["bottleneck"], "measured_frames_per_s": measured, "error": error,
                     "meets_target": abs(error) <= GOAL, "target": f"|error| <= {GOAL:.0%}"})
    return rows


def run(args: Any) -> list[dict[str, Any]]:
    from rlworkbench.execution.ray import ensure_ray

    ensure_ray(num_cpus=3)
    rows: list[dict[str, Any]] = []
    for workload in workloads(not args.skip_pong, args.shard_sizes):
        costs, shard_rows = measure_costs(workload, args.repeats)
        rows += [{"case": "costs", **asdict(costs)}, *shard_rows, *capacity_rows(costs, args.gpu_pong_samples_per_s)]
        if workload.name == "cartpole":
            rows += validation_rows(costs, args.slow_ms, args.repeats, args.warmup_frames, args.window_frames)
    return rows


def main(argv: Sequence[str] | None = None) -> Any:
    parser = common.arg_parser(__doc__.splitlines()[0], "capacity.csv", 15, "measurement rounds per cost")
    parser.set_defaults(out=DATASET)
    parser.add_argument("--skip-pong", action="store_true", help="CartPole only (no ALE, no Nature CNN)")
    parser.add_argument("--slow-ms", type=float, default=3.0, help="sleep per env step of the slowed sampler")
    parser.add_argument("--gpu-pong-samples-per-s", type=float, default=None,
                        help="a GPU learner's measured samples/s for the Pong update (adds GPU rows)")
    parser.add_argument("--shard-sizes", type=int, nargs="+", default=[4096, 65536, 1 << 20],
                        help="CartPole shard capacities measured (the largest feeds the model)")
    parser.add_argument("--warmup-frames", type=int, default=WARMUP_FRAMES, help="validation runs' warm-up")
    parser.add_argument("--window-frames", type=int, default=WINDOW_FRAMES, help="validation runs' timed frames")
    args = parser.parse_args(argv)
    with common.torch_threads(args.threads):
        frame = common.results_frame(run(args))
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        for case, columns in (("shard", ["workload", "shard_capacity", "inserts_per_s", "samples_per_s"]),
                              ("capacity", ["workload", "learner", "paced", "samplers", "shards", "frames_per_s",
                                            "trained_per_s", "replay_ratio", "bottleneck", "frames_bound", "feeds",
                                            "learners_for_ratio", "shards_needed", "object_store_MB_s",
                                            "weights_MB_s"]),
                              ("validation", ["setting", "predicted_frames_per_s", "bottleneck",
                                              "measured_frames_per_s", "error", "meets_target"])):
            common.print_table(f"capacity: {case}", frame[frame["case"] == case], columns, None)
        print(f"CSV: {path}")
    return frame


if __name__ == "__main__":
    main()
