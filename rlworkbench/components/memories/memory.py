"""The :class:`Memory` base: ``capacity`` slots of nested records in variables, written as a ring."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.nest import Nested
from rlworkbench.spaces import IntBox, Space, TextBox


def record_space_of(space: Space) -> Space:
    """``space`` if it can be stored: a box or Dict/Tuple of number/bool boxes, each with a batch rank only."""
    leaves = space.flatten()
    if not leaves:
        raise SpaceError("a memory needs records with at least one leaf", argument="records",
                         expected="a box or a Dict/Tuple of boxes", got=space)
    for key, leaf in leaves.items():
        if isinstance(leaf, TextBox) or not leaf.has_batch_rank or leaf.has_time_rank:
            raise SpaceError("memories store number or bool leaves with a batch rank and no time rank",
                             argument="records", key_path=key or None,
                             expected="FloatBox/IntBox/BoolBox(..., add_batch_rank=True)", got=leaf)
    return space


class Memory(Component):
    """Base of the memories: records of the ``records`` input space in ``capacity`` slots.

    One variable per leaf (``records/<key path>``, shape ``(capacity, *leaf shape)``), plus ``index`` (the next
    slot to write) and ``size`` (slots filled). Writes go around the ring, overwriting the oldest records.
    Subclasses add the API methods that insert and read; ``write`` and ``read`` are their helpers inside
    graph functions. A leaf of zero size (``FloatBox(shape=(0,))``, e.g. an empty part of a Dict observation) is
    stored as nothing and read back as empty arrays: memories only move values along, so they take zero-size
    spaces (it is the components that compute from them — layers with weights, policies — that refuse them).
    """

    def __init__(self, capacity: int, **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(capacity, int) or capacity < 1:
            raise ConfigError("a memory needs a positive integer capacity", component=self.name,
                              argument="capacity", expected="an int >= 1", got=repr(capacity))
        self.capacity = capacity

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.record_space = record_space_of(input_spaces["records"])
        self._check_fits_in_memory()
        self.buffers = {key: self.create_variable(f"records/{key}" if key else "records", (self.capacity, *leaf.shape),
                                                  str(leaf.dtype), trainable=False)
                        for key, leaf in self.record_space.flatten().items()}
        self.index = self.create_variable("index", (), "int64", trainable=False)
        self.size = self.create_variable("size", (), "int64", trainable=False)

    def _check_fits_in_memory(self) -> None:
        """A ConfigError before allocating, when ``capacity`` records would not fit in the memory available."""
        record_bytes = sum(int(np.prod(leaf.shape)) * np.dtype(str(leaf.dtype)).itemsize
                           for leaf in self.record_space.flatten().values())
        needed, available = self.capacity * record_bytes, available_memory_bytes()
        if available is not None and needed > available:
            raise ConfigError("the memory would not fit in this machine's memory", component=self.path,
                              argument="capacity", expected=f"capacity x {record_bytes} bytes per record <= "
                              f"{available / 2**30:.1f} GiB available", got=f"{self.capacity} records = "
                              f"{needed / 2**30:.1f} GiB")

    @api
    @graph_fn(output_spaces=lambda memory: IntBox(0, memory.capacity + 1))  # declared: a count in [0, capacity]
    def get_size(self) -> Tensor:
        """The number of records stored: an int64 scalar."""
        return self.ops.read(self.size)

    # ----- helpers for graph functions ---------------------------------------------------------------------------
    def write(self, records: Nested[Tensor]) -> Tensor:
        """Writes a batch after the newest record (of a batch larger than the capacity, the last ``capacity``
        records); returns the slots written, in order."""
        flat = self.record_space.flatten(records)
        return self.ops.ring_write([self.buffers[key] for key in flat], self.index, self.size, list(flat.values()))

    def read(self, slots: Tensor) -> Nested[Tensor]:
        """The records in ``slots`` (a batch of slot numbers), nested like the record space."""
        return self.record_space.unflatten({key: self.ops.gather(b, slots) for key, b in self.buffers.items()})

    def oldest_slot(self) -> Tensor:
        """The slot of the oldest record stored."""
        return (self.index - self.size) % self.capacity


def available_memory_bytes() -> int | None:
    """Memory this process could still allocate (``MemAvailable`` on Linux; None where it cannot be read)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
