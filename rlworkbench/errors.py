"""Typed errors that tell a person what went wrong and where.

Every error carries the place it happened — component path, API method or graph function, argument and,
for nested spaces, the key path — plus what was expected against what came. Context is added as the error
travels outwards (a space check knows the key path, the executor knows the API method and argument) with
:meth:`RLWorkbenchError.add_context`, which never overwrites what an inner layer already said. One warning lives here
too: :class:`SkippedInput`, for bad input dropped where the caller asked for that instead of an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlworkbench.drawable import DRAW_HINT

if TYPE_CHECKING:
    from IPython.lib.pretty import RepresentationPrinter


_CONTEXT_FIELDS = ("component", "api_method", "graph_fn", "argument", "key_path")


class RLWorkbenchError(Exception):
    """Base of all rlworkbench errors: a message plus where it happened and expected vs got."""

    def __init__(
        self,
        message: str,
        *,
        component: str | None = None,
        api_method: str | None = None,
        graph_fn: str | None = None,
        argument: str | None = None,
        key_path: str | None = None,
        expected: object = None,
        got: object = None,
    ) -> None:
        self.message = message
        self.component = component
        self.api_method = api_method
        self.graph_fn = graph_fn
        self.argument = argument
        self.key_path = key_path
        self.expected = expected
        self.got = got
        super().__init__(message)

    def add_context(self, **context: str | None) -> RLWorkbenchError:
        """Fill in location fields that are still empty; returns self so it can be re-raised."""
        for field, value in context.items():
            if field not in _CONTEXT_FIELDS:
                raise TypeError(f"unknown error context field {field!r}")
            if value is not None and getattr(self, field) is None:
                setattr(self, field, value)
        return self

    @property
    def location(self) -> str:
        parts = []
        if self.component is not None:
            parts.append(f"component '{self.component}'")
        if self.api_method is not None:
            parts.append(f"API method '{self.api_method}'")
        if self.graph_fn is not None:
            parts.append(f"graph function '{self.graph_fn}'")
        if self.argument is not None:
            parts.append(f"argument '{self.argument}'")
        if self.key_path:
            parts.append(f"key '{self.key_path}'")
        return ", ".join(parts)

    def __str__(self) -> str:
        text = self.message
        if self.expected is not None or self.got is not None:
            text += f": expected {self.expected}, got {self.got}"
        location = self.location
        return f"[{location}] {text}" if location else text

    def __reduce__(self):  # keep context through pickling (Ray, multiprocessing)
        return _rebuild_error, (type(self), self.message, self._context_dict())

    def _context_dict(self) -> dict[str, object]:
        fields = {f: getattr(self, f) for f in _CONTEXT_FIELDS}
        fields.update(expected=self.expected, got=self.got)
        return fields


def _rebuild_error(cls: type[RLWorkbenchError], message: str, fields: dict[str, object]) -> RLWorkbenchError:
    return cls(message, **fields)


class SpaceError(RLWorkbenchError, ValueError):
    """A value (or space) does not fit the space it must belong to."""


class BuildError(RLWorkbenchError):
    """The component graph cannot be assembled or built.

    ``graph`` holds the (partial) component graph when the error came out of a build, so it can be inspected
    and drawn with the component that got stuck highlighted.
    """

    def __init__(self, message: str, *, graph: Any = None, **context: object) -> None:
        super().__init__(message, **context)
        self.graph = graph

    def _repr_pretty_(self, printer: RepresentationPrinter, cycle: bool) -> None:
        hint = "" if self.graph is None else f"\n({DRAW_HINT})"
        printer.text(f"{type(self).__name__}: {self}{hint}")


class ConfigError(RLWorkbenchError, ValueError):
    """A configuration (component spec, device map, JSON config) is invalid."""


class MissingExtra(ConfigError, ImportError):
    """A feature needs an optional part of rlworkbench that is not installed; the message names the extra
    (``pip install "rlworkbench[tf]"``) that brings it."""


class CheckpointError(RLWorkbenchError):
    """A checkpoint cannot be written or read: missing or corrupted files, or contents that do not fit the agent
    (unknown or missing variables, other shapes or dtypes, another agent type)."""


class ClusterError(RLWorkbenchError):
    """A cluster cannot be used: its address does not answer, it refuses the token, or it does not know a job."""


class JobFailed(ClusterError):
    """A cluster job ended in an error that has no type here (or no record of its own): the job's error type,
    message and the last lines of its log."""


class SkippedInput(UserWarning):
    """Bad input an agent dropped instead of refusing it (``observe(..., on_bad="skip")``): said once per kind of
    fault, and counted."""
