"""Turning a root's update path into replica towers before its build (``agent.build(devices=...)``).

:func:`replicate_on_devices` assembles the root once to see which root API methods learn (reach a graph function
that takes gradients) and which components their optimizers train, then adds a :class:`ReplicaTowers` with a
copy of each such component per device and marks the root for :mod:`rlworkbench.core.replication`. The root's
own code does not change. Components trained without a batch input (SAC's temperature, one scalar) stay where
they are: there is nothing to split.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rlworkbench.components.optimizers.optimizer import Optimizer
from rlworkbench.components.strategies.replica_towers import ReplicaTowers
from rlworkbench.core.backend import Backend
from rlworkbench.core.builder import assemble_for
from rlworkbench.core.component import Component
from rlworkbench.errors import BuildError, ConfigError

TOWERS = "towers"


def gpu_devices(backend: Backend) -> list[str]:
    """The GPUs this backend sees here, in order (``cuda:i`` on PyTorch, ``/GPU:i`` on TensorFlow)."""
    return [d for d in backend.available_devices() if "cuda" in d.lower() or "gpu" in d.lower()]


def resolve_tower_devices(devices: int | Sequence[str], backend: Backend) -> list[str]:
    """Device names for the towers: ``N`` means the first N GPUs; names are checked against the devices this
    backend sees here (the same device may appear more than once: two towers on one CPU)."""
    available = backend.available_devices()
    gpus = gpu_devices(backend)
    if isinstance(devices, bool) or not isinstance(devices, (int, list, tuple)):
        raise ConfigError("devices must be a number of GPUs or a list of device names", key_path="devices",
                          expected=f"an int or a list such as {available}", got=devices)
    if isinstance(devices, int):
        if not 1 <= devices <= len(gpus):
            raise ConfigError(f"devices={devices} asks for the first {devices} GPUs, and {len(gpus)} are here",
                              key_path="devices", expected=f"1..{len(gpus)} (GPUs: {gpus}), or a list of device "
                              f"names from {available}", got=devices)
        return gpus[:devices]
    if not devices:
        raise ConfigError("devices is an empty list", key_path="devices", expected=f"names from {available}",
                          got=devices)
    resolved = []
    for index, device in enumerate(devices):
        try:
            name = backend.normalize_device(str(device))
        except Exception as error:  # the framework's own parse error
            raise ConfigError(f"not a device name: {error}", key_path=f"devices/{index}", expected=available,
                              got=device) from None
        if name not in available:
            raise ConfigError(f"no device '{device}' on this machine for {backend.name}", key_path=f"devices/{index}",
                              expected=available, got=device)
        resolved.append(name)
    return resolved


def replicate_on_devices(root: Component, devices: Sequence[str], input_spaces: Mapping[str, object]) -> ReplicaTowers:
    """Adds replica towers on ``devices`` to an unbuilt ``root`` (removing any from an earlier build) and returns
    them; ``input_spaces`` are those the build will get."""
    remove_towers(root)
    graph = assemble_for(root, input_spaces)
    learning = [name for name in graph.root_inputs if graph.requires_grad(name)]
    if not learning:
        raise BuildError("no API method of the root takes gradients: there is no update to run on towers",
                         component=root.path, expected="an agent with an update", got=sorted(graph.root_inputs))
    inside = {id(call) for name in learning for call in graph.subtree(graph.root_call(name))}
    optimizers = [c for c in graph.called_components if isinstance(c, Optimizer)]
    replicated: list[Component] = []
    for optimizer in optimizers:
        for target in optimizer.targets():
            calls = [call for call in graph.calls_of(target) if id(call) in inside]
            if not calls or not all(call.input_records() for call in calls) or target in replicated:
                continue  # not used by the update, or used without batch inputs (a scalar variable's getter)
            if target.parent is not root:
                raise BuildError("towers replicate sub-components of the root; this trained component sits deeper",
                                 component=target.path, expected=f"a direct sub-component of '{root.path}'",
                                 got=target.path)
            replicated.append(target)
    if not replicated:
        raise BuildError("the update trains no component called with a batch: nothing to replicate",
                         component=root.path, got=[o.path for o in optimizers])
    towers = ReplicaTowers(replicated, devices, name=TOWERS)
    root.add_components(towers)
    for component in replicated:
        component.replicated_by = towers  # its learning calls go to the towers; its optimizer finds the replicas
    root.replica_learning_methods = tuple(learning)
    return towers


def remove_towers(root: Component) -> None:
    """Undoes :func:`replicate_on_devices` (before a build on one device, or on other devices)."""
    towers = root.sub_components.get(TOWERS)
    if not isinstance(towers, ReplicaTowers):
        return
    del root.sub_components[TOWERS]
    towers.parent = None
    for component in root.walk():
        if getattr(component, "replicated_by", None) is towers:
            component.replicated_by = None
    root.replica_learning_methods = ()


def sync_towers(towers: ReplicaTowers) -> None:
    """Copies every replicated component's weights — and its random generators' states — into its replicas (after
    a build, ``set_weights``, ``load``). A generator whose state cannot move to its replica's device (PyTorch: a CPU
    generator and a CUDA one) is a ConfigError: the towers could not draw what the component draws."""
    backend = towers.backend
    for component in towers.replicated.values():
        source = component.variables()
        for copy in towers.copies_of(component):
            for name, variable in copy.variables().items():
                backend.assign(variable, backend.read(source[name]))
    for pairs in towers.generator_pairs():
        for replica, own in pairs:
            try:
                backend.ops.copy_generator_state(replica, own)
            except Exception as error:  # the framework's own complaint about incompatible generator states
                raise ConfigError(f"a replicated component draws random numbers on another kind of device than its "
                                  f"towers ({type(error).__name__}: {error})", component=towers.path,
                                  key_path="devices", expected="the agent's components on the towers' kind of device "
                                  "(the default: the first tower's)", got=towers.devices) from None
