"""Ape-X under sampler faults: a sampler killed every 30 s of a 3-minute run, against the same run undisturbed.

Run ``python -m bench.faults [--seconds 180] [--kill-every 30] [--workers 2] [--spares 0 1] [--repeats N]
[--out PATH.csv]`` (default ``datasets/benchmarks/faults.csv``).

Both runs are the real ``apex`` plan on CartPole-v1 with the Ape-X bench's agent (:func:`bench.apex_vs_rllib.
dqn_config`), W samplers of 4 envs (1 CPU each), 2 shards, ``max_restarts`` high enough for every kill, in one
local Ray session, one after the other (undisturbed first, then disturbed; alternated on further repeats). The
run advances in steps of 200 frames; after each step the wall time and every sampler's frames so far are polled.
In the disturbed run, every ``--kill-every`` seconds one sampler (taking turns) is killed with ``ray.kill``; the
plan's actor manager sees the failed request, starts a replacement (fresh envs, the current weights) and asks it
again. ``--spares S …`` (``spare_samplers``; default ``0 1``) measures a pair of runs per S: with S > 0, S samplers
wait built, each reserving a CPU like a sampler, and the killed sampler's place goes to a spare in its warm process
while a new spare starts; with S = 0 the replacement starts at the kill (a new Ray worker process, its imports, the
agent's build). Per run: ``frames``, ``frames_per_s`` over the whole run, ``restarts``; per disturbed run,
``frames_ratio`` = its frames/s / the undisturbed run's (goal >= 0.9), ``frames_lost`` = the undisturbed run's
frames in the disturbed run's time minus the disturbed run's frames; per kill, ``recovery_s``: the seconds from the
kill until the restarted sampler's frames/s over the last ``--window`` seconds is within 20 % of its healthy twins'
(goal: <= 10 s; NaN when never within the run).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "benchmarks" / "faults.csv"
ENV_ID, ENVS, STEP_FRAMES, WARMUP_FRAMES = "CartPole-v1", 4, 200, 1200
RATIO_GOAL, RECOVERY_GOAL_S, TWIN_TOLERANCE = 0.9, 10.0, 0.2


def make_run(workers: int, kills: int, seed: int, spares: int) -> Any:
    from bench.apex_vs_rllib import dqn_config
    from bench.rllib_runs import RUNNER_CPUS
    from rlworkbench.agents import Agent
    from rlworkbench.execution.ray import PlanRun
    from rlworkbench.execution.ray.plans import APEX

    agent = Agent.from_env(ENV_ID, dqn_config(), backend="torch", seed=seed)
    return PlanRun(APEX, agent, ENV_ID, {"workers": workers, "envs_per_worker": ENVS, "sampler_cpus": RUNNER_CPUS,
                                         "max_restarts": kills + 1, "spare_samplers": spares}, seed=seed)


def one_run(workers: int, seconds: float, kill_every: float | None, seed: int, spares: int) -> dict[str, Any]:
    """A run of ``seconds`` after a warm-up, killing a sampler every ``kill_every`` s (None: undisturbed); the
    poll trace (``times``, ``frames`` per sampler), kill times and victims, totals."""
    import ray

    kills = 0 if kill_every is None else int(seconds // kill_every)
    run = make_run(workers, kills, seed, spares)
    try:
        run.train(WARMUP_FRAMES)
        start, start_frames = time.perf_counter(), run.timesteps
        times, frames, killed = [0.0], [[stats.timesteps for stats in run.stats]], []
        next_kill = kill_every
        while (now := time.perf_counter() - start) < seconds:
            if next_kill is not None and now >= next_kill:
                victim = len(killed) % workers
                ray.kill(run.samplers.manager.actor(victim), no_restart=True)
                killed.append((now, victim))
                next_kill += kill_every
            run.train(run.timesteps + STEP_FRAMES)
            times.append(time.perf_counter() - start)
            frames.append([stats.timesteps for stats in run.stats])
        elapsed = times[-1]
        return {"seconds": elapsed, "frames": run.timesteps - start_frames,
                "frames_per_s": (run.timesteps - start_frames) / elapsed,
                "restarts": int(sum(run.samplers.manager.restarts)), "times": np.asarray(times),
                "per_sampler": np.asarray(frames, float), "kills": killed}
    finally:
        run.close()


def rate(times: np.ndarray, frames: np.ndarray, at: int, window: float) -> float:
    """Frames/s of one sampler over the ``window`` seconds up to poll ``at``."""
    first = int(np.searchsorted(times, times[at] - window))
    span = times[at] - times[first]
    return (frames[at] - frames[first]) / span if span > 0 else float("nan")


def recovery_seconds(trace: dict[str, Any], kill_time: float, victim: int, window: float) -> float:
    """Seconds from the kill until the victim's frames/s over ``window`` is within 20 % of its twins' mean."""
    times, per_sampler = trace["times"], trace["per_sampler"]
    twins = [index for index in range(per_sampler.shape[1]) if index != victim]
    for at in range(int(np.searchsorted(times, kill_time + window)), len(times)):
        mine = rate(times, per_sampler[:, victim], at, window)
        theirs = float(np.mean([rate(times, per_sampler[:, twin], at, window) for twin in twins]))
        if theirs > 0 and mine >= (1 - TWIN_TOLERANCE) * theirs:
            return float(times[at] - kill_time)
    return float("nan")


def measure(workers: int, seconds: float, kill_every: float, window: float, repeats: int,
            spares: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for repeat in range(repeats):  # one pair of runs per repeat, both with ``spares`` spare samplers
        order = [None, kill_every] if repeat % 2 == 0 else [kill_every, None]
        traces = {("disturbed" if every else "undisturbed"): one_run(workers, seconds, every, repeat, spares)
                  for every in order}
        calm, hit = traces["undisturbed"], traces["disturbed"]
        recoveries = [recovery_seconds(hit, at, victim, window) for at, victim in hit["kills"]]
        for name, trace in traces.items():
            row = {"benchmark": "faults", "case": name, "repeat": repeat, "workers": workers, "spares": spares,
                   "seconds": trace["seconds"], "frames": trace["frames"], "frames_per_s": trace["frames_per_s"],
                   "restarts": trace["restarts"], "kills": len(trace["kills"])}
            if name == "disturbed":
                row.update(frames_ratio=trace["frames_per_s"] / calm["frames_per_s"],
                           frames_lost=calm["frames_per_s"] * trace["seconds"] - trace["frames"],
                           recovery_s_median=float(np.nanmedian(recoveries)) if recoveries else float("nan"),
                           recovery_s_max=float(np.max(recoveries)) if recoveries else float("nan"),
                           recovered=int(np.sum(np.asarray(recoveries) <= RECOVERY_GOAL_S)),
                           target=f"frames_ratio >= {RATIO_GOAL}, recovery <= {RECOVERY_GOAL_S:g} s",
                           meets_target=bool(trace["frames_per_s"] / calm["frames_per_s"] >= RATIO_GOAL
                                             and np.all(np.asarray(recoveries) <= RECOVERY_GOAL_S)))
            rows.append(row)
        for (at, victim), seconds_to_recover in zip(hit["kills"], recoveries):
            rows.append({"benchmark": "faults", "case": "kill", "repeat": repeat, "workers": workers, "spares": spares,
                         "kill_at_s": at, "victim": victim, "recovery_s": seconds_to_recover})
    return rows


def main(argv: Sequence[str] | None = None) -> Any:
    from bench.rllib_runs import quiet_ray_logs
    from rlworkbench.execution.ray import ensure_ray

    parser = common.arg_parser(__doc__.splitlines()[0], "faults.csv", 1, "disturbed/undisturbed pairs")
    parser.set_defaults(out=DATASET)
    parser.add_argument("--seconds", type=float, default=180.0, help="timed seconds per run (after the warm-up)")
    parser.add_argument("--kill-every", type=float, default=30.0, help="seconds between sampler kills")
    parser.add_argument("--workers", type=int, default=2, help="samplers")
    parser.add_argument("--window", type=float, default=3.0, help="seconds of frames/s compared after a restart")
    parser.add_argument("--spares", type=int, nargs="+", default=[0, 1],
                        help="spare samplers (spare_samplers), a pair of runs each (0: a new sampler at the kill)")
    args = parser.parse_args(argv)
    ensure_ray(num_cpus=args.workers + max(args.spares) + 1)
    with common.torch_threads(args.threads), quiet_ray_logs(args.quiet):
        rows = [row for spares in args.spares
                for row in measure(args.workers, args.seconds, args.kill_every, args.window, args.repeats, spares)]
    frame = common.results_frame(rows)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        runs = frame[frame["case"] != "kill"]
        common.print_table("Ape-X under sampler faults (frames/s; ratio = disturbed / undisturbed)", runs,
                           [c for c in ("case", "spares", "repeat", "frames", "frames_per_s", "restarts", "kills",
                                        "frames_ratio", "frames_lost", "recovery_s_median", "recovery_s_max",
                                        "meets_target") if c in runs], None)
        common.print_table("Per kill", frame[frame["case"] == "kill"],
                           ["spares", "repeat", "kill_at_s", "victim", "recovery_s"], path)
    return frame


if __name__ == "__main__":
    main()
