"""Replicated calls: the one hook a multi-device strategy needs from the core.

A strategy gives a root replica towers (see :mod:`rlworkbench.components.strategies`) and marks two things:

- ``root.replica_learning_methods``: the root API methods that learn (take gradients);
- ``component.replicated_by``: for each component the learning methods train, the component that runs its calls
  on the towers (``replicated_by.forward(component_name, api_name, *inputs)``).

While a learning method runs in a thread — recorded by the assembly, traced by TensorFlow, called on PyTorch —
calls of a replicated component go to its towers; every other call (acting, probes, calls from other threads)
reaches the component itself. So the learning sub-graph is replicated without a line of the agent changing,
and the component graph shows both paths. Without a strategy no attribute is set and no call is wrapped; the
backends' random ops read :func:`draw_rows` (one thread-local lookup per draw).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rlworkbench.errors import BuildError

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.decorators import ApiSpec

_local = threading.local()


def learning() -> bool:
    """Whether a learning root API method runs in this thread."""
    return getattr(_local, "on", False)


@contextmanager
def learning_call(on: bool = True) -> Iterator[None]:
    """Marks this thread as running a learning root API method (or not) while the block runs."""
    before = getattr(_local, "on", False)
    _local.on = on
    try:
        yield
    finally:
        _local.on = before


def draw_rows() -> tuple[Any, Any, Any] | None:
    """``(total_rows, start, stop)`` while a replica tower runs its shard of a batch (else None): random draws
    with a leading batch axis are drawn for all ``total_rows`` rows and cut to the shard's, so a tower samples
    exactly the rows one device would sample for the whole batch."""
    return getattr(_local, "draw_rows", None)


def set_draw_rows(rows: tuple[Any, Any, Any] | None) -> None:
    """Sets (or, with None, clears) this thread's :func:`draw_rows`."""
    _local.draw_rows = rows


def learning_methods(root: Component) -> frozenset[str]:
    """The root API methods a strategy marked as learning ones (none without a strategy)."""
    return frozenset(getattr(root, "replica_learning_methods", ()))


def replicas_of(component: Component) -> Component | None:
    """The component that runs ``component``'s learning calls on replica towers, if a strategy set one."""
    return getattr(component, "replicated_by", None)


def positional_inputs(component: Component, spec: ApiSpec, args: tuple, kwargs: dict) -> list[Any]:
    """A call's inputs as one list in the API method's parameter order (keyword-only ones last), so they can
    travel through the towers' ``*inputs`` and be handed back by name."""
    if spec.var_param:
        raise BuildError("an API method with *args cannot be replicated on towers", component=component.path,
                         api_method=spec.name)
    if not kwargs and len(args) == len(spec.params) and not spec.keyword_only:  # the common case, without inspect
        return list(args)
    bound = spec.signature.bind(component, *args, **kwargs)
    bound.apply_defaults()
    return [bound.arguments[param] for param in spec.params]


def call_with_inputs(method: Callable[..., object], spec: ApiSpec, inputs: tuple) -> Any:
    """Calls ``method`` with inputs listed by :func:`positional_inputs` (keyword-only ones by name)."""
    split = len(spec.params) - len(spec.keyword_only)
    return method(*inputs[:split], **dict(zip(spec.keyword_only, inputs[split:])))


def dispatching(bound: Callable[..., object], component: Component, spec: ApiSpec) -> Callable[..., Any]:
    """A replicated component's built API method: to its towers inside a learning method, else itself."""
    towers = replicas_of(component)

    def dispatch(*args: object, **kwargs: object) -> Any:
        if getattr(_local, "on", False):
            return towers.forward(component.name, spec.name, *positional_inputs(component, spec, args, kwargs))
        return bound(*args, **kwargs)

    return dispatch


def marking_learning(bound: Callable[..., object]) -> Callable[..., Any]:
    """A learning root API method as built: the thread is marked as learning while it runs."""

    def learn(*args: object, **kwargs: object) -> Any:
        before = getattr(_local, "on", False)
        _local.on = True
        try:
            return bound(*args, **kwargs)
        finally:
            _local.on = before

    return learn
