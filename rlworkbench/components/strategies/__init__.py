"""Device strategies: how a built agent's update runs on several devices (replica towers in the graph)."""

from rlworkbench.components.strategies.multi_device import (
    gpu_devices,
    remove_towers,
    replicate_on_devices,
    resolve_tower_devices,
    sync_towers,
)
from rlworkbench.components.strategies.replica_towers import ReplicaTowers, Tower

__all__ = ["ReplicaTowers", "Tower", "gpu_devices", "remove_towers", "replicate_on_devices", "resolve_tower_devices",
           "sync_towers"]
