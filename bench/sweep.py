"""Sweeps on Ray Tune: random search against ASHA and PBT at an equal budget, what a trial costs, and what Tune costs
on top of a single ``promote``. CartPole-v1, the shipped ``dqn_cartpole`` agent, 4 envs per run.

Run ``python -m bench.sweep [--trials 8] [--budget 50000] [--report-every 5000] [--methods random asha pbt]
[--repeats 3] [--confirm-seeds 3] [--single-repeats 3] [--num-cpus 2] [--out PATH.csv]``.

1. **Search** (``--methods``): each method is one ``sweep()`` of ``--trials`` trials x 1 seed over learning rate
   (loguniform 1e-4 .. 3e-3) x target sync interval (choice 25, 100, 400 updates), each trial at most
   ``--budget`` env steps, reporting every ``--report-every`` steps with the greedy return of 5 evaluation episodes
   (``metric="greedy_return"``) — the same 8-trial budget for all: ``random`` (no scheduler), ``asha``
   (grace period 2 reports, reduction factor 2), ``pbt`` (perturbation every 2 reports, quartiles). Trials run two
   at a time on the ``--num-cpus`` Ray CPUs (one each). Repeat ``r`` of every method draws its trials with
   ``search_seed=r``, so random search and ASHA try the same configurations in the same order (PBT draws its initial
   population alike, then perturbs); methods take turns, in reverse order on odd repeats. Measured from the
   experiment's records: ``time_to_475_s``
   (wall time from the driver's start to the first result whose greedy return reaches 475), ``steps_to_475`` (env
   steps all trials had taken by then) and, per trial, ``first_result_s`` (Tune's trial start to its first result)
   and ``trial_overhead_s`` (that minus the time its runs spent training the first report's steps at the trial's
   own steady rate, its fastest interval between two results: the cost of the actor, the imports and the build,
   an upper bound). A sweep is stopped once a trial
   reaches 475 (what a researcher would do), so ``wall_s`` is its time to stop.
2. **Confirmation** (``--confirm-seeds``): the best configuration of each method (of its fastest repeat: the trial
   that reached 475, else the best last greedy return) runs again with 3 seeds for the full budget; ``compare()``
   reports the IQM of their training return (the last 10 episodes) with its stratified bootstrap 95 % interval.
3. **Tune's cost** (``--single-repeats``): the same single run (the config's own values, 1 seed, ``--budget``
   steps) through ``promote(to="local")`` and through a 1-trial ``sweep()``, interleaved, wall time from the call to
   the end; ``tune_cost_ratio`` = median sweep / median promote.

Targets: ASHA or PBT reaches 475 in <= 0.6x the wall time of random search (medians over repeats); median trial
overhead <= 3 s; Tune's cost at 1 trial <= 1.1x. One CSV row per measured thing (``kind``: search, trial, confirm,
single), written to ``datasets/benchmarks/sweep.csv`` by default (data card: ``datasets/benchmarks/README.md``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from bench.common import environment, write_csv

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "datasets" / "benchmarks" / "sweep.csv"
SOLVED = 475.0


def space() -> dict[str, Any]:
    from ray import tune

    return {"optimizer/learning_rate": tune.loguniform(1e-4, 3e-3), "target/sync_interval": tune.choice([25, 100, 400])}


def scheduler_settings(method: str, report_every: int) -> dict[str, Any]:
    return {"random": {}, "asha": {"scheduler": "asha", "scheduler_options": {
        "grace_period": 2 * report_every, "reduction_factor": 2}},
        "pbt": {"scheduler": "pbt", "scheduler_options": {"perturbation_interval": 2 * report_every,
                                                          "quantile_fraction": 0.25}}}[method]


def read_records(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (directory / "records.jsonl").read_text().splitlines() if line.strip()]


def search(method: str, repeat: int, args: argparse.Namespace,
           logdir: Path) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """One sweep of ``method`` (its trials drawn with ``search_seed=repeat``), stopped once a trial's greedy return
    reaches 475: its row, its trials' rows and the experiment."""
    from rlworkbench.workbench.experiments import sweep

    experiment = sweep("dqn_cartpole", space=space(), seeds=1, trials=args.trials, budget=args.budget,
                       report_every=args.report_every, metric="greedy_return", evaluation_episodes=5,
                       env="CartPole-v1", num_envs=4, logdir=logdir, name=f"{method}-{repeat}", search_seed=repeat,
                       checkpoint_frequency=0 if method != "pbt" else 1,
                       **scheduler_settings(method, args.report_every))
    started = time.monotonic()
    while not experiment.done:
        if (experiment.trials.get("greedy_return", pd.Series(dtype=float)) >= SOLVED).any():
            experiment.stop(timeout=300)
            break
        time.sleep(1.0)
    experiment.wait(timeout=3600, raise_on_failure=False)
    wall = time.monotonic() - started
    records = read_records(experiment.directory)
    return {**_search_row(method, records, wall), "repeat": repeat}, _trial_rows(method, records), experiment


def _search_row(method: str, records: list[dict[str, Any]], wall: float) -> dict[str, Any]:
    start = next(r["time"] for r in records if r["kind"] == "experiment")
    latest: dict[str, int] = {}
    solved_at, steps = math.nan, math.nan
    for record in records:
        if record["kind"] != "result":
            continue
        latest[record["trial"]] = record["timesteps"]
        if math.isnan(solved_at) and (record.get("greedy_return") or -math.inf) >= SOLVED:
            solved_at, steps = record["time"] - start, sum(latest.values())
    results = [r for r in records if r["kind"] == "result"]
    return {"kind": "search", "method": method, "time_to_475_s": solved_at, "steps_to_475": steps,
            "wall_s": wall, "trials_started": len({r["trial"] for r in records if r["kind"] == "trial"}),
            "env_steps_total": sum(latest.values()), "results": len(results),
            "best_greedy_return": max((r.get("greedy_return") or -math.inf for r in results), default=math.nan)}


def _trial_rows(method: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    starts: dict[str, float] = {}  # each trial's first start (PBT restarts it with new values later)
    for record in records:
        if record["kind"] == "trial":
            starts.setdefault(record["trial"], record["time"])
    for trial, started in starts.items():
        results = [r for r in records if r["kind"] == "result" and r["trial"] == trial]
        if not results:
            continue
        first = results[0]
        rate = _steady_rate(results)
        training = first["timesteps"] / rate if rate > 0 else math.nan
        rows.append({"kind": "trial", "method": method, "trial": trial, "first_result_s": first["time"] - started,
                     "trial_overhead_s": first["time"] - started - training, "steady_steps_per_s": rate,
                     "reports": len(results)})
    return rows


def _steady_rate(results: list[dict[str, Any]]) -> float:
    """Env steps per wall second (training and evaluation) over the trial's fastest interval between two consecutive
    results: a PBT trial waits paused between its reports, and an average over its whole life counted the waits as
    training (its overhead came out negative). The fastest interval makes the overhead an upper bound."""
    rates = [(after["timesteps"] - before["timesteps"]) / (after["time"] - before["time"])
             for before, after in itertools.pairwise(results)
             if after["time"] > before["time"] and after["timesteps"] > before["timesteps"]]
    return max(rates, default=math.nan)


def best_params(experiment: Any) -> dict[str, Any]:
    trials = experiment.trials
    scored = trials.dropna(subset=["greedy_return"])
    best = scored.sort_values(["greedy_return", "timesteps"], ascending=[False, True]).iloc[0]
    return {path: (int(best[path]) if path == "target/sync_interval" else float(best[path]))
            for path in experiment.plan.paths}


def confirm(method: str, params: dict[str, Any], args: argparse.Namespace, logdir: Path) -> dict[str, Any]:
    """The best configuration again with ``--confirm-seeds`` seeds: IQM of the training return, with its interval."""
    from rlworkbench.workbench.experiments import compare, sweep

    experiment = sweep("dqn_cartpole", space=params, seeds=args.confirm_seeds, trials=1, budget=args.budget,
                       report_every=args.report_every, env="CartPole-v1", num_envs=4, logdir=logdir,
                       name=f"{method}-confirm", checkpoint_frequency=0)
    experiment.wait(timeout=7200, raise_on_failure=False)
    table = compare(experiment, by="experiment").table.iloc[0]
    return {"kind": "confirm", "method": method, **{f"param/{path}": value for path, value in params.items()},
            "seeds": args.confirm_seeds, "iqm": table["iqm"], "iqm_low": table["iqm_low"],
            "iqm_high": table["iqm_high"], "mean": table["mean"]}


def single_runs(args: argparse.Namespace, logdir: Path) -> list[dict[str, Any]]:
    """The same one run through promote and through a 1-trial sweep, interleaved: wall times."""
    from rlworkbench.workbench import promote
    from rlworkbench.workbench.experiments import sweep

    rows = []
    for repeat in range(args.single_repeats):
        order = ("promote", "sweep") if repeat % 2 == 0 else ("sweep", "promote")
        for how in order:
            started = time.monotonic()
            if how == "promote":
                run = promote("dqn_cartpole", to="local", env="CartPole-v1", num_envs=4, timesteps=args.budget,
                              seed=repeat, logdir=logdir / "promote")
                run.wait()
                timesteps = run.timesteps
            else:
                experiment = sweep("dqn_cartpole", space={}, seeds=[repeat], trials=1, budget=args.budget,
                                   report_every=args.report_every, env="CartPole-v1", num_envs=4,
                                   logdir=logdir / "single", name=f"single-{repeat}", checkpoint_frequency=0)
                experiment.wait()
                timesteps = int(experiment.trials["timesteps"].iloc[0])
            rows.append({"kind": "single", "method": how, "repeat": repeat, "wall_s": time.monotonic() - started,
                         "timesteps": timesteps})
    return rows


def summary(frame: pd.DataFrame) -> dict[str, Any]:
    """Medians over repeats (a repeat that never reached 475 counts as infinitely slow)."""
    searches = frame[frame["kind"] == "search"]
    times = searches.assign(time=searches["time_to_475_s"].fillna(math.inf)).groupby("method")["time"].median()
    random_time = times.get("random", math.nan)
    best_scheduled = min(times.get("asha", math.inf), times.get("pbt", math.inf))
    trials = frame[frame["kind"] == "trial"]
    singles = frame[frame["kind"] == "single"]
    tune_cost = (singles[singles["method"] == "sweep"]["wall_s"].median()
                 / singles[singles["method"] == "promote"]["wall_s"].median()) if len(singles) else math.nan
    return {**{f"median_time_to_475_{method}_s": float(value) for method, value in times.items()},
            "scheduled_vs_random_time": best_scheduled / random_time if 0 < random_time < math.inf else math.nan,
            "median_trial_overhead_s": trials["trial_overhead_s"].median() if len(trials) else math.nan,
            "median_first_result_s": trials["first_result_s"].median() if len(trials) else math.nan,
            "tune_cost_ratio": tune_cost}


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--budget", type=int, default=50_000)
    parser.add_argument("--report-every", type=int, default=5_000)
    parser.add_argument("--methods", nargs="*", default=["random", "asha", "pbt"], choices=["random", "asha", "pbt"])
    parser.add_argument("--repeats", type=int, default=3, help="searches per method (search seeds 0, 1, ...)")
    parser.add_argument("--confirm-seeds", type=int, default=3, help="0: no confirmation runs")
    parser.add_argument("--single-repeats", type=int, default=3, help="0: no promote vs 1-trial sweep runs")
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--logdir", type=Path, default=None, help="where the runs go (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    from rlworkbench.execution.ray.session import ensure_ray

    ensure_ray(num_cpus=args.num_cpus)
    logdir = args.logdir or Path(tempfile.mkdtemp(prefix="rlworkbench-bench-sweep-"))
    rows: list[dict[str, Any]] = []
    fastest: dict[str, tuple[float, Any]] = {}  # method -> (time to 475, its experiment)
    for repeat in range(args.repeats):
        for method in args.methods if repeat % 2 == 0 else args.methods[::-1]:
            row, trial_rows, experiment = search(method, repeat, args, logdir)
            rows += [row, *trial_rows]
            time_to = row["time_to_475_s"] if not math.isnan(row["time_to_475_s"]) else math.inf
            if method not in fastest or time_to < fastest[method][0]:
                fastest[method] = (time_to, experiment)
            if not args.quiet:
                print(f"{method} (repeat {repeat}): {row}", flush=True)
    for method, (_, experiment) in fastest.items() if args.confirm_seeds else ():
        rows.append(confirm(method, best_params(experiment), args, logdir))
    if args.single_repeats:
        rows += single_runs(args, logdir)
    frame = pd.DataFrame(rows)
    stamp = {**environment(), **summary(frame), "trials_per_method": args.trials, "budget": args.budget,
             "report_every": args.report_every, "num_cpus": args.num_cpus}
    frame = frame.assign(**stamp)
    write_csv(frame, args.out)
    if not args.quiet:
        print(frame[frame["kind"] != "trial"].drop(columns=list(environment())).to_string(index=False))
        print({key: stamp[key] for key in summary(frame)})
    return frame


if __name__ == "__main__":
    main()
