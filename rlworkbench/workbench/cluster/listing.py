"""``list_runs(address)``: the rlworkbench jobs a cluster knows, as a pandas table."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from rlworkbench.workbench.cluster.connection import connect
from rlworkbench.workbench.cluster.records import RAY_STATES, parse_line

if TYPE_CHECKING:
    from ray.job_submission import JobSubmissionClient

COLUMNS = ["submission_id", "config", "env", "target", "workers", "state", "timesteps", "total_timesteps",
           "return", "started", "ended"]


def list_runs(address: str, auth_token: str | None = None) -> pd.DataFrame:
    """One row per rlworkbench job on the cluster at ``address``, newest first: its id (for ``Run.attach``),
    config name, env, target, workers, state, timesteps done (from its last record) of the total, the mean
    return of its last episodes, and when it started and ended (UTC). A sweep's job (target ``sweep``) counts the
    env steps of all its trials of their budgets, and its return is the best trial's (``Experiment.attach``)."""
    from rlworkbench.workbench.cluster.submission import METADATA_KEY

    client = connect(address, auth_token)
    rows = []
    for job in client.list_jobs():
        metadata = job.metadata or {}
        if METADATA_KEY not in metadata or not job.submission_id:
            continue
        if metadata.get("kind") == "experiment":  # a sweep: one job, many runs
            from rlworkbench.workbench.experiments.job import listing_row

            rows.append({**listing_row(client, job.submission_id, metadata),
                         "state": RAY_STATES.get(str(job.status.value), str(job.status.value).lower()),
                         "started": _time(job.start_time), "ended": _time(job.end_time)})
            continue
        timesteps, recent = _progress(client, job.submission_id)
        rows.append({"submission_id": job.submission_id, "config": metadata.get("name"), "env": metadata.get("env"),
                     "target": metadata.get("target"), "workers": int(metadata.get("workers", 0)),
                     "state": RAY_STATES.get(str(job.status.value), str(job.status.value).lower()),
                     "timesteps": timesteps, "total_timesteps": int(metadata.get("timesteps", 0)), "return": recent,
                     "started": _time(job.start_time), "ended": _time(job.end_time)})
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.sort_values("started", ascending=False, ignore_index=True) if len(table) else table


def _progress(client: JobSubmissionClient, submission_id: str, window: int = 100) -> tuple[int, float]:
    """Timesteps of the job's last record and the mean return of its last ``window`` episodes (from its log)."""
    try:
        text = client.get_job_logs(submission_id)
    except Exception:
        return 0, float("nan")
    timesteps, returns = 0, []
    for line in text.splitlines():
        record = parse_line(line)
        if record is None:
            continue
        timesteps = int(record.get("timesteps", timesteps) or timesteps)
        returns.extend(float(row[3]) for row in record.get("episodes") or [])
    recent = returns[-window:]
    return timesteps, (sum(recent) / len(recent) if recent else float("nan"))


def _time(milliseconds: int | None) -> pd.Timestamp:
    return pd.NaT if not milliseconds else pd.Timestamp(int(milliseconds), unit="ms", tz="UTC")
