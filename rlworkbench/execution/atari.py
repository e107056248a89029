"""Atari games (the ROMs ship with ``ale-py``) as rlworkbench agents see them: the env side of the classic
preprocessing.

``AtariFrames("Pong")`` is ``ALE/Pong-v5`` (4 frames skipped per action, sticky actions as v5 has them) whose
observations are the last ``frames`` RGB frames stacked on the axis before the colour channels:
``(210, 160, frames, 3)`` uint8. Stacking belongs in the env because a DQN memory stores preprocessed states — a
stateful preprocessor would advance twice per step. The rest is the agent's stateless preprocessing, the library's
components (see ``apex_pong.json``): ``grayscale`` (→ ``(210, 160, frames)``), ``image_resize`` to 84 x 84 (the
frames become the channels of the convolutions) and ``convert_type`` to uint8, so that replay holds a byte per
pixel; the network's first layer divides by 255. :func:`atari_env` is the env factory to
hand a run: it pickles as its arguments, so every sampler actor on Ray makes its own copies::

    promote("apex_pong", to="ray", env=atari_env("Pong"), workers=8)
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np


class AtariFrames(gymnasium.Wrapper):
    """``ALE/<game>-v5`` with its last ``frames`` RGB frames as the observation; see the module docstring."""

    def __init__(self, game: str = "Pong", frames: int = 4, **make_kwargs: object):
        import ale_py

        gymnasium.register_envs(ale_py)
        self.game, self.frames, self.make_kwargs = game, int(frames), make_kwargs
        super().__init__(gymnasium.make(f"ALE/{game}-v5", **make_kwargs))
        height, width, channels = self.env.observation_space.shape
        self.observation_space = gymnasium.spaces.Box(0, 255, (height, width, self.frames, channels), np.uint8)
        self._stack: deque[np.ndarray] = deque(maxlen=self.frames)

    def reset(self, **kwargs: object) -> tuple[np.ndarray, dict[str, Any]]:
        frame, info = self.env.reset(**kwargs)
        self._stack.extend([frame] * self.frames)
        return self._observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        frame, reward, terminated, truncated, info = self.env.step(action)
        self._stack.append(frame)
        return self._observation(), reward, terminated, truncated, info

    def _observation(self) -> np.ndarray:
        return np.stack(self._stack, axis=-2)


def atari_env(game: str = "Pong", frames: int = 4, **make_kwargs: object) -> Callable[[], AtariFrames]:
    """A picklable zero-argument factory of :class:`AtariFrames` (for ``promote(..., env=...)`` and
    ``make_vector_env``)."""
    return functools.partial(AtariFrames, game, frames, **make_kwargs)
