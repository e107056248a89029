"""Leaf spaces: a core shape, a dtype and (for numbers) bounds."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from rlworkbench.errors import SpaceError
from rlworkbench.spaces.space import RankFlag, Size, Space, as_generator


class BoxSpace(Space):
    """Base of the leaf spaces. Subclasses say which dtype kind they hold and how to sample."""

    dtype_kinds: str = ""  # numpy dtype kinds a value may have (e.g. "f" for floats)
    default_dtype: str = "float32"

    def __init__(self, shape: tuple[int, ...] | int | None = None, dtype: DTypeLike | None = None, **ranks: bool):
        super().__init__(**ranks)
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        self._shape: tuple[int, ...] = tuple(int(d) for d in (shape or ()))
        self._dtype = np.dtype(dtype or self.default_dtype)
        if self._dtype.kind not in self.dtype_kinds:
            raise SpaceError(f"{type(self).__name__} cannot hold dtype", expected=self.dtype_kinds, got=self._dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    def get_shape(self, with_batch_rank: RankFlag = False, with_time_rank: RankFlag = False) -> tuple:
        return self.extra_rank_dims(with_batch_rank, with_time_rank) + self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def rank(self) -> int:
        return len(self._shape)

    @property
    def flat_dim(self) -> int:
        return int(np.prod(self._shape, dtype=np.int64))

    def _with_ranks(self, batch: bool, time: bool, time_major: bool) -> BoxSpace:
        new = copy.copy(self)
        new.has_batch_rank, new.has_time_rank, new.time_major = batch, time, time_major
        return new

    def zeros(self, size: Size = None) -> np.ndarray:
        return np.zeros(self.size_dims(size) + self._shape, dtype=self._dtype)

    def check(self, value: object, key_path: str = "") -> None:
        try:
            array = value if isinstance(value, np.ndarray) else np.asarray(value)
        except (ValueError, TypeError) as error:  # e.g. ragged nested lists
            raise SpaceError(f"{type(self).__name__} value is not an array", key_path=key_path or None,
                             expected=_shape_text(self.get_shape(True, True)), got=str(error)) from None
        if array.dtype.kind not in self.dtype_kinds:
            raise SpaceError(f"{type(self).__name__} value has the wrong dtype", key_path=key_path or None,
                             expected=self._dtype, got=array.dtype)
        self.check_shape(array.shape, key_path)
        if not _VALUES_UNCHECKED.get():
            self._check_bounds(array, key_path)

    def check_shape(self, shape: tuple[int, ...], key_path: str = "") -> None:
        extra = len(shape) - len(self._shape)
        if extra not in (0, self.num_extra_ranks) or tuple(shape[extra:]) != self._shape:
            expected = self.get_shape(with_batch_rank=True, with_time_rank=True)
            raise SpaceError(f"{type(self).__name__} value has the wrong shape", key_path=key_path or None,
                             expected=_shape_text(expected), got=_shape_text(tuple(shape)))

    def _check_bounds(self, array: np.ndarray, key_path: str) -> None:
        pass

    def flatten(self, value: object = None) -> dict[str, object]:
        return {"": self if value is None else value}

    def unflatten(self, flat: dict[str, object]) -> Any:
        return flat[""]

    def map(self, fn: Callable[[Space], Space]) -> Space:
        return fn(self)

    def _key(self) -> tuple:
        return (self._shape, self._dtype.str, self._rank_key())

    def _body_repr(self) -> str:
        return f"{self._shape}, {self._dtype.name}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._body_repr()}){self._rank_repr()}"


def _shape_text(shape: tuple) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class NumericBox(BoxSpace):
    """A box of numbers with (possibly infinite or per-element) bounds ``low <= x`` and ``x <= / < high``."""

    high_inclusive = True

    def __init__(self, low: ArrayLike | None = None, high: ArrayLike | None = None,
                 shape: tuple[int, ...] | int | None = None, dtype: Any = None, **ranks: bool):
        if shape is None:
            shape = np.broadcast_shapes(np.shape(low) if low is not None else (),
                                        np.shape(high) if high is not None else ())
        super().__init__(shape, dtype, **ranks)
        self.low = self._bound(low, self._default_low())
        self.high = self._bound(high, self._default_high())

    def _bound(self, value: object, default: object) -> np.ndarray:
        bound = np.asarray(default if value is None else value, dtype=self.bound_dtype or self._dtype)
        if bound.ndim and bound.shape != self._shape:
            bound = np.broadcast_to(bound, self._shape).copy()
        if bound.size and bound.ndim and np.all(bound == bound.flat[0]):
            bound = bound.flat[0].copy()  # keep scalar bounds scalar: compact repr, cheap checks
        return bound

    bound_dtype: DTypeLike | None = np.float64  # None: the value dtype

    def _default_low(self) -> float:
        return -np.inf

    def _default_high(self) -> float:
        return np.inf

    @property
    def is_bounded(self) -> bool:
        return bool(np.all(np.isfinite(self.low)) and np.all(np.isfinite(self.high)))

    def _check_bounds(self, array: np.ndarray, key_path: str) -> None:
        if array.size == 0:
            return
        low, high = self._checked_bounds()
        # written as "not inside" so that NaN is out of bounds, as in Gymnasium
        inside_high = array <= high if self.high_inclusive else array < high
        if not (np.all(array >= low) and np.all(inside_high)):
            closing = "]" if self.high_inclusive else ")"
            raise SpaceError(f"{type(self).__name__} value is out of bounds", key_path=key_path or None,
                             expected=f"values in [{_bound_text(self.low)}, {_bound_text(self.high)}{closing}",
                             got=f"min {array.min()}, max {array.max()}")

    def _checked_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.low, self.high

    def scalar_bounds(self) -> tuple[float, float] | None:
        """``(low, high)`` as values are checked against them, when both are scalars (None for per-element
        bounds)."""
        low, high = self._checked_bounds()
        return (float(low), float(high)) if low.ndim == 0 and high.ndim == 0 else None

    def _key(self) -> tuple:
        return super()._key() + (self.low.tobytes(), self.low.shape, self.high.tobytes(), self.high.shape)

    def _body_repr(self) -> str:
        text = super()._body_repr()
        if np.any(np.isfinite(self.low)) or np.any(np.isfinite(self.high)):
            text += f", [{_bound_text(self.low)}, {_bound_text(self.high)}{']' if self.high_inclusive else ')'}"
        return text


def _bound_text(bound: np.ndarray) -> str:
    """A bound, compactly: one number when all its elements agree, up to four numbers ``(a, b, c, d)``, else the
    range of its elements ``low..high``."""
    flat = np.asarray(bound).ravel()
    if flat.size and np.all(flat == flat[0]):
        return _number_text(flat[0].item())
    if flat.size <= 4:
        return "(" + ", ".join(_number_text(v.item()) for v in flat) + ")"
    return f"{_number_text(flat.min().item())}..{_number_text(flat.max().item())}"


def _number_text(value: float) -> str:
    # whole numbers in full (IntBox bounds), but huge ones (float32's max) short; others to 3 significant digits
    if float(value).is_integer() and abs(value) < 1e16:
        return str(int(value))
    return f"{value:.3g}" if np.isfinite(value) and abs(value) < 1e16 else f"{value:g}"


_FLOAT_BOUNDS_RELAXED: ContextVar[bool] = ContextVar("rlworkbench_float_bounds_relaxed", default=False)


@contextmanager
def float_bounds_relaxed(relaxed: bool = True) -> Iterator[None]:
    """Inside, ``check`` takes any finite float for a :class:`FloatBox`, whatever its bounds (NaN and infinity are
    still refused; every other leaf is checked as usual): real envs' observations stray out of their declared
    boxes, and Gaussian actions are stored unclipped. ``relaxed=False`` changes nothing."""
    token = _FLOAT_BOUNDS_RELAXED.set(relaxed or _FLOAT_BOUNDS_RELAXED.get())
    try:
        yield
    finally:
        _FLOAT_BOUNDS_RELAXED.reset(token)


_VALUES_UNCHECKED: ContextVar[bool] = ContextVar("rlworkbench_values_unchecked", default=False)


@contextmanager
def values_unchecked() -> Iterator[None]:
    """Inside, ``check`` checks the form of a value only — structure, dtypes, shapes — and none of its numbers
    (bounds, finiteness) or texts: what is wrong with a batch as a whole, apart from what is wrong with some of its
    rows (``observe(..., on_bad="skip")`` drops those)."""
    token = _VALUES_UNCHECKED.set(True)
    try:
        yield
    finally:
        _VALUES_UNCHECKED.reset(token)


class FloatBox(NumericBox):
    """Real numbers in ``[low, high]`` (unbounded by default), float32 unless told otherwise.

    Bounds are stored in the space's dtype (as Gymnasium does), so that a bound such as ``0.7`` means the same
    number to the space and to its float32 values, and rounded samples never leave the box.
    """

    dtype_kinds = "f"
    default_dtype = "float32"
    bound_dtype = None

    def _check_bounds(self, array: np.ndarray, key_path: str) -> None:
        if not _FLOAT_BOUNDS_RELAXED.get():
            super()._check_bounds(array, key_path)
        elif array.size and not np.all(np.isfinite(array)):
            raise SpaceError("FloatBox value is not finite", key_path=key_path or None, expected="finite values",
                             got=f"{int(np.sum(~np.isfinite(array)))} NaN or infinite of {array.size}")

    def sample(self, size: Size = None, seed: int | np.random.Generator | None = None) -> np.ndarray:
        rng = as_generator(seed)
        shape = self.size_dims(size) + self._shape
        low = np.broadcast_to(self.low, self._shape)
        high = np.broadcast_to(self.high, self._shape)
        finite_low, finite_high = np.isfinite(low), np.isfinite(high)
        if not finite_low.any() and not finite_high.any():  # the common unbounded case, without the masks below
            return rng.standard_normal(shape).astype(self._dtype)
        bounded = finite_low & finite_high
        uniform = rng.uniform(np.where(bounded, low, 0.0), np.where(bounded, high, 1.0), size=shape)
        normal = rng.standard_normal(shape)
        value = np.where(bounded, uniform,
                         np.where(finite_low, low + np.abs(normal),
                                  np.where(finite_high, high - np.abs(normal), normal)))
        return value.astype(self._dtype)


class IntBox(NumericBox):
    """Integers in ``[low, high)``; ``IntBox(n)`` holds the ``n`` categories ``0 … n-1``."""

    dtype_kinds = "iu"
    default_dtype = "int64"
    high_inclusive = False
    bound_dtype = np.float64  # float bounds so that unbounded ends can be ±inf

    def __init__(self, low: ArrayLike | None = None, high: ArrayLike | None = None,
                 shape: tuple[int, ...] | int | None = None, dtype: Any = None, **ranks: bool):
        if high is None and low is not None:  # IntBox(n): the n categories 0 … n-1
            low, high = 0, low
        elif low is None and high is not None:
            low = 0
        super().__init__(low, high, shape, dtype, **ranks)

    @property
    def num_categories(self) -> int | None:
        """Number of categories when the bounds are scalar and finite (else ``None``)."""
        if self.low.ndim == 0 and self.high.ndim == 0 and self.is_bounded:
            return int(self.high - self.low)
        return None

    def as_one_hot_float_space(self) -> FloatBox:
        """The float space of this space's values one-hot encoded: shape ``shape + (num_categories,)``."""
        if self.num_categories is None:
            raise SpaceError("one-hot needs an IntBox with scalar, finite bounds", expected="IntBox(n)", got=self)
        return FloatBox(0.0, 1.0, shape=self._shape + (self.num_categories,), add_batch_rank=self.has_batch_rank,
                        add_time_rank=self.has_time_rank, time_major=self.time_major)

    def _checked_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        # float64 bounds cannot tell 2**63 - 1 from 2**63: bounds at or past the int64 range are the dtype's own
        return (np.where(self.low <= -(2.0**63), -np.inf, self.low),
                np.where(self.high >= 2.0**63, np.inf, self.high))

    def sample(self, size: Size = None, seed: int | np.random.Generator | None = None) -> np.ndarray:
        rng = as_generator(seed)
        info = np.iinfo(self._dtype)
        floor, ceil = max(int(info.min), -(2**62)), min(int(info.max) + 1, 2**62)  # representable, int64-safe
        span = 2**31 - 1  # width drawn from on an unbounded side
        finite_low, finite_high = np.isfinite(self.low), np.isfinite(self.high)
        low = np.maximum(np.where(finite_low, self.low, np.where(finite_high, self.high - span, 0)), floor)
        high = np.minimum(np.where(finite_high, self.high, low + span), ceil)
        value = rng.integers(low.astype(np.int64), high.astype(np.int64), size=self.size_dims(size) + self._shape)
        return value.astype(self._dtype)


class BoolBox(BoxSpace):
    """Booleans of a given shape."""

    dtype_kinds = "b"
    default_dtype = "bool"

    def __init__(self, shape: tuple[int, ...] | int | None = None, **ranks: bool):
        super().__init__(shape, "bool", **ranks)

    def sample(self, size: Size = None, seed: int | np.random.Generator | None = None) -> np.ndarray:
        return as_generator(seed).random(self.size_dims(size) + self._shape) < 0.5


class TextBox(BoxSpace):
    """Strings of ``min_length`` to ``max_length`` characters from ``charset``, as numpy object arrays."""

    dtype_kinds = "OUS"
    default_dtype = "object"
    _default_charset = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    def __init__(self, shape: tuple[int, ...] | int | None = None, min_length: int = 0, max_length: int = 32,
                 charset: str | None = None, **ranks: bool):
        super().__init__(shape, "object", **ranks)
        self.min_length, self.max_length = int(min_length), int(max_length)
        self.charset = charset or self._default_charset

    def sample(self, size: Size = None, seed: int | np.random.Generator | None = None) -> np.ndarray:
        rng = as_generator(seed)
        shape = self.size_dims(size) + self._shape
        chars = np.array(list(self.charset))
        out = np.empty(shape, dtype=object)
        for index in np.ndindex(*shape):
            length = rng.integers(self.min_length, self.max_length + 1)
            out[index] = "".join(rng.choice(chars, size=length))
        return out

    def zeros(self, size: Size = None) -> np.ndarray:
        return np.full(self.size_dims(size) + self._shape, "", dtype=object)

    def _check_bounds(self, array: np.ndarray, key_path: str) -> None:
        for text in array.reshape(-1):
            if not isinstance(text, str):
                raise SpaceError("TextBox value is not a string", key_path=key_path or None, expected="str",
                                 got=type(text).__name__)
            if not self.min_length <= len(text) <= self.max_length or not set(text) <= set(self.charset):
                raise SpaceError("TextBox value does not fit", key_path=key_path or None,
                                 expected=f"{self.min_length}..{self.max_length} chars of the charset",
                                 got=repr(text))

    def _key(self) -> tuple:
        # the charset is a set of characters: its order does not make a different space
        return super()._key() + (self.min_length, self.max_length, "".join(sorted(set(self.charset))))

    def _body_repr(self) -> str:
        return f"{self._shape}, len {self.min_length}..{self.max_length}"
