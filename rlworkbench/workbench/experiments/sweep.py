"""``sweep(prototype, space={...}, seeds=3, trials=8, ...) -> Experiment``: many runs of a prototype on Ray Tune.

::

    from ray import tune
    experiment = sweep("dqn_cartpole", space={"optimizer/learning_rate": tune.loguniform(1e-4, 3e-3),
                                              "target/sync_interval": tune.choice([50, 100, 500])},
                       seeds=3, trials=8, scheduler="asha", budget=30_000, env="CartPole-v1")
    experiment            # a live widget: sortable trial table, curves coloured by a parameter
    experiment.results    # one row per trial x seed; experiment.curves, experiment.best, experiment.stop()

Everything is checked before anything starts: the settings (as ``promote`` checks them), every key path of the
space and every value its distributions can produce (against the agent's schema), the scheduler and search. The
cell returns at once; the Tune driver runs in a daemon thread here — or, with ``address="http://head:8265"``, in a
Ray job on that cluster, followed from here like a cluster run.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

from rlworkbench.errors import ConfigError
from rlworkbench.extras import require
from rlworkbench.workbench.experiments.experiment import Experiment
from rlworkbench.workbench.experiments.plan import ExperimentPlan
from rlworkbench.workbench.experiments.search_space import check_space, describe, is_grid
from rlworkbench.workbench.run_records import OFF, runs_dir
from rlworkbench.workbench.run_spec import RunSpec, make_spec

if TYPE_CHECKING:
    from ray.tune.schedulers import TrialScheduler
    from ray.tune.search import SearchAlgorithm, Searcher

TARGETS = ("local", "multi_gpu", "ray")
SCHEDULERS = (None, "asha", "pbt")
SEARCHES = (None, "optuna")
METRICS = ("return", "greedy_return")


class _JobSettings(TypedDict, total=False):
    """The settings of a sweep on a cluster that go to :func:`~.job.submit_job` (see ``sweep``'s docstring)."""

    auth_token: str | None
    runtime_env: Mapping[str, object] | None
    ship_code: bool
    stop_grace: float


def sweep(prototype: object, space: Mapping[str, object], seeds: int | Sequence[int] = 3, trials: int = 8,
          scheduler: str | TrialScheduler | None = None, search: str | Searcher | SearchAlgorithm | None = None,
          metric: str = "return", budget: int = 10_000,
          target: str = "local", address: str | None = None, name: str | None = None, logdir: str | Path = "runs",
          report_every: int | None = None, window: int = 10, evaluation_episodes: int | None = None,
          checkpoint_frequency: int = 1, search_seed: int | None = None, trial_cpus: float = 1.0,
          trial_gpus: float = 0.0,
          scheduler_options: Mapping[str, object] | None = None, search_options: Mapping[str, object] | None = None,
          **settings: object) -> Experiment:
    """Starts an experiment and returns its :class:`Experiment` at once (see the module docstring).

    Args:
        prototype: what ``promote`` takes — a shipped config's name, a JSON path, a config dict or an agent (its
            config: every trial starts from fresh weights).
        space: config key path → Tune distribution (``tune.loguniform``, ``choice``, ``randint``, ``grid_search``
            …) or a constant.
        seeds: how many seeds (0, 1, …) or which; every trial runs each, so configs are compared on equal seeds.
        trials: configurations sampled (Tune's ``num_samples``; with grids, samples per grid point).
        scheduler: ``None`` (every trial to the end), ``"asha"`` (stops poor trials early), ``"pbt"``
            (population-based training) or a Tune scheduler object.
        search: ``None`` (random and grid) or ``"optuna"`` (TPE), or a Tune searcher.
        metric: ``"return"`` (the mean over seeds of each seed's last ``window`` training episodes) or
            ``"greedy_return"`` (``evaluation_episodes`` greedy episodes per seed at each result; default 5).
        budget: env steps per run. ``report_every``: env steps between results (default ``budget // 20``).
        target: where each run trains: ``"local"``, ``"multi_gpu"`` (``devices=``) or ``"ray"`` (``workers=`` …).
        address: ``None`` (Ray on this machine; ``"auto"`` or a GCS address joins a running cluster) or
            ``"http(s)://head:8265"``: the sweep runs as one Ray job there (``auth_token=``, ``runtime_env=``).
        name: the experiment's directory under ``logdir`` (default ``<config>-<env>-<time>``); it must be new.
        search_seed: seeds the values the search draws (random search, Optuna): the same seed, the same trials
            — what a fair comparison of schedulers needs.
        checkpoint_frequency: results between a trial's checkpoints (each seed's agent, ``.npz``, and its
            tables): what ``resume()`` and PBT go on from. ``0``: none (a resumed trial starts again).
        trial_cpus, trial_gpus: what Tune reserves per trial (the ``ray`` target adds its samplers' CPUs).
        scheduler_options, search_options: more arguments of the scheduler (``grace_period``,
            ``perturbation_interval`` …) and of the searcher (``max_concurrent`` …).
        settings: the runs' ``promote`` settings: ``env``, ``backend``, ``num_envs``, ``checkpoint_every`` … and
            the target's own.
    """
    require("ray.tune", "sweep()")
    job_settings = _pop_job_settings(settings, address)
    spec = make_spec(prototype, timesteps=_positive(budget, "budget"), **settings)
    if not isinstance(spec.env, str):
        raise ConfigError("an experiment's runs make their env in other processes", argument="env",
                          expected="a Gymnasium env id (register a factory with gymnasium.register)",
                          got=spec.env_name)
    config = check_space(spec.config, space)
    plan = _plan(spec, config, space, seeds=seeds, trials=trials, scheduler=scheduler, search=search,
                 metric=metric, budget=budget, target=target, name=name, logdir=logdir, report_every=report_every,
                 window=window, evaluation_episodes=evaluation_episodes, trial_cpus=trial_cpus,
                 checkpoint_frequency=checkpoint_frequency, search_seed=search_seed,
                 trial_gpus=trial_gpus, options={"scheduler": dict(scheduler_options or {}),
                                                 "search": dict(search_options or {}), "address": address})
    if address is not None and re.match(r"https?://", str(address)):
        from rlworkbench.workbench.experiments.job import submit_job

        return Experiment.follow(plan, submit_job(plan, space, **job_settings))
    custom_scheduler = None if scheduler is None or isinstance(scheduler, str) else scheduler
    custom_search = None if search is None or isinstance(search, str) else search
    from rlworkbench.workbench.experiments import driver

    made_scheduler = custom_scheduler or driver.make_scheduler(plan, dict(space))  # a bad option raises here
    made_search = custom_search or driver.make_search(plan, dict(space))
    plan.write()
    return Experiment.start_here(plan, lambda: driver.make_tuner(plan, dict(space), made_scheduler, made_search))


def _pop_job_settings(settings: dict[str, object], address: object) -> _JobSettings:
    keys = ("auth_token", "runtime_env", "ship_code", "stop_grace")
    popped = {key: settings.pop(key) for key in keys if key in settings}
    if popped and not (isinstance(address, str) and re.match(r"https?://", address)):
        raise ConfigError("these settings are for a sweep on a cluster", argument=", ".join(sorted(popped)),
                          expected="address='http(s)://head:8265' with them", got=address)
    return cast(_JobSettings, popped)  # values as the user gave them: submit_job checks them


def _plan(spec: RunSpec, config: dict[str, object], space: Mapping[str, object], **given: object) -> ExperimentPlan:
    seeds = _seeds(given["seeds"])
    trials, budget, window = (_positive(given[key], key) for key in ("trials", "budget", "window"))
    report_every = _positive(given["report_every"] if given["report_every"] is not None else max(1, budget // 20),
                             "report_every")
    target, scheduler, search, metric = given["target"], given["scheduler"], given["search"], given["metric"]
    if target not in TARGETS:
        raise ConfigError("unknown target for an experiment's runs", argument="target", expected=list(TARGETS),
                          got=repr(target))
    _check_target_options(target, spec.options)
    if (isinstance(scheduler, str) and scheduler not in SCHEDULERS) or (scheduler is not None and \
            not isinstance(scheduler, str) and not hasattr(scheduler, "on_trial_result")):
        raise ConfigError("unknown scheduler", argument="scheduler", expected="None, 'asha', 'pbt' or a Tune "
                          "scheduler", got=repr(scheduler))
    if (isinstance(search, str) and search not in SEARCHES) or (search is not None and not isinstance(search, str) \
            and not hasattr(search, "suggest")):
        raise ConfigError("unknown search", argument="search", expected="None, 'optuna' or a Tune searcher",
                          got=repr(search))
    if search is not None and any(is_grid(distribution) for distribution in space.values()):
        raise ConfigError("a searcher proposes values itself: grid_search is for random and grid sweeps",
                          argument="space", key_path=next(p for p, d in space.items() if is_grid(d)),
                          expected="tune.choice([...]) with search=", got="tune.grid_search")
    if scheduler == "pbt" and search is not None:
        raise ConfigError("PBT chooses its own values", argument="search", expected="None with scheduler='pbt'",
                          got=repr(search))
    if metric not in METRICS:
        raise ConfigError("unknown metric", argument="metric", expected=list(METRICS), got=repr(metric))
    episodes = given["evaluation_episodes"]
    episodes = (5 if metric == "greedy_return" else 0) if episodes is None else episodes
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0 or \
            (metric == "greedy_return" and episodes < 1):
        raise ConfigError("bad number of evaluation episodes", argument="evaluation_episodes",
                          expected="int >= 1 with metric='greedy_return', else >= 0", got=repr(episodes))
    name = given["name"] or f"{spec.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name in (".", ".."):
        raise ConfigError("bad experiment name", argument="name", expected="letters, digits, '-', '_' and '.'",
                          got=repr(name))
    directory = Path(given["logdir"]).resolve() / name
    if directory.exists():
        raise ConfigError("an experiment of this name exists: Experiment.attach(name) finds it, .resume() goes on",
                          argument="name", expected="a new name", got=str(directory))
    records_dir = runs_dir()
    settings = {key: getattr(spec, key) for key in ("env", "backend", "num_envs", "vector_mode", "threads",
                                                     "checkpoint_every", "summaries_every")}
    return ExperimentPlan(
        name=name, prototype=spec.name, directory=str(directory), config=config, paths=list(space), seeds=seeds,
        space={path: describe(distribution) for path, distribution in space.items()}, budget=budget,
        report_every=report_every, target=target, settings={**settings, **spec.options}, metric=metric,
        window=window, evaluation_episodes=episodes, trials=trials,
        scheduler=scheduler if isinstance(scheduler, str) or scheduler is None else type(scheduler).__name__,
        search=search if isinstance(search, str) or search is None else type(search).__name__,
        trial_cpus=float(given["trial_cpus"]), trial_gpus=float(given["trial_gpus"]),
        checkpoint_frequency=_natural(given["checkpoint_frequency"], "checkpoint_frequency"),
        search_seed=None if given["search_seed"] is None else _natural(given["search_seed"], "search_seed"),
        runs_dir=OFF if records_dir is None else str(records_dir), options=given["options"])


def _check_target_options(target: str, options: Mapping[str, object]) -> None:
    from rlworkbench.execution.ray.settings import DEFAULTS

    allowed = {"local": set(), "multi_gpu": {"devices"}, "ray": {*DEFAULTS, "devices"} - {"address"}}[target]
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ConfigError(f"unknown settings for the {target} target", argument=", ".join(unknown),
                          expected=sorted(allowed), got=unknown)


def _seeds(seeds: object) -> list[int]:
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        return list(range(_positive(seeds, "seeds")))
    if isinstance(seeds, Sequence) and seeds and all(isinstance(s, int) and not isinstance(s, bool) for s in seeds) \
            and len(set(seeds)) == len(seeds):
        return [int(seed) for seed in seeds]
    raise ConfigError("bad seeds", argument="seeds", expected="a count >= 1 or a list of distinct ints",
                      got=repr(seeds))


def _positive(value: object, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"bad {argument}", argument=argument, expected="int >= 1", got=repr(value))
    return int(value)


def _natural(value: object, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"bad {argument}", argument=argument, expected="int >= 0", got=repr(value))
    return int(value)
