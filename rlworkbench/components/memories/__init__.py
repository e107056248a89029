"""Memories: uniform and prioritized replay, an episode ring buffer and a FIFO queue, all on one ring storage
(:class:`Memory`: one variable per record leaf, write index and size)."""

from rlworkbench.components.memories.fifo_queue import FIFOQueue
from rlworkbench.components.memories.memory import Memory
from rlworkbench.components.memories.prioritized_replay import PrioritizedReplay
from rlworkbench.components.memories.replay_memory import ReplayMemory
from rlworkbench.components.memories.ring_buffer import RingBuffer

__all__ = ["FIFOQueue", "Memory", "PrioritizedReplay", "ReplayMemory", "RingBuffer"]
