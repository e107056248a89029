"""The nodes of a component graph: type-less records and the calls that consume and produce them.

Assembly calls every root API method once with :class:`Record` objects instead of data. Each API method
call becomes an :class:`ApiCall`, each graph function call a :class:`GraphFnCall`; records are the edges.
They have no space until the build pushes spaces through them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rlworkbench import nest

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.decorators import ApiSpec, GraphFnSpec
    from rlworkbench.spaces import Space

_ids = itertools.count()


@dataclass(eq=False)
class Record:
    """A value that will flow along an edge; ``space`` is set once the build knows it."""

    producer: ApiCall | GraphFnCall | None = None  # an ApiCall for root inputs, else the GraphFnCall
    space: Space | None = None
    label: str = ""
    id: int = field(default_factory=lambda: next(_ids))

    def __repr__(self) -> str:
        return f"Record#{self.id}({self.label or '?'}: {self.space!r})"

    def __bool__(self) -> bool:
        raise TypeError("a record has no value during assembly: API methods only route records, "
                        "do the maths in a graph function")


@dataclass(eq=False)
class ApiCall:
    """One call of an API method during assembly."""

    component: Component
    spec: ApiSpec
    caller: ApiCall | None
    inputs: dict[str, object]  # parameter name -> Record or constant
    outputs: Any = None  # whatever the method returned: records, tuples/dicts of records, None
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def name(self) -> str:
        return self.spec.name

    def input_records(self) -> dict[str, Record]:
        return {param: value for param, value in self.inputs.items() if isinstance(value, Record)}

    def output_records(self) -> dict[str, Record]:
        return {path or "output": leaf for path, leaf in nest.items(self.outputs) if isinstance(leaf, Record)}

    def __repr__(self) -> str:
        return f"ApiCall({self.component.path}.{self.name})"


@dataclass(eq=False)
class GraphFnCall:
    """One call of a graph function, made from an API method of the same component."""

    component: Component
    spec: GraphFnSpec
    api_call: ApiCall
    args: tuple[object, ...]  # Records or constants, positionally
    kwargs: dict[str, object]
    outputs: list[Record] = field(default_factory=list)
    done: bool = False
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def name(self) -> str:
        return self.spec.name

    def input_records(self) -> list[Record]:
        values = list(self.args) + list(self.kwargs.values())
        return [value for value in values if isinstance(value, Record)]

    def __repr__(self) -> str:
        return f"GraphFnCall({self.component.path}.{self.name})"
