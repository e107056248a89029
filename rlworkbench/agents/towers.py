"""The agent's side of a multi-device build: which devices, the towers added before the build, rows checked.

The strategy itself — replica towers as components — lives in :mod:`rlworkbench.components.strategies`; this
module only decides, for :meth:`Agent.build <rlworkbench.agents.agent.Agent.build>`, whether and where to use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rlworkbench.components.strategies import (
    ReplicaTowers,
    remove_towers,
    replicate_on_devices,
    resolve_tower_devices,
    sync_towers,
)
from rlworkbench.core.backend import get_backend
from rlworkbench.errors import ConfigError, SpaceError

if TYPE_CHECKING:
    from rlworkbench.agents.agent import Agent


def prepare_towers(agent: Agent, devices: int | Sequence[str] | None,
                   device_map: Mapping[str, str] | None) -> tuple[ReplicaTowers | None, Mapping[str, str] | None]:
    """Adds replica towers on ``devices`` (else the config's ``execution/devices``) to the unbuilt root, or removes
    those of an earlier build; returns them (None: one device) and the device map to build with — the agent's own
    components on the first tower's device unless the root has a device or the map places it (key ``""``)."""
    if devices is None:
        devices = (agent.config.get("execution") or {}).get("devices")
    if devices is None:
        remove_towers(agent.root)
        return None, device_map
    resolved = resolve_tower_devices(devices, get_backend(agent.backend))
    rows = agent.update_batch_rows()
    if rows is not None and rows < len(resolved):
        raise ConfigError(f"an update batch of {rows} rows cannot be split over {len(resolved)} devices {resolved}",
                          key_path="devices", expected=f"at most {rows} devices",
                          got=devices if isinstance(devices, int) else list(devices))
    towers = replicate_on_devices(agent.root, resolved, agent.root_input_spaces())
    if agent.root.device is None and "" not in (device_map or {}):
        device_map = {"": resolved[0], **(device_map or {})}
    return towers, device_map


def refresh(towers: ReplicaTowers | None) -> None:
    """The towers continue from the agent's weights (after a build, ``set_weights``, ``load``)."""
    if towers is not None and towers.backend is not None:
        sync_towers(towers)


def check_rows(towers: ReplicaTowers | None, rows: int, argument: str) -> None:
    """A batch of ``rows`` rows must give every tower at least one (checked before anything changes)."""
    if towers is not None and rows < len(towers.devices):
        raise SpaceError(f"a batch of {rows} rows cannot be split over {len(towers.devices)} devices "
                         f"{towers.devices}", argument=argument, expected=f">= {len(towers.devices)} rows", got=rows)


def devices_of(towers: ReplicaTowers | None) -> list[str] | None:
    return None if towers is None else list(towers.devices)

