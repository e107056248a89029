"""Per-thread interception of component calls: how assembly records calls and tracing scopes them.

After a build, ``component.method`` is the callable the build bound for it (see
:mod:`rlworkbench.core.decorators`). Two things need another answer for a while, and only in their own thread:
assembly (calls become records of the component graph) and tracing (TensorBoard wraps each call in a scope
module). Both run inside :func:`intercepting`, which installs a handler for the current thread. The
descriptors check :data:`active` first — a plain int, zero unless some thread intercepts — so a call costs one
integer test when nobody intercepts, and other threads (a run training the same agent) keep their normal calls.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlworkbench.core.component import Component

Handler = Callable[[Any, "Component"], Callable[..., Any] | None]
"""``handler(descriptor, component)``: the callable to use instead, or None to leave the call as it is."""

active = 0  # how many threads intercept right now (read by every descriptor access)
_lock = threading.Lock()
_local = threading.local()


@contextlib.contextmanager
def intercepting(handler: Handler) -> Iterator[None]:
    """Routes this thread's component calls through ``handler`` while the block runs (nestable: the innermost
    handler answers)."""
    global active  # noqa: PLW0603 - one int, read on every descriptor access: a module global is cheapest
    stack: list[Handler] = _local.__dict__.setdefault("handlers", [])
    stack.append(handler)
    with _lock:
        active += 1
    try:
        yield
    finally:
        with _lock:
            active -= 1
        stack.pop()


def handled(descriptor: Any, component: Component) -> Callable[..., Any] | None:
    """This thread's innermost handler's answer for ``descriptor`` on ``component`` (None: no handler here)."""
    stack = _local.__dict__.get("handlers")
    return stack[-1](descriptor, component) if stack else None


def current_handler() -> Handler | None:
    """This thread's innermost handler, if any."""
    stack = _local.__dict__.get("handlers")
    return stack[-1] if stack else None
