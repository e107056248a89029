"""Cluster runs through Ray Jobs: submit a run as a job (:mod:`.submission`, :mod:`.job_package`), the program
the job runs (:mod:`.job`) and the records it writes on its log (:mod:`.records`), following that log from a
notebook (:mod:`.follower`), listing a cluster's runs (:func:`list_runs`) and a head node on this machine
(:class:`LocalHead`).

The notebook face is ``promote(..., to="ray", address="http://head:8265")``, ``Run.attach`` and
:func:`list_runs` (also in :mod:`rlworkbench.workbench`); on the command line ``rlworkbench submit`` and
``rlworkbench runs``.
"""

from rlworkbench.workbench.cluster.connection import connect, find_token, is_cluster_address
from rlworkbench.workbench.cluster.listing import list_runs
from rlworkbench.workbench.cluster.local_head import LocalHead

__all__ = ["LocalHead", "connect", "find_token", "is_cluster_address", "list_runs"]
