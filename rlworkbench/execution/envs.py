"""Gymnasium vector envs for the workers: :func:`make_vector_env` and the autoreset mode of a vector env.

Every sub-env ``i`` is seeded with ``seed + i`` when it is created (its first ``reset(seed=seed + i)`` happens
inside the env factory, also inside the subprocess of an async vector env), so every later ``reset()`` and the
whole stream of episodes is reproducible without the caller having to pass a seed to the first vector reset.
The spaces' samplers are seeded the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from rlworkbench.errors import ConfigError

EnvFactory = Callable[[], gym.Env]

_MODES = ("sync", "async")


def make_vector_env(env_id_or_fn: str | EnvFactory, num_envs: int = 1, mode: str = "sync", seed: int | None = None,
                    *, autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
                    max_episode_steps: int | None = None, **env_kwargs: object) -> VectorEnv:
    """A :class:`SyncVectorEnv` or :class:`AsyncVectorEnv` of ``num_envs`` copies of one env.

    ``env_id_or_fn`` is a registered Gymnasium id (made with ``gymnasium.make(id, **env_kwargs)``) or a
    zero-argument factory. ``max_episode_steps`` wraps each copy in a ``TimeLimit`` (for an id, through
    ``gymnasium.make``, which replaces the registered limit). ``autoreset_mode`` defaults to ``SAME_STEP`` (no
    wasted reset steps; the final observation comes in ``info["final_obs"]``); every mode works with
    :class:`~rlworkbench.execution.Worker`. With ``seed``, sub-env ``i`` is seeded with ``seed + i``.
    """
    if mode not in _MODES:
        raise ConfigError("unknown vector env mode", argument="mode", expected=" or ".join(_MODES), got=repr(mode))
    if not isinstance(num_envs, int) or num_envs < 1:
        raise ConfigError("a vector env needs at least one sub-env", argument="num_envs", expected="int >= 1",
                          got=repr(num_envs))
    if isinstance(env_id_or_fn, str):
        make_kwargs = dict(env_kwargs)
        if max_episode_steps is not None:
            make_kwargs["max_episode_steps"] = max_episode_steps
        try:
            gym.spec(env_id_or_fn)
        except gym.error.Error as error:
            raise ConfigError("unknown Gymnasium env id", argument="env", expected="a registered env id",
                              got=repr(env_id_or_fn)) from error
        factory: EnvFactory = _MakeById(env_id_or_fn, make_kwargs)
    elif callable(env_id_or_fn):
        if env_kwargs:
            raise ConfigError("keyword arguments only go with an env id, not with a factory", argument="env_kwargs",
                              expected="no keyword arguments", got=sorted(env_kwargs))
        factory = _TimeLimited(env_id_or_fn, max_episode_steps) if max_episode_steps is not None else env_id_or_fn
    else:
        raise ConfigError("an env is made from an id or a factory", argument="env_id_or_fn",
                          expected="str or callable", got=type(env_id_or_fn).__name__)
    env_fns = [_Seeded(factory, None if seed is None else seed + i) for i in range(num_envs)]
    vector_cls = SyncVectorEnv if mode == "sync" else AsyncVectorEnv
    env = vector_cls(env_fns, autoreset_mode=autoreset_mode)
    if seed is not None:
        env.action_space.seed(seed)
        env.observation_space.seed(seed)
    return env


def autoreset_mode_of(env: VectorEnv) -> AutoresetMode:
    """The autoreset mode a vector env runs in (``NEXT_STEP`` for envs that do not say: Gymnasium's default)."""
    mode = getattr(env, "metadata", {}).get("autoreset_mode", AutoresetMode.NEXT_STEP)
    return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)


class _MakeById:
    """``gymnasium.make(env_id, **kwargs)`` as a picklable factory (async envs send it to a subprocess)."""

    def __init__(self, env_id: str, kwargs: dict[str, object]):
        self.env_id, self.kwargs = env_id, kwargs

    def __call__(self) -> gym.Env:
        return gym.make(self.env_id, **self.kwargs)


class _TimeLimited:
    def __init__(self, factory: EnvFactory, max_episode_steps: int):
        self.factory, self.max_episode_steps = factory, max_episode_steps

    def __call__(self) -> gym.Env:
        return gym.wrappers.TimeLimit(self.factory(), max_episode_steps=self.max_episode_steps)


class _Seeded:
    """Makes one sub-env and seeds its RNG and its spaces with ``seed`` (no-op for ``None``)."""

    def __init__(self, factory: EnvFactory, seed: int | None):
        self.factory, self.seed = factory, seed

    def __call__(self) -> gym.Env:
        env = self.factory()
        if self.seed is not None:
            env.reset(seed=self.seed)
            env.action_space.seed(self.seed)
            env.observation_space.seed(self.seed)
        return env
