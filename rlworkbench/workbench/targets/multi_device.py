"""The ``"multi_gpu"`` target: the local worker, with the agent's update on replica towers (one per device).

``promote(prototype, to="multi_gpu", devices=["cuda:0", "cuda:1"], ...)`` (or ``devices=2``: the first two GPUs;
``["cpu", "cpu"]`` without GPUs) trains like ``"local"`` — a thread of this process, the same Run — with the agent
built by ``agent.build(devices=...)`` (see :mod:`rlworkbench.components.strategies`). Devices are checked in the
caller's thread. A prototype agent already built on other devices is rebuilt with towers, keeping its weights
(networks, optimizer state, memory) and counters. Without ``devices`` every GPU here is used; on a machine
without GPUs that is a ConfigError naming the devices there are.
"""

from __future__ import annotations

import dataclasses
from typing import cast

from rlworkbench.agents.protocols import BuildsOnDevices
from rlworkbench.components.strategies import gpu_devices, resolve_tower_devices
from rlworkbench.core.backend import get_backend
from rlworkbench.errors import ConfigError
from rlworkbench.workbench.run_spec import RunSpec
from rlworkbench.workbench.targets.local import LocalExecution


class MultiDeviceExecution(LocalExecution):
    """A :class:`LocalExecution` whose agent updates on replica towers; :attr:`devices` names them."""

    def __init__(self, spec: RunSpec):
        options = dict(spec.options)
        requested = options.pop("devices", None)
        backend = get_backend(spec.backend)
        if requested is None:
            gpus = gpu_devices(backend)
            if not gpus:
                raise ConfigError("the multi_gpu target needs devices= on a machine without GPUs", argument="devices",
                                  expected=f"a list of devices from {backend.available_devices()} (a device may "
                                  "repeat: ['cpu', 'cpu'])", got=None)
            requested = len(gpus)
        self.tower_devices = resolve_tower_devices(requested, backend)
        if spec.agent is not None and not isinstance(spec.agent, BuildsOnDevices):
            raise ConfigError("the multi_gpu target trains agents that build with devices=", argument="prototype",
                              expected="an rlworkbench Agent (or a config)", got=type(spec.agent).__name__)
        super().__init__(dataclasses.replace(spec, options=options))

    @property
    def devices(self) -> list[str]:
        return list(self.tower_devices)

    def _prepare_agent(self) -> None:
        agent = cast(BuildsOnDevices, self.agent)  # a prototype is checked in __init__; a config makes an Agent
        if agent.executor is None:
            agent.build(devices=self.tower_devices)
        elif agent.devices != self.tower_devices:
            weights = agent.get_weights()
            agent.build(devices=self.tower_devices)
            agent.set_weights(weights)
