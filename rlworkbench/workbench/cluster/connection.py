"""Reaching a cluster through Ray Jobs: a checked ``JobSubmissionClient`` with the cluster's token.

``http(s)://host:8265`` (the dashboard's address) names a cluster. Clusters started with token authentication
(Ray 2.60: ``ray start`` with a token in ``~/.ray/auth_token`` or ``RAY_AUTH_TOKEN``) want that token on every
request; :func:`connect` sends ``auth_token=`` or else the one Ray itself would find (``RAY_AUTH_TOKEN``, the file
at ``RAY_AUTH_TOKEN_PATH``, ``~/.ray/auth_token``). Before the client is made, one request with a timeout checks
that the address answers and accepts the token, so a wrong address or token is a
:class:`~rlworkbench.errors.ClusterError` within seconds, never a hang.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rlworkbench.errors import ClusterError, ConfigError

if TYPE_CHECKING:
    from ray.job_submission import JobSubmissionClient

CONNECT_TIMEOUT = 5.0  #: seconds the first request may take
QUIET_LOGGERS = ("ray.dashboard.modules.dashboard_sdk", "ray._private.runtime_env.packaging",
                 "ray.dashboard.modules.job.sdk")


def is_cluster_address(address: object) -> bool:
    """Whether ``address`` names a cluster reached through Ray Jobs (``http://`` or ``https://``)."""
    return isinstance(address, str) and address.startswith(("http://", "https://"))


def find_token(auth_token: str | None = None) -> str | None:
    """``auth_token``, else the token Ray would use here (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``,
    ``~/.ray/auth_token``), else None."""
    if auth_token is not None:
        if not isinstance(auth_token, str) or not auth_token.strip():
            raise ConfigError("bad cluster token", argument="auth_token", expected="a non-empty str or None",
                              got=type(auth_token).__name__)
        return auth_token.strip()
    if os.environ.get("RAY_AUTH_TOKEN", "").strip():
        return os.environ["RAY_AUTH_TOKEN"].strip()
    for path in (os.environ.get("RAY_AUTH_TOKEN_PATH"), Path.home() / ".ray" / "auth_token"):
        if path and Path(path).is_file():
            token = Path(path).read_text().strip()
            if token:
                return token
    return None


def connect(address: str, auth_token: str | None = None, timeout: float = CONNECT_TIMEOUT) -> JobSubmissionClient:
    """A ``JobSubmissionClient`` for the cluster at ``address``; ClusterError if it does not answer within
    ``timeout`` seconds or refuses the token."""
    import requests

    if not is_cluster_address(address):
        raise ConfigError("a cluster is reached through Ray Jobs at its dashboard's address", argument="address",
                          expected="http(s)://host:8265", got=repr(address))
    address = address.rstrip("/")
    token = find_token(auth_token)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        answer = requests.get(f"{address}/api/version", headers=headers, timeout=timeout)
    except requests.RequestException as error:
        raise ClusterError(f"the cluster does not answer ({type(error).__name__})", argument="address",
                           expected=f"a Ray dashboard answering within {timeout:g} s", got=address) from error
    if answer.status_code in (401, 403):
        said = "refuses the token" if token else "wants a token"
        raise ClusterError(f"the cluster {said} (HTTP {answer.status_code}): pass auth_token= or set RAY_AUTH_TOKEN",
                           argument="auth_token", expected="the cluster's token (`ray get-auth-token` on its head)",
                           got="a token ending in …" + token[-4:] if token else "no token")
    if answer.status_code != 200:
        raise ClusterError(f"this address is not a Ray dashboard (HTTP {answer.status_code})", argument="address",
                           expected="http(s)://<head>:8265", got=address)
    from ray.job_submission import JobSubmissionClient

    for name in QUIET_LOGGERS:  # "Uploading package …", "WebSocket closed …" on every job: not the user's news
        logging.getLogger(name).setLevel(logging.WARNING)
    return JobSubmissionClient(address, headers=headers)


def job_metadata(client: JobSubmissionClient, job_id: str, argument: str, expected: str) -> dict[str, str]:
    """The metadata the job ``job_id`` was submitted with; ClusterError naming ``argument`` when the cluster has no
    such job."""
    try:
        info = client.get_job_info(job_id)
    except Exception as error:
        raise ClusterError("the cluster has no job of this id", argument=argument, expected=expected,
                           got=job_id) from error
    return dict(info.metadata or {})
