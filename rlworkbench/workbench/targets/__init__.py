"""Where ``promote()`` runs a training: a registry of targets by name.

A target is a factory ``factory(spec: RunSpec) -> Execution`` (see :mod:`.base`): it starts the training and
returns at once. ``"local"`` (a worker thread in this process), ``"multi_gpu"`` (the same, the agent's update on
replica towers) and ``"ray"`` (Ape-X, IMPALA or synchronous PPO on Ray actors; with an ``http(s)://`` address, a
job on that cluster) are built in; a notebook may register its own::

    register_target("my_cluster", MyClusterExecution)
    run = promote("dqn_cartpole", to="my_cluster", timesteps=50_000)

The built-in targets are registered at the bottom of this module, when it is imported. That is a declaration, not
a side effect: the registry is this module's own dict, filled with this module's own functions, as a literal would
be; nothing outside the module changes (no environment, hook, thread or file), and the factories import their
targets (gymnasium, Ray) only when a run starts. Making it lazy would change nothing anyone could observe.
"""

from __future__ import annotations

from collections.abc import Callable

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.run_spec import RunSpec
from rlworkbench.workbench.targets.base import DONE_STATES, Execution

TargetFactory = Callable[[RunSpec], Execution]
_TARGETS: dict[str, TargetFactory] = {}


def register_target(name: str, factory: TargetFactory, *, replace: bool = False) -> None:
    """Makes ``promote(..., to=name)`` start runs with ``factory(spec)``; an existing name needs ``replace``."""
    if not isinstance(name, str) or not name:
        raise ConfigError("a target needs a name", argument="name", expected="a non-empty str", got=repr(name))
    if not callable(factory):
        raise ConfigError("a target is a factory", argument="factory", expected="callable(spec) -> Execution",
                          got=type(factory).__name__)
    if name in _TARGETS and not replace:
        raise ConfigError(f"target '{name}' is registered already (replace=True replaces it)", argument="name",
                          expected=f"a name other than {known_targets()}", got=name)
    _TARGETS[name] = factory


def unregister_target(name: str) -> None:
    """Forgets a target (unknown names are ignored)."""
    _TARGETS.pop(name, None)


def known_targets() -> list[str]:
    return sorted(_TARGETS)


def get_target(name: str) -> TargetFactory:
    """The factory registered as ``name``; a ConfigError listing the known targets if there is none."""
    if name not in _TARGETS:
        raise ConfigError(f"unknown promote target {name!r}", argument="to", expected=known_targets(), got=name)
    return _TARGETS[name]


def _local(spec: RunSpec) -> Execution:
    from rlworkbench.workbench.targets.local import LocalExecution  # imports gymnasium only when used

    return LocalExecution(spec)


def _multi_gpu(spec: RunSpec) -> Execution:
    from rlworkbench.workbench.targets.multi_device import MultiDeviceExecution

    return MultiDeviceExecution(spec)


def _ray(spec: RunSpec) -> Execution:
    from rlworkbench.workbench.cluster.connection import is_cluster_address

    if is_cluster_address(spec.options.get("address")):  # a cluster reached through Ray Jobs
        from rlworkbench.workbench.targets.job_target import JobExecution

        return JobExecution.submit(spec)
    from rlworkbench.workbench.targets.ray_target import RayExecution  # imports Ray only when used

    return RayExecution(spec)


register_target("local", _local)
register_target("multi_gpu", _multi_gpu)
register_target("ray", _ray)

__all__ = ["DONE_STATES", "Execution", "TargetFactory", "get_target", "known_targets", "register_target",
           "unregister_target"]
