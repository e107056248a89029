"""Going on with a cluster run: ``promote(resume=<its run directory, Run or id>)`` for a run that was a Ray job.

The notebook's record of a job names its ``submission_id`` and ``address``; the job's metadata on the cluster says
the rest (name, env, backend, total steps, run name, where its run directory is on the cluster, workers). The
resumed run is a new job (``rlworkbench-<run name>-resume-<4 hex>``) whose spec says ``resume``: the job program
resumes the run directory on the cluster from its newest complete checkpoint (see
:mod:`rlworkbench.workbench.resume`, the same on both sides), and the notebook follows it under the same record.
A job still pending or running is refused (stop it first).
"""

from __future__ import annotations

from pathlib import Path

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.cluster.connection import connect, job_metadata
from rlworkbench.workbench.run_records import record_mapping, record_text
from rlworkbench.workbench.run_spec import RunContext, RunSpec

LIVE_JOB_STATES = ("PENDING", "RUNNING")


def cluster_resume_spec(record: dict[str, object], run_dir: Path, resumes: list[dict[str, object]],
                        settings: dict[str, object]) -> RunSpec:
    """The spec of a job that goes on with the job ``record`` names (settings given now win: ``timesteps``,
    ``auth_token``, ``stop_grace``, ``mirror``, Ray settings)."""
    given = dict(settings)
    given.pop("progress", None)  # the follower shows the job's progress in the live view, not in a bar
    address = given.pop("address", None) or record.get("address")
    auth_token = given.pop("auth_token", None)
    metadata = ended_job(record, address, auth_token)
    run_name, cluster_logdir = metadata["run_name"], metadata["cluster_logdir"]
    timesteps = given.pop("timesteps", None)
    spec = RunSpec(name=metadata["name"], config=record_mapping(record, "config"), env=metadata["env"],
                   backend=metadata["backend"],
                   timesteps=int(timesteps if isinstance(timesteps, int) else metadata["timesteps"]),
                   logdir=Path(metadata["logdir"]), run_name=run_name, progress=False)
    spec.options = {"address": address, "auth_token": auth_token, "cluster_logdir": cluster_logdir,
                    "workers": int(metadata.get("workers", 0)), **given}
    spec.config_label, spec.source = record_text(record, "config_label") or spec.name, record_text(record, "source")
    spec.context = RunContext(run_id=record_text(record, "id"), labels=record_mapping(record, "labels"),
                              run_dir=run_dir, resume_from=Path(cluster_logdir) / run_name, target="ray",
                              resumes=resumes)
    return spec


def ended_job(record: dict[str, object], address: object = None, auth_token: object = None) -> dict[str, str]:
    """The metadata of the job ``record`` names, asked at ``address`` (None: the record's) with ``auth_token``
    (None: ``RAY_AUTH_TOKEN`` or the token file); ConfigError if the job is still pending or running,
    ClusterError if the cluster does not answer or has no such job."""
    submission_id = str(record["submission_id"])
    client = connect(str(address or record.get("address")), auth_token if isinstance(auth_token, str) else None)
    metadata = job_metadata(client, submission_id, "resume", "a job of the cluster at this address")
    status = str(getattr(client.get_job_status(submission_id), "value", ""))
    if status in LIVE_JOB_STATES:
        raise ConfigError("this cluster job is still going: stop it first (run.stop(), or ray job stop)",
                          argument="resume", expected="a stopped, failed or finished job",
                          got=f"{submission_id} ({status.lower()})")
    return metadata


def cluster_run_directory(record: dict[str, object]) -> Path:
    """Where the ended job ``record`` names kept its run on the cluster (its resume goes on from that directory's
    newest complete checkpoint); errors as :func:`ended_job`."""
    metadata = ended_job(record)
    return Path(metadata["cluster_logdir"]) / metadata["run_name"]
