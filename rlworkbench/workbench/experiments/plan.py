"""What an experiment runs and where its files go: :class:`ExperimentPlan`, plain JSON data.

The plan travels to Ray Tune's trial actors (and into a cluster job) as data — configs and settings, never an
agent — and is written to ``experiment.json`` so the experiment can be read, attached to and resumed from its
directory alone::

    <logdir>/<name>/
        experiment.json             this plan
        records.jsonl               what happened: trials, their results, their end (see :mod:`.records`)
        tune/                       Ray Tune's own state (Tuner.restore resumes from it)
        trials/<trial>/seed_<s>/    each trial's run per seed: an ordinary run directory (config.json, run.json,
                                    TensorBoard events, episodes.csv, updates.csv, checkpoints/)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rlworkbench.errors import ConfigError

PLAN_FILE, RECORDS_FILE, TUNE_DIR, TRIALS_DIR = "experiment.json", "records.jsonl", "tune", "trials"


@dataclass
class ExperimentPlan:
    """A sweep as data (see the module docstring); made and checked by :func:`~.sweep.sweep`."""

    name: str
    prototype: str                      #: the prototype's name (each run directory's ``run.json`` says it)
    directory: str                      #: the experiment directory (absolute)
    config: dict[str, object]              #: the prototype's full config (defaults merged); trials set their params
    paths: list[str]                    #: the swept key paths
    space: dict[str, str]               #: each path's distribution, described
    seeds: list[int]                    #: every trial runs each of these seeds
    budget: int                         #: env steps per run (per seed)
    report_every: int                   #: env steps between a trial's results (Tune's iterations)
    target: str                         #: where each run trains: local, multi_gpu or ray
    settings: dict[str, object]            #: the runs' promote() settings (env, backend, num_envs, target options …)
    metric: str = "return"              #: return (training episodes) or greedy_return (evaluation episodes)
    mode: str = "max"
    window: int = 10                    #: a seed's return: the mean of its last ``window`` episodes
    evaluation_episodes: int = 0        #: greedy episodes per seed at each result (needed by greedy_return)
    trials: int = 1                     #: configurations sampled (times each grid point)
    scheduler: str | None = None        #: None (run every trial to the end), asha or pbt
    search: str | None = None           #: None (random / grid) or optuna
    search_seed: int | None = None      #: seeds the values drawn (random search, Optuna): the same trials again
    checkpoint_frequency: int = 1       #: results between a trial's checkpoints (what resume and PBT go on from)
    trial_cpus: float = 1.0
    trial_gpus: float = 0.0
    runs_dir: str | None = None         #: where the runs publish their records (None: the default place)
    options: dict[str, object] = field(default_factory=dict)  #: scheduler/search arguments given by the user

    # ----- files --------------------------------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return Path(self.directory)

    @property
    def records_path(self) -> Path:
        return self.path / RECORDS_FILE

    @property
    def tune_path(self) -> Path:
        return self.path / TUNE_DIR

    def trial_dir(self, trial_id: str) -> Path:
        return self.path / TRIALS_DIR / trial_id

    def run_dir(self, trial_id: str, seed: int) -> Path:
        return self.trial_dir(trial_id) / f"seed_{seed}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, default=str)

    def write(self) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        target = self.path / PLAN_FILE
        temporary = self.path / f".{PLAN_FILE}.tmp"
        temporary.write_text(self.to_json())
        temporary.replace(target)
        return target

    @classmethod
    def read(cls, directory: str | Path) -> ExperimentPlan:
        """The plan in an experiment directory; a ConfigError saying what is missing otherwise."""
        path = Path(directory) / PLAN_FILE
        try:
            data = json.loads(path.read_text())
            return cls(**data)
        except (OSError, ValueError, TypeError) as error:
            raise ConfigError(f"not an experiment directory ({error})", argument="name",
                              expected=f"a directory holding {PLAN_FILE}", got=str(directory)) from None
