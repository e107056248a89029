"""One trial of an experiment: a Ray Tune ``Trainable`` whose work is ordinary rlworkbench runs, one per seed.

Tune makes a :class:`TrialTrainable` in an actor with the trial's sampled values (``config``) and the
:class:`~.plan.ExperimentPlan`. The trial's agent config is the plan's with those values set; for each seed it
starts the run a ``promote()`` would start on the plan's target — same run directory layout
(``trials/<trial>/seed_<s>``), checkpoints and run record (labelled with experiment, trial, seed and params, so the
runs panel and TensorBoard see trials as runs) — held by a :class:`~rlworkbench.workbench.targets.pacing.Pacer`.

Each Tune iteration (:meth:`TrialTrainable.step`) lets the runs go ``report_every`` more env steps, one seed after
the other, and reports ``return`` (the mean over seeds of each seed's last ``window`` episode returns), per-seed
returns, optionally ``greedy_return`` (evaluation episodes on a copy of each agent), episodes, throughput and
restarts. Between iterations every run is held still, so :meth:`save_checkpoint` writes each seed's agent
checkpoint (``.npz``, never a pickle) and progress, and :meth:`load_checkpoint` — a resumed trial, or PBT's exploit
copying another trial's weights — makes the runs go on from them in the same run directories. A trial stopped by a
scheduler (ASHA) or by ``Experiment.stop()`` stops its runs, which save their final checkpoint — at once when its
actor ends, or when Tune hands the actor to the next trial (``reuse_actors``: :meth:`TrialTrainable.reset_config`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from ray import tune

from rlworkbench.errors import CheckpointError
from rlworkbench.execution.resume_points import is_complete
from rlworkbench.workbench.experiments.plan import ExperimentPlan
from rlworkbench.workbench.experiments.search_space import params_of, with_params
from rlworkbench.workbench.run import Run
from rlworkbench.workbench.run_spec import RunContext, make_spec
from rlworkbench.workbench.targets import get_target
from rlworkbench.workbench.targets.pacing import Pacer

TRIAL_FILE = "trial.json"  #: in a trial checkpoint: whose it is, its params, the env steps it holds


class TrialCheckpoint(NamedTuple):
    """A whole trial checkpoint: its folder and what its ``trial.json`` says."""

    folder: Path
    trial: str  #: the trial that wrote it
    params: dict[str, Any]
    timesteps: int  #: env steps each seed's run holds


def read_trial_file(folder: Path) -> TrialCheckpoint | None:
    """``folder``'s ``trial.json`` with its three keys of the right types, or None (missing, cut short, other)."""
    try:
        about = json.loads((folder / TRIAL_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(about, dict):
        return None
    trial, params, timesteps = about.get("trial"), about.get("params"), about.get("timesteps")
    if not (isinstance(trial, str) and isinstance(params, dict) and isinstance(timesteps, int)
            and not isinstance(timesteps, bool) and timesteps >= 0):
        return None
    return TrialCheckpoint(folder, trial, params, timesteps)


def whole_checkpoint(named: Path, seeds: Sequence[int]) -> TrialCheckpoint:
    """``named`` (a trial checkpoint Tune restores) if it is whole — its ``trial.json`` reads, with ``trial``,
    ``params`` and ``timesteps`` of their types, and every seed's resume point verifies — else the newest whole one of
    the older ``checkpoint_*`` beside it, as a :class:`TrialCheckpoint`. A resumed experiment restores
    the checkpoint Tune's saved state names, and that state lags the reports: Tune may have been deleting that
    checkpoint (an old one, past those it keeps) when the driver died. A CheckpointError naming ``named`` if no
    checkpoint is whole."""
    older = sorted((path for path in named.parent.glob("checkpoint_*") if path.is_dir() and path.name < named.name),
                   reverse=True)
    for folder in [named, *older]:
        about = read_trial_file(folder)
        if about is not None and all(is_complete(folder / f"seed_{seed}") for seed in seeds):
            return about
    raise CheckpointError("the trial checkpoint to restore is not whole, nor is any before it", argument="checkpoint",
                          expected=f"{TRIAL_FILE} ({{trial: str, params: dict, timesteps: int >= 0}}) and a complete "
                          f"seed_<s> folder for seeds {list(seeds)}", got=str(named))


def run_id(plan: ExperimentPlan, trial_id: str, seed: int) -> str:
    """The record id of a trial's run for ``seed`` — the same for every part of it (resumed, exploited); hex, as
    every run id."""
    return hashlib.sha1(f"{plan.directory}/{trial_id}/{seed}".encode()).hexdigest()[:12]


class TrialTrainable(tune.Trainable):
    """A trial: the plan's runs for one configuration, one per seed (see the module docstring)."""

    def setup(self, config: dict[str, Any], plan: dict[str, Any]) -> None:
        self.plan = ExperimentPlan(**plan)
        if self.plan.runs_dir is not None:  # the actor's environment is Ray's, not the notebook's
            os.environ["RLWORKBENCH_RUNS_DIR"] = self.plan.runs_dir
        self.runs: list[Run] = []
        self._configure(config)

    def _configure(self, config: dict[str, Any]) -> None:
        """This actor's trial is ``config``'s: its params and agent config; no runs yet."""
        self.params = params_of(config, self.plan.paths)
        self.agent_config = with_params(self.plan.config, self.params)
        self.resume_points: dict[int, Path] = {}
        self.milestone = 0
        self.evaluators: dict[int, Any] = {}

    def reset_config(self, new_config: dict[str, object]) -> bool:
        """Tune hands this actor to another trial (or PBT gives this one new values): the runs of the trial it had
        stop (those a scheduler stopped are still held: they save their final checkpoint now), and the next step
        starts the new trial's. Reusing the actor spares a trial the process start and the imports (~5-8 s)."""
        self._stop_runs()
        self._configure(new_config)
        return True

    # ----- the runs -------------------------------------------------------------------------------------------------
    def _start_runs(self) -> None:
        plan = self.plan
        for seed in plan.seeds:
            spec = make_spec(self.agent_config, **plan.settings, seed=seed, timesteps=plan.budget)
            spec.name = plan.prototype
            spec.context = RunContext(
                run_id=run_id(plan, self.trial_id, seed), pacer=Pacer(), run_dir=plan.run_dir(self.trial_id, seed),
                resume_from=self.resume_points.get(seed),
                labels={"experiment": plan.name, "trial": self.trial_id, "seed": seed, "params": self.params})
            self.runs.append(Run(get_target(plan.target)(spec), spec, target=plan.target).start())

    def _stop_runs(self) -> None:
        for run in self.runs:
            run.execution.stop()
            pacer = run.spec.context.pacer
            if pacer is not None:
                pacer.release()
        for run in self.runs:
            with contextlib.suppress(Exception):  # a failed run's error was reported by step()
                run.close()
            run.heartbeat.close()
        self.runs = []

    # ----- Tune's interface -----------------------------------------------------------------------------------------
    def step(self) -> dict[str, object]:
        if not self.runs:
            self._start_runs()
        self.milestone = min(self.plan.budget, self.milestone + self.plan.report_every)
        for run in self.runs:
            pacer = run.spec.context.pacer
            assert pacer is not None
            if self.milestone >= self.plan.budget:  # the last stretch: each run goes to its end, final checkpoint
                pacer.release()
                run.execution.join()
            else:
                pacer.advance(self.milestone, lambda run=run: run.done)
            if run.error is not None:
                raise run.error
        return self._result()

    def save_checkpoint(self, checkpoint_dir: str) -> None:
        folder = Path(checkpoint_dir)
        for seed, run in zip(self.plan.seeds, self.runs, strict=True):
            run.execution.save_resume_point(folder / f"seed_{seed}")
        (folder / TRIAL_FILE).write_text(json.dumps({"trial": self.trial_id, "params": self.params,
                                                     "timesteps": self.milestone}))

    def load_checkpoint(self, checkpoint_dir: str) -> None:
        """Keeps the checkpoint in the trial's own run directories (Tune may delete its copy) and makes the runs
        go on from it at the next step: this trial's own (a resume) or another's (PBT's exploit). A checkpoint
        that is no longer whole gives way to the newest whole one before it (see :func:`whole_checkpoint`)."""
        about = whole_checkpoint(Path(checkpoint_dir), self.plan.seeds)
        if self.runs:  # restored while running: the runs start again from the checkpoint
            self._stop_runs()
        origin = "resume" if about.trial == self.trial_id else f"exploit-{about.trial}"
        for seed in self.plan.seeds:
            kept = self.plan.run_dir(self.trial_id, seed) / "checkpoints" / f"{origin}-{about.timesteps}"
            shutil.copytree(about.folder / f"seed_{seed}", kept, dirs_exist_ok=True)
            self.resume_points[seed] = kept
        self.milestone = about.timesteps
        if origin != "resume":
            with (self.plan.trial_dir(self.trial_id) / "lineage.jsonl").open("a") as lineage:
                lineage.write(json.dumps({"timesteps": self.milestone, "weights_from": about.trial,
                                          "params": self.params}) + "\n")

    def cleanup(self) -> None:
        self._stop_runs()

    # ----- what a result holds ---------------------------------------------------------------------------------------
    def _result(self) -> dict[str, Any]:
        plan = self.plan
        per_seed, greedy, episodes, speeds, restarts, timesteps = {}, {}, 0, [], 0, []
        for seed, run in zip(plan.seeds, self.runs, strict=True):
            snapshot = run.snapshot()
            tail = snapshot.episodes["return"].tail(plan.window)
            per_seed[seed] = float(tail.mean()) if len(tail) else float("nan")
            episodes += snapshot.num_episodes
            speeds.append(snapshot.steps_per_second)
            timesteps.append(snapshot.timesteps)
            workers = run.workers
            restarts += int(workers["restarts"].sum()) if workers is not None and len(workers) else 0
            if plan.evaluation_episodes:
                greedy[seed] = self._greedy_return(seed, run)
        result: dict[str, Any] = {
            "timesteps_total": int(min(timesteps)), "return": _mean(per_seed.values()), "episodes": episodes,
            "steps_per_second": _mean(speeds), "restarts": restarts,
            **{f"return_seed_{seed}": value for seed, value in per_seed.items()},
            "done": all(run.done for run in self.runs)}
        if plan.evaluation_episodes:
            result["greedy_return"] = _mean(greedy.values())
            result.update({f"greedy_return_seed_{seed}": value for seed, value in greedy.items()})
        return result

    def _greedy_return(self, seed: int, run: Run) -> float:
        """The mean return of the run's greedy policy over the plan's evaluation episodes, on a copy of its agent
        (evaluating the training agent itself would reset its pending n-step transitions)."""
        from rlworkbench.agents import Agent
        from rlworkbench.execution import evaluate_greedy

        agent = run.execution.agent
        if seed not in self.evaluators:
            self.evaluators[seed] = Agent.from_env(run.spec.env, agent.config, backend=run.spec.backend,
                                                   seed=seed).build(devices=agent.devices)
        evaluator = self.evaluators[seed]
        evaluator.set_weights(agent.get_weights(trainable_only=True), strict=False)
        episodes = evaluate_greedy(evaluator, run.spec.env, self.plan.evaluation_episodes, seed=10_000 + seed)
        return float(episodes["return"].mean())


def _mean(values: Any) -> float:
    array = np.asarray([value for value in values if value is not None], dtype=np.float64)
    finite = array[np.isfinite(array)]
    return float(finite.mean()) if len(finite) else float("nan")
