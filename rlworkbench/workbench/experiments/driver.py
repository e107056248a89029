"""The Tune driver of an experiment: a ``Tuner`` made from an :class:`~.plan.ExperimentPlan`, run to its end.

:func:`make_tuner` picks the scheduler (none: every trial to its budget; ``asha``: early stopping on the metric;
``pbt``: population-based training, perturbing values within the space and the schema, exploiting through the
trials' own checkpoints) and the search (random or grid; ``optuna``: TPE through Tune's integration), asks Tune for
the trial resources, and adds the :class:`Recorder` (every event to ``records.jsonl``) and a stop file
(``Experiment.stop()`` — or a cluster job's SIGTERM — writes it; Tune then stops every trial, which saves its final
checkpoints). :func:`restore_tuner` makes the same Tuner go on from Tune's state after its driver died.
:func:`drive` runs one: in a daemon thread of the notebook, or as the main work of a cluster job.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ray import tune
from ray.tune.logger import CSVLoggerCallback, JsonLoggerCallback

from rlworkbench.errors import ConfigError
from rlworkbench.extras import require
from rlworkbench.workbench.experiments.plan import ExperimentPlan
from rlworkbench.workbench.experiments.records import RecordWriter
from rlworkbench.workbench.experiments.search_space import (
    agent_schema,
    is_grid,
    params_of,
    produced_values,
    tune_space,
    with_params,
)
from rlworkbench.workbench.experiments.trial import TrialTrainable

if TYPE_CHECKING:
    from ray.tune import Trainable
    from ray.tune.experiment import Trial
    from ray.tune.schedulers import TrialScheduler
    from ray.tune.search import SearchAlgorithm, Searcher
    from ray.tune.search.sample import Domain

STOP_FILE = "stop"  #: in the experiment directory: asks the driver to stop every trial

TUNE_SETTINGS = {
    # Tune's TensorBoard logger would write a second set of event files beside each trial's runs (only its CSV and
    # JSON loggers are added, below); its console reporter would print tables into the notebook. The trials' runs and
    # the Experiment's widget say all of that already.
    "TUNE_DISABLE_AUTO_CALLBACK_LOGGERS": "1",
    "RAY_AIR_NEW_OUTPUT": "0",
    # How often Tune saves the experiment's state (which trial checkpoint is newest): a driver that dies loses at
    # most this many seconds of it (Tune's "auto" waits 10 s or more).
    "TUNE_GLOBAL_CHECKPOINT_S": "2",
}
"""Environment variables Tune's driver reads when a Tuner is made and fit (a value the user set is kept)."""


def _no_missing_metrics_warning(record: logging.LogRecord) -> bool:
    """Trials an experiment's stop kept from starting have no result files; Tune's result grid warns of each one at
    the end of fit(). The experiment's records say which trials ran."""
    return "Failed to fetch metrics" not in record.getMessage()


def settle_tune() -> None:
    """Sets :data:`TUNE_SETTINGS` and quiets the result grid's warning about trials that never ran: when a sweep
    starts (making, restoring or driving its Tuner), not when this module is imported. Safe to call again."""
    for name, value in TUNE_SETTINGS.items():
        os.environ.setdefault(name, value)
    logging.getLogger("ray.tune.analysis.experiment_analysis").addFilter(_no_missing_metrics_warning)  # once


class Recorder(tune.Callback):
    """Writes every trial event of the experiment as a record (see :mod:`.records`)."""

    def __init__(self, plan: ExperimentPlan, writer: RecordWriter):
        self.paths, self.budget, self.seeds, self.writer = list(plan.paths), plan.budget, list(plan.seeds), writer
        self.params: dict[str, dict[str, object]] = {}
        self.timesteps: dict[str, int] = {}
        self.ended: set[str] = set()

    def _announce(self, trial: Trial) -> None:
        params = params_of(trial.config, self.paths)
        if self.params.get(trial.trial_id) != params:  # a new trial, or PBT gave it new values
            self.params[trial.trial_id] = params
            self.writer("trial", trial=trial.trial_id, params=params)

    def on_trial_start(self, iteration: int, trials: list[Trial], trial: Trial, **info: object) -> None:
        self._announce(trial)

    def on_trial_result(self, iteration: int, trials: list[Trial], trial: Trial, result: Mapping[str, object],
                        **info: object) -> None:
        self._announce(trial)
        self.timesteps[trial.trial_id] = int(cast(float, result.get("timesteps_total", 0)))
        per_seed = {str(seed): result.get(f"return_seed_{seed}") for seed in self.seeds}
        greedy = {str(seed): result.get(f"greedy_return_seed_{seed}") for seed in self.seeds
                  if f"greedy_return_seed_{seed}" in result}
        self.writer("result", trial=trial.trial_id, timesteps=self.timesteps[trial.trial_id],
                    iteration=result.get("training_iteration"), per_seed=per_seed, greedy_per_seed=greedy,
                    wall_time=result.get("time_total_s"),
                    **{key: result.get(key) for key in ("return", "greedy_return", "episodes", "steps_per_second",
                                                        "restarts") if key in result})

    def on_trial_complete(self, iteration: int, trials: list[Trial], trial: Trial, **info: object) -> None:
        self._end(trial)

    def on_trial_error(self, iteration: int, trials: list[Trial], trial: Trial, **info: object) -> None:
        self._end(trial, error=_last_line(trial.get_error()) or f"the trial failed: see {_error_file(trial)}")

    def on_experiment_end(self, trials: list[Trial], **info: object) -> None:
        """Trials stopped with the experiment (its stop file) end here: Tune reports no completion for them."""
        for trial in trials:
            if trial.trial_id in self.params and trial.trial_id not in self.ended:
                self._end(trial, error=_last_line(trial.get_error()) if trial.status == "ERROR" else None)

    def _end(self, trial: Trial, error: str | None = None) -> None:
        finished = self.timesteps.get(trial.trial_id, 0) >= self.budget
        state = "failed" if error is not None else "finished" if finished else "stopped"
        self.ended.add(trial.trial_id)
        self.writer("trial_end", trial=trial.trial_id, state=state, error=error)


class StopFile(tune.Stopper):
    """Stops every trial once the experiment's stop file exists (picklable: Tune keeps it with its state)."""

    def __init__(self, path: str | Path):
        self.path = str(path)

    def __call__(self, trial_id: str, result: Mapping[str, object]) -> bool:
        return False

    def stop_all(self) -> bool:
        return os.path.exists(self.path)


# ----- making the Tuner ---------------------------------------------------------------------------------------------
def trainable(plan: ExperimentPlan) -> type[Trainable] | Callable[..., object]:
    """The trial class with the plan bound and its resources: a CPU (``trial_cpus``) and ``trial_gpus``, plus the
    samplers' CPUs on the ``ray`` target (they run as actors inside the trial's placement group)."""
    bound = tune.with_parameters(TrialTrainable, plan=dataclasses.asdict(plan))
    head = {"CPU": plan.trial_cpus, **({"GPU": plan.trial_gpus} if plan.trial_gpus else {})}
    if plan.target != "ray":
        return tune.with_resources(bound, head)
    from rlworkbench.execution.ray.settings import ray_settings

    settings = ray_settings(plan.config, **{key: value for key, value in plan.settings.items()
                                            if key not in RUN_KEYS and key != "devices"})
    bundles = [head] + [{"CPU": settings["sampler_cpus"]}] * settings["workers"]
    return tune.with_resources(bound, tune.PlacementGroupFactory([bundle for bundle in bundles if any(
        bundle.values())] or [{"CPU": 0.01}]))


Mutations = dict[str, "dict[str, object] | list[object] | tuple[object, ...] | Callable[..., object] | Domain"]
"""What PBT's ``hyperparam_mutations`` takes: per key a nested dict, the values to pick from, or a distribution."""

KEEP_CHECKPOINTS = {"pbt": 12}
"""Trial checkpoints Tune keeps with PBT: a donor's checkpoint must outlive its own next reports until the exploiting
trial has restored from it."""
KEEP_FOR_RESUME = 12
"""Trial checkpoints Tune keeps otherwise. A resume restores the newest checkpoint Tune's saved state names, and that
state is written every ``TUNE_GLOBAL_CHECKPOINT_S`` seconds — later under load — while checkpoints come with every
report and the older ones are deleted: with 2 kept, a state two checkpoints behind named one already gone (seen in
the suite: ``Could not recover from checkpoint as it does not exist on storage anymore``). With 5 kept and a report
every 0.2 s, a driver killed while Tune was deleting the checkpoint its 2-s-old state named left that folder half
gone (seen in the suite: ``trial.json`` missing). Twelve tolerate a state eleven reports behind (as many as PBT
keeps), and a checkpoint found half gone gives way to the newest whole one before it
(:func:`~.trial.whole_checkpoint`)."""
RUN_KEYS = ("env", "backend", "num_envs", "vector_mode", "threads", "checkpoint_every", "summaries_every",
            "progress", "logdir", "run_name")


def make_tuner(plan: ExperimentPlan, space: Mapping[str, object], scheduler: TrialScheduler | None = None,
               search: Searcher | SearchAlgorithm | None = None) -> tune.Tuner:
    """A fresh Tuner for ``plan`` over ``space`` (key path → distribution); ``scheduler`` / ``search`` may be Tune
    objects of the user's own, else they are made from the plan's names."""
    settle_tune()
    scheduler = scheduler if scheduler is not None else make_scheduler(plan, space)
    search = search if search is not None else make_search(plan, space)
    return tune.Tuner(trainable(plan), param_space=tune_space(space),
                      tune_config=tune.TuneConfig(metric=plan.metric, mode=plan.mode, num_samples=plan.trials,
                                                  scheduler=scheduler, search_alg=search, reuse_actors=True),
                      run_config=_run_config(plan))


def restore_tuner(plan: ExperimentPlan) -> tune.Tuner:
    """The Tuner of ``plan`` going on from Tune's saved state: unfinished and failed trials resume from their newest
    checkpoint; finished ones stay as they are."""
    settle_tune()
    if not tune.Tuner.can_restore(str(plan.tune_path)):
        raise ConfigError("this experiment has no Tune state to resume from", argument="experiment",
                          expected=f"Tune's files in {plan.tune_path}", got="none")
    return tune.Tuner.restore(str(plan.tune_path), trainable=trainable(plan), resume_unfinished=True,
                              resume_errored=True, restart_errored=False)


def _run_config(plan: ExperimentPlan) -> tune.RunConfig:
    return tune.RunConfig(name=plan.tune_path.name, storage_path=str(plan.path), verbose=0,
                          stop=StopFile(plan.path / STOP_FILE),
                          callbacks=[Recorder(plan, RecordWriter(plan.records_path, echo=_in_job())),
                                     CSVLoggerCallback(), JsonLoggerCallback()],  # Tune's ResultGrid reads these
                          checkpoint_config=tune.CheckpointConfig(num_to_keep=KEEP_CHECKPOINTS.get(
                              plan.scheduler, KEEP_FOR_RESUME), checkpoint_frequency=plan.checkpoint_frequency),
                          failure_config=tune.FailureConfig(max_failures=0))


def _in_job() -> bool:
    return os.environ.get("RLWORKBENCH_EXPERIMENT_JOB") == "1"


def make_scheduler(plan: ExperimentPlan, space: Mapping[str, object]) -> TrialScheduler:
    from ray.tune.schedulers import ASHAScheduler, FIFOScheduler, PopulationBasedTraining

    options = dict(plan.options.get("scheduler") or {})
    if plan.scheduler is None:
        return FIFOScheduler()
    if plan.scheduler == "asha":
        options.setdefault("grace_period", max(plan.report_every, plan.budget // 8))
        options.setdefault("reduction_factor", 2)
        return ASHAScheduler(time_attr="timesteps_total", max_t=plan.budget, **options)
    if plan.scheduler == "pbt":
        options.setdefault("perturbation_interval", max(plan.report_every, plan.budget // 8))
        return PopulationBasedTraining(time_attr="timesteps_total", hyperparam_mutations=pbt_mutations(space),
                                       custom_explore_fn=SchemaExplore(plan, space), **options)
    raise ConfigError("unknown scheduler", argument="scheduler", expected="None, 'asha', 'pbt' or a Tune scheduler",
                      got=repr(plan.scheduler))


def make_search(plan: ExperimentPlan, space: Mapping[str, object]) -> Searcher | SearchAlgorithm | None:
    if plan.search is None:
        from ray.tune.search.basic_variant import BasicVariantGenerator

        return BasicVariantGenerator(random_state=plan.search_seed) if plan.search_seed is not None else None
    if plan.search == "optuna":
        from ray.tune.search import ConcurrencyLimiter
        require("optuna", 'sweep(search="optuna")')
        from ray.tune.search.optuna import OptunaSearch

        options = dict(plan.options.get("search") or {})
        limit = options.pop("max_concurrent", None)
        searcher = OptunaSearch(seed=plan.search_seed if plan.search_seed is not None else plan.seeds[0], **options)
        return ConcurrencyLimiter(searcher, max_concurrent=limit) if limit else searcher
    raise ConfigError("unknown search", argument="search", expected="None, 'optuna' or a Tune searcher",
                      got=repr(plan.search))


def pbt_mutations(space: Mapping[str, object]) -> Mutations:
    """PBT's mutations: the space itself, a grid as the list of its values (PBT resamples or picks a neighbour)."""
    return cast(Mutations, tune_space({path: distribution["grid_search"] if is_grid(distribution) else distribution
                       for path, distribution in space.items()}))


class SchemaExplore:
    """PBT's explore step kept inside the space and the schema: a perturbed number is clipped to the range its
    distribution covers (integers rounded), and the config must validate, else the value is drawn afresh."""

    def __init__(self, plan: ExperimentPlan, space: Mapping[str, object]):
        self.base, self.paths, self.space = plan.config, list(plan.paths), space
        self.ranges = {path: _numeric_range(distribution, path) for path, distribution in space.items()}

    def __call__(self, config: dict[str, object]) -> dict[str, object]:
        from rlworkbench.agents.config import validate_config

        schema, defaults = agent_schema(self.base)
        for path in self.paths:
            bounds = self.ranges[path]
            node, key = _parent(config, path)
            current = node[key]
            if bounds is not None and isinstance(current, (int, float)) and not isinstance(current, bool):
                low, high, integer = bounds
                value = min(max(current, low), high)
                node[key] = round(value) if integer else float(value)
        for _ in range(20):
            try:
                validate_config(with_params(self.base, params_of(config, self.paths)), schema, defaults)
                return config
            except ConfigError as error:
                path = next((p for p in self.paths if error.key_path and error.key_path.startswith(p)), None)
                if path is None:
                    raise
                node, key = _parent(config, path)
                node[key] = _draw(self.space[path])
        raise ConfigError("PBT could not find valid values after perturbing", argument="scheduler",
                          expected="values the schema accepts", got=params_of(config, self.paths))


def _numeric_range(distribution: object, path: str) -> tuple[float, float, bool] | None:
    from ray.tune.search.sample import Float, Integer

    if isinstance(distribution, (Float, Integer)):
        low, high = cast("list[float]", produced_values(distribution, path))  # a range's two ends
        if math.isfinite(low) and math.isfinite(high):
            return low, high, isinstance(distribution, Integer)
    return None


def _parent(config: dict[str, object], path: str) -> tuple[dict[str, object], str]:
    """The dict holding ``path``'s value in a trial's nested config, and the value's key there."""
    keys = path.split("/")
    node: dict[str, object] = config
    for key in keys[:-1]:
        node = cast("dict[str, object]", node[key])
    return node, keys[-1]


def _draw(distribution: object) -> object:
    import random

    if is_grid(distribution):
        return random.choice(distribution["grid_search"])
    return distribution.sample() if hasattr(distribution, "sample") else distribution


def drive(tuner: tune.Tuner, plan: ExperimentPlan) -> None:
    """Runs ``tuner`` to its end, with the experiment's ``running`` and closing records around it (``finished``,
    ``stopped`` when the stop file was written, ``failed`` with the driver's error)."""
    settle_tune()
    writer = RecordWriter(plan.records_path, echo=_in_job())
    writer.driver_started(str(plan.path), submission_id=os.environ.get("RLWORKBENCH_SUBMISSION_ID"))
    try:
        tuner.fit()
    except BaseException as error:
        writer("experiment", state="failed", error=f"{type(error).__name__}: {error}")
        raise
    stopped = (plan.path / STOP_FILE).exists()
    writer("experiment", state="stopped" if stopped else "finished", error=None)


def _error_file(trial: Trial) -> str:
    try:
        storage = trial.storage
        if storage is not None:
            return str(Path(storage.trial_fs_path) / "error.txt")
    except Exception:  # an older or newer Trial without storage: say where Tune keeps the experiment
        pass
    return "the trial's error.txt under the experiment's tune/ directory"


def _last_line(error: object) -> str | None:
    if error is None:
        return None
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return lines[-1] if lines else str(error)
