"""Container spaces: :class:`Dict` and :class:`Tuple`, nesting arbitrarily.

A container's batch/time ranks are its children's: setting them on the container sets them on every leaf.
Values are Python dicts and tuples of leaf values; key paths join dict keys and tuple indices with ``/``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.errors import SpaceError
from rlworkbench.spaces.space import RankFlag, Size, Space, as_generator


class ContainerSpace(Space):
    """Shared behaviour of Dict and Tuple; subclasses store children and rebuild themselves from them."""

    # children as (key, space) pairs, and a constructor from such pairs
    def children(self) -> list[tuple[Any, Space]]:
        raise NotImplementedError

    def _rebuild(self, children: list[tuple[object, Space]]) -> ContainerSpace:
        raise NotImplementedError

    def _apply_ranks(self) -> None:
        if self.num_extra_ranks or self.time_major:
            self._set_children([(k, s._with_ranks(*self._rank_key())) for k, s in self.children()])
        elif self.children():  # a container built from ranked children takes their ranks
            self.has_batch_rank, self.has_time_rank, self.time_major = self.children()[0][1]._rank_key()

    def _set_children(self, children: list[tuple[object, Space]]) -> None:
        raise NotImplementedError

    def _with_ranks(self, batch: bool, time: bool, time_major: bool) -> ContainerSpace:
        new = self._rebuild([(k, s._with_ranks(batch, time, time_major)) for k, s in self.children()])
        new.has_batch_rank, new.has_time_rank, new.time_major = batch, time, time_major
        return new

    def _structure(self, fn: Callable[[Space], object]) -> object:
        raise NotImplementedError

    @property
    def shape(self) -> object:
        return self._structure(lambda s: s.shape)

    def get_shape(self, with_batch_rank: RankFlag = False, with_time_rank: RankFlag = False) -> object:
        return self._structure(lambda s: s.get_shape(with_batch_rank, with_time_rank))

    @property
    def dtype(self) -> object:
        return self._structure(lambda s: s.dtype)

    @property
    def rank(self) -> object:
        return self._structure(lambda s: s.rank)

    @property
    def flat_dim(self) -> int:
        return sum(s.flat_dim for _, s in self.children())

    def sample(self, size: Size = None, seed: int | np.random.Generator | None = None) -> object:
        rng = as_generator(seed)
        return self._structure(lambda s: s.sample(size, rng))

    def zeros(self, size: Size = None) -> object:
        return self._structure(lambda s: s.zeros(size))

    def flatten(self, value: object = None) -> dict[str, object]:
        if value is None:
            return dict(self._leaf_items(""))
        flat: dict[str, object] = {}
        for key, child in self.children():
            for path, leaf in child.flatten(self._child_value(value, key, "")).items():
                flat[nest.join(str(key), path) if path else str(key)] = leaf
        return flat

    def _leaf_items(self, prefix: str):
        for key, child in self.children():
            path = nest.join(prefix, key)
            if isinstance(child, ContainerSpace):
                yield from child._leaf_items(path)
            else:
                yield path, child

    def unflatten(self, flat: Mapping[str, object]) -> object:
        return self._unflatten_at(flat, "")

    def _unflatten_at(self, flat: Mapping[str, object], prefix: str) -> object:
        def rebuild(key: object, child: Space) -> object:
            path = nest.join(prefix, key)
            return child._unflatten_at(flat, path) if isinstance(child, ContainerSpace) else flat[path]

        return self._pack([(k, rebuild(k, s)) for k, s in self.children()])

    def _pack(self, pairs: list[tuple[object, object]]) -> object:
        raise NotImplementedError

    def map(self, fn: Callable[[Space], Space]) -> Space:
        if not self.children():  # no leaves to take ranks from: keep the container's own
            return self._with_ranks(*self._rank_key())
        return self._rebuild([(k, s.map(fn)) for k, s in self.children()])

    def check(self, value: object, key_path: str = "") -> None:
        self._check_structure(value, key_path)  # first, so that empty containers check their values too
        for key, child in self.children():
            child.check(self._child_value(value, key, key_path), nest.join(key_path, key))

    def _check_structure(self, value: object, key_path: str) -> None:
        """Raises :class:`SpaceError` if ``value`` is not this container's kind of value."""
        raise NotImplementedError

    def _child_value(self, value: object, key: object, key_path: str) -> object:
        raise NotImplementedError

    def _key(self) -> tuple:
        return (tuple((k, s._key(), type(s).__name__) for k, s in self.children()), self._rank_key())


class Dict(ContainerSpace):
    """Named sub-spaces, in insertion order: ``Dict(obs=FloatBox(shape=(4,)), mask=BoolBox((2,)))``."""

    def __init__(self, spec: Mapping[str, Space] | None = None, add_batch_rank: bool = False,
                 add_time_rank: bool = False, time_major: bool = False, **spaces: Space):
        super().__init__(add_batch_rank=add_batch_rank, add_time_rank=add_time_rank, time_major=time_major)
        merged = dict(spec or {}, **spaces)
        for key, child in merged.items():
            if not isinstance(key, str) or "/" in key or not key:
                raise SpaceError("Dict keys must be non-empty strings without '/'", expected="str key", got=key)
            if not isinstance(child, Space):
                raise SpaceError("Dict values must be spaces", key_path=key, expected="Space",
                                 got=type(child).__name__)
        self._spaces: dict[str, Space] = merged
        self._apply_ranks()

    def children(self) -> list[tuple[object, Space]]:
        return list(self._spaces.items())

    def _set_children(self, children: list[tuple[Any, Space]]) -> None:
        self._spaces = dict(children)

    def _rebuild(self, children: list[tuple[Any, Space]]) -> Dict:
        return Dict(dict(children))

    def _structure(self, fn: Callable[[Space], object]) -> dict[str, object]:
        return {k: fn(s) for k, s in self._spaces.items()}

    def _pack(self, pairs: list[tuple[Any, Any]]) -> dict[str, object]:
        return dict(pairs)

    def _child_value(self, value: object, key: object, key_path: str) -> object:
        _check_mapping(value, key_path)
        if key not in value:
            raise SpaceError("Dict value misses a key", key_path=nest.join(key_path, key),
                             expected=f"keys {list(self._spaces)}", got=f"keys {list(value)}")
        return value[key]

    def _check_structure(self, value: object, key_path: str) -> None:
        _check_mapping(value, key_path)
        extra = [k for k in value if k not in self._spaces]
        if extra:
            raise SpaceError("Dict value has unknown keys", key_path=key_path or None,
                             expected=f"keys {list(self._spaces)}", got=f"extra keys {extra}")

    def keys(self):
        return self._spaces.keys()

    def items(self):
        return self._spaces.items()

    def __getitem__(self, key: str) -> Space:
        return self._spaces[key]

    def __len__(self) -> int:
        return len(self._spaces)

    def __iter__(self):
        return iter(self._spaces)

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={s!r}" for k, s in self._spaces.items())
        return f"Dict({body})"


def _check_mapping(value: object, key_path: str) -> None:
    if not isinstance(value, Mapping):
        raise SpaceError("Dict value must be a mapping", key_path=key_path or None, expected="dict",
                         got=type(value).__name__)


class Tuple(ContainerSpace):
    """Positional sub-spaces: ``Tuple(IntBox(3), FloatBox(shape=(2,)))``."""

    def __init__(self, *spaces: Space | tuple | list, add_batch_rank: bool = False, add_time_rank: bool = False,
                 time_major: bool = False):
        super().__init__(add_batch_rank=add_batch_rank, add_time_rank=add_time_rank, time_major=time_major)
        if len(spaces) == 1 and isinstance(spaces[0], (tuple, list)):
            spaces = tuple(spaces[0])
        for index, child in enumerate(spaces):
            if not isinstance(child, Space):
                raise SpaceError("Tuple items must be spaces", key_path=str(index), expected="Space",
                                 got=type(child).__name__)
        self._spaces: tuple[Space, ...] = tuple(spaces)  # type: ignore[arg-type]
        self._apply_ranks()

    def children(self) -> list[tuple[object, Space]]:
        return list(enumerate(self._spaces))

    def _set_children(self, children: list[tuple[object, Space]]) -> None:
        self._spaces = tuple(s for _, s in children)

    def _rebuild(self, children: list[tuple[object, Space]]) -> Tuple:
        return Tuple(*(s for _, s in children))

    def _structure(self, fn: Callable[[Space], object]) -> tuple:
        return tuple(fn(s) for s in self._spaces)

    def _pack(self, pairs: list[tuple[object, object]]) -> tuple:
        return tuple(v for _, v in pairs)

    def _check_structure(self, value: object, key_path: str) -> None:
        if not isinstance(value, (tuple, list)) or len(value) != len(self._spaces):
            got = f"{type(value).__name__} of length {len(value)}" if isinstance(value, (tuple, list)) else \
                type(value).__name__
            raise SpaceError("Tuple value has the wrong structure", key_path=key_path or None,
                             expected=f"tuple of length {len(self._spaces)}", got=got)

    def _child_value(self, value: object, key: object, key_path: str) -> object:
        self._check_structure(value, key_path)
        return value[key]

    def __getitem__(self, index: int) -> Space:
        return self._spaces[index]

    def __len__(self) -> int:
        return len(self._spaces)

    def __iter__(self):
        return iter(self._spaces)

    def __repr__(self) -> str:
        return f"Tuple({', '.join(repr(s) for s in self._spaces)})"

