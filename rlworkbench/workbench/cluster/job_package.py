"""What a cluster job runs, as files: a small Python package ``rlworkbench_job_<id>`` holding ``spec.json`` (the
run's config and settings) and, for a trained prototype, ``weights.npz`` — JSON and NumPy, never a pickle.

The package travels in the job's ``runtime_env`` (``py_modules``), so it reaches any node of any cluster without
shared storage and leaves ``working_dir`` to the user; the job finds it by importing it by name
(``python -m rlworkbench.workbench.cluster.job rlworkbench_job_<id>``). A path to a ``spec.json`` works too (a job
spec run by hand).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from rlworkbench.errors import ConfigError

SPEC_FILE, WEIGHTS_FILE = "spec.json", "weights.npz"
JOB_FILE = "job.json"  #: in a job's run directory: which job writes there (so a notebook sees shared storage)
FORMAT = 1  #: the spec's layout version; a job refuses any other
RUN_SETTINGS = ("env", "backend", "timesteps", "num_envs", "vector_mode", "seed", "checkpoint_every",
                "summaries_every", "threads")
"""The :class:`~rlworkbench.workbench.run_spec.RunSpec` settings a job spec carries."""


def package_name(submission_id: str) -> str:
    """The importable name of a job's package."""
    return "rlworkbench_job_" + "".join(c if c.isalnum() else "_" for c in submission_id)


def write_job_package(parent: Path, spec: dict[str, object], weights: dict[str, np.ndarray] | None) -> Path:
    """Writes the package for ``spec`` (which names its ``submission_id``) under ``parent``; returns its folder."""
    folder = Path(parent) / package_name(spec["submission_id"])
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text('"""An rlworkbench cluster job: spec.json and weights.npz."""\n')
    (folder / SPEC_FILE).write_text(json.dumps({"format": FORMAT, **spec, "weights": weights is not None},
                                               indent=1))
    if weights is not None:
        np.savez(folder / WEIGHTS_FILE, **{name: np.asarray(value) for name, value in weights.items()})
    return folder


def read_job_package(where: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray] | None]:
    """The spec and weights of a job package, given its importable name or the path of its ``spec.json``."""
    path = Path(where)
    if not path.suffix == ".json":
        try:
            module = importlib.import_module(str(where))
        except ImportError as error:
            raise ConfigError("no job package of this name on the cluster's path", argument="job",
                              expected="a shipped rlworkbench_job_<id> package or a spec.json path",
                              got=str(where)) from error
        path = Path(module.__file__).parent / SPEC_FILE
    try:
        spec = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the job spec: {error}", argument="job", expected="a JSON job spec",
                          got=str(path)) from error
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise ConfigError("a job spec of another rlworkbench version", argument="job", key_path="format",
                          expected=FORMAT, got=spec.get("format") if isinstance(spec, dict) else type(spec).__name__)
    weights = None
    if spec.get("weights"):
        with np.load(path.parent / WEIGHTS_FILE, allow_pickle=False) as archive:
            weights = {name: archive[name] for name in archive.files}
    return spec, weights
