"""The :class:`Component`: a named scope that owns sub-components, variables and declared API methods."""

from __future__ import annotations

import copy as _copy
import re
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rlworkbench.core import initializers, observers
from rlworkbench.core.decorators import ApiMethod, ApiSpec, Declared, GraphFnSpec, GraphFunction
from rlworkbench.drawable import pretty_with_draw_hint
from rlworkbench.errors import BuildError, ConfigError, SpaceError

if TYPE_CHECKING:
    from rlworkbench.core.backend import Backend
    from rlworkbench.core.ops import Ops
    from rlworkbench.spaces import Space

_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")


def _snake_case(name: str) -> str:
    """``PreprocessorStack`` → ``preprocessor_stack``; acronyms stay whole: ``DQNLoss`` → ``dqn_loss``,
    ``LSTM`` → ``lstm``, ``Conv2D`` → ``conv2d``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


class Component:
    """A building block of an algorithm: memory, policy, loss, optimizer, preprocessor, …

    Subclasses declare API methods with ``@api`` and graph functions with ``@graph_fn``, and create their
    variables in :meth:`create_variables`, which the build calls once every input of every API method has a
    space. Components talk to each other only through API methods.
    """

    _repr_pretty_ = pretty_with_draw_hint  # in IPython: repr plus how to get the picture

    api_methods: ClassVar[dict[str, ApiSpec]] = {}  # filled per class by __init_subclass__
    graph_fns: ClassVar[dict[str, GraphFnSpec]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        apis: dict[str, ApiSpec] = {}
        fns: dict[str, GraphFnSpec] = {}
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                if isinstance(value, Declared) and attr != value.name:
                    continue  # an alias (a variant registered under another name)
                if isinstance(value, ApiMethod):
                    apis[attr] = value.spec
                    if value.spec.graph_fn is not None:
                        fns[attr] = value.spec.graph_fn
                    else:
                        fns.pop(attr, None)
                elif isinstance(value, GraphFunction):
                    fns[attr] = value.spec
                    apis.pop(attr, None)
                elif attr in apis or attr in fns:  # overridden by a plain attribute
                    apis.pop(attr, None)
                    fns.pop(attr, None)
        cls.api_methods, cls.graph_fns = apis, fns

    def __init__(self, *sub_components: Component, name: str | None = None, device: str | None = None):
        self.name = name or _snake_case(type(self).__name__)
        if not _NAME.match(self.name):
            raise ConfigError("component names may use letters, digits, '_', '-' and '.'", got=repr(self.name))
        self.device = device
        self.parent: Component | None = None
        self.sub_components: dict[str, Component] = {}
        self._reset_build_state()
        self.add_components(*sub_components)

    # ----- structure -----------------------------------------------------------------------------------------
    def add_components(self, *components: Component) -> None:
        """Makes ``components`` sub-components of this one (their names must be unique among siblings)."""
        for component in components:
            if not isinstance(component, Component):
                raise ConfigError("sub-components must be Component instances", component=self.path,
                                  got=type(component).__name__)
            if component.name in self.sub_components:
                raise ConfigError("two sub-components have the same name", component=self.path,
                                  got=component.name)
            if component.parent is not None:
                raise ConfigError(f"already a sub-component of '{component.parent.path}'", component=component.path)
            component.parent = self
            self.sub_components[component.name] = component
        if components:
            observers.notify(self, "structure")

    def replace_component(self, name: str, new: Component) -> Component:
        """Puts ``new`` in the place of sub-component ``name`` (it takes that name); returns the old one, detached.

        The tree needs a new build afterwards; views subscribed with :meth:`on_change` redraw.
        """
        if name not in self.sub_components:
            raise ConfigError("no direct sub-component of this name", component=self.path,
                              expected=sorted(self.sub_components), got=name)
        if not isinstance(new, Component) or new.parent is not None:
            raise ConfigError("the replacement must be a detached Component", component=self.path, argument="new",
                              got=repr(new))
        old, new.name = self.sub_components[name], name
        self.sub_components = {key: (new if key == name else value) for key, value in self.sub_components.items()}
        _repoint_attributes(self, old, new)
        old.parent, new.parent = None, self
        for component in old.walk():
            component._reset_build_state()
        observers.notify(self, "structure")
        return old

    def remove_component(self, name: str) -> Component:
        """Detaches and returns sub-component ``name``."""
        if name not in self.sub_components:
            raise ConfigError("no direct sub-component of this name", component=self.path,
                              expected=sorted(self.sub_components), got=name)
        old = self.sub_components.pop(name)
        old.parent = None
        observers.notify(self, "structure")
        return old

    def on_change(self, listener: Callable[[str, Component], None]) -> Callable[[], None]:
        """Calls ``listener(event, component)`` when the tree at or below this component changes
        (``"structure"``), and, on a root, when a build ends (``"built"``, ``"build_failed"``); returns a function
        that unsubscribes."""
        return observers.subscribe(self, listener)

    @property
    def root(self) -> Component:
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    @property
    def path(self) -> str:
        """Scope path from the root, root name included: ``"dqn/policy/network"``."""
        return self.name if self.parent is None else f"{self.parent.path}/{self.name}"

    def relative_path(self, ancestor: Component) -> str:
        """Path below ``ancestor`` (``""`` for the ancestor itself)."""
        if self is ancestor:
            return ""
        prefix = ancestor.path + "/"
        if not self.path.startswith(prefix):
            raise ConfigError(f"not below '{ancestor.path}'", component=self.path)
        return self.path[len(prefix):]

    def walk(self, skip: Callable[[Component], bool] | None = None) -> Iterator[Component]:
        """This component and all below it, breadth first (without the sub-trees of components ``skip`` names)."""
        queue = [self]
        while queue:
            component = queue.pop(0)
            if skip is not None and skip(component):
                continue
            yield component
            queue.extend(component.sub_components.values())

    def find(self, relative_path: str) -> Component:
        """The sub-component at ``relative_path`` (``""`` is this component)."""
        node = self
        for part in filter(None, relative_path.split("/")):
            if part not in node.sub_components:
                raise ConfigError(f"no sub-component '{part}'", component=node.path,
                                  expected=sorted(node.sub_components), got=relative_path)
            node = node.sub_components[part]
        return node

    # ----- variables -----------------------------------------------------------------------------------------
    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        """Creates this component's variables; ``input_spaces`` maps API parameter names to spaces."""

    def reads_variables_of(self) -> list[Component]:
        """Components whose variables :meth:`create_variables` reads (an optimizer's model, a target network's
        source): the build creates theirs first, whatever the data flow. None by default."""
        return []

    def create_variable(self, name: str, shape: tuple[int, ...] = (), dtype: str = "float32",
                        initializer: Any = "zeros", trainable: bool = True, layout: str = "row_major") -> Any:
        """A backend variable on this component's device, initialised reproducibly from the build seed.

        ``layout="column_major"`` is a storage hint for matrices used as the right operand of a matmul (a
        dense kernel): backends whose matmul is faster that way honour it. Values, shape and weights are the
        same either way.
        """
        if layout not in ("row_major", "column_major"):
            raise ConfigError("unknown variable layout", component=self.path, key_path=name,
                              expected="'row_major' or 'column_major'", got=layout)
        if self.backend is None:
            raise BuildError("variables can only be created during the build", component=self.path)
        if name in self._variables:
            raise BuildError(f"variable '{name}' created twice", component=self.path)
        self._variable_inits[name] = (initializer, tuple(shape), dtype)
        value = self._initial_value(name)
        variable = self.backend.create_variable(self, name, value, trainable, layout)
        self._variables[name] = variable
        self._trainable[name] = trainable and value.dtype.kind == "f"  # only floats take gradients
        return variable

    def _initial_value(self, name: str) -> np.ndarray:
        """The initial value of variable ``name``, made (again) from its initializer and the build seed."""
        initializer, shape, dtype = self._variable_inits[name]
        rng = np.random.default_rng([self._seed, zlib.crc32(f"{self.path}/{name}".encode())])
        value = np.asarray(initializers.initialize(initializer, shape, rng), dtype=dtype)
        if value.shape != shape:
            raise BuildError(f"initializer of '{name}' gave the wrong shape", component=self.path,
                             expected=shape, got=value.shape)
        return value

    def create_random_generator(self, name: str = "rng") -> Any:
        """A backend random generator for ``ops.random_*``, seeded from the build seed and this component's path
        (reproducible, independent of other components). The build leaves it at its seed."""
        if self.backend is None:
            raise BuildError("random generators can only be created during the build", component=self.path)
        seed = int(np.random.default_rng([self._seed, zlib.crc32(f"{self.path}/{name}".encode())]).integers(2**31))
        generator = self.backend.create_generator(self, seed)
        self._generators[name] = (generator, seed)
        return generator

    #: A component whose sub-tree holds replicas of variables kept elsewhere (a strategy's towers): its
    #: variables are not the owner's weights (not in ``variables()``/``get_weights()`` of a component above it).
    holds_replicas: ClassVar[bool] = False

    def variables(self, trainable_only: bool = False) -> dict[str, object]:
        """This component's and its sub-components' variables, by name relative to this component (without
        replicas kept below it: :attr:`holds_replicas`)."""
        found: dict[str, object] = {}
        for component in self.walk(skip=lambda c: c.holds_replicas and c is not self):
            prefix = component.relative_path(self)
            for name, variable in component._variables.items():
                if not trainable_only or component._trainable[name]:
                    found[f"{prefix}/{name}" if prefix else name] = variable
        return found

    def get_weights(self, trainable_only: bool = False) -> dict[str, np.ndarray]:
        """All variable values as NumPy arrays, by scoped name."""
        backend = self._require_built("get_weights")
        return {name: backend.read(v) for name, v in self.variables(trainable_only).items()}

    def set_weights(self, weights: Mapping[str, object], strict: bool = True) -> None:
        """Assigns values by scoped name; checks every name, shape and dtype first, so nothing half-happens."""
        backend = self._require_built("set_weights")
        variables = self.variables()
        missing = sorted(set(variables) - set(weights)) if strict else []
        unknown = sorted(set(weights) - set(variables))
        if missing or unknown:
            raise SpaceError("weights do not match the variables", component=self.path,
                             expected=f"missing none, unknown none (variables: {sorted(variables)})",
                             got=f"missing {missing}, unknown {unknown}")
        checked = {}
        for name, value in weights.items():
            current = backend.read(variables[name])
            array = np.asarray(value)
            if array.shape != current.shape or not np.can_cast(array.dtype, current.dtype, "same_kind"):
                raise SpaceError("weight does not fit its variable", component=self.path, key_path=name,
                                 expected=f"{current.shape} {current.dtype}", got=f"{array.shape} {array.dtype}")
            checked[name] = array.astype(current.dtype)
        for name, array in checked.items():
            backend.assign(variables[name], array)

    def _require_built(self, what: str) -> Backend:
        if self.backend is None:
            raise BuildError(f"{what} needs a built component", component=self.path)
        return self.backend

    # ----- build state ---------------------------------------------------------------------------------------
    @property
    def built(self) -> bool:
        return self._built

    def _reset_build_state(self) -> None:
        """Forgets everything a build attached (variables, spaces, the bound calls)."""
        self._built_calls: dict[Declared, Callable[..., Any]] = {}  # what the build bound (see core.decorators)
        self.backend: Backend | None = None
        # set by the build (core.builder) before any graph function runs, and graph functions are its only users
        self.ops: Ops = None  # type: ignore[assignment]
        self.input_spaces: dict[str, Space] = {}
        self.resolved_device: str | None = None
        self._variables: dict[str, object] = {}
        self._variable_inits: dict[str, tuple[Any, tuple[int, ...], Any]] = {}
        self._trainable: dict[str, bool] = {}
        self._generators: dict[str, tuple[Any, int]] = {}
        self._built = False
        self._seed = 0

    def copy(self, name: str | None = None, device: str | None = None) -> Component:
        """An unbuilt deep copy (sub-components included), e.g. for a replica on another device."""
        memo: dict[int, object] = {id(self.parent): None}
        for component in self.walk():
            memo.update({id(v): None for v in component._variables.values()})
            memo.update({id(g): None for g, _ in component._generators.values()})
            memo[id(component.backend)] = None
            memo[id(component.ops)] = component.ops
            memo[id(component._built_calls)] = None  # bound to the original; the copy is reset below
            towers = getattr(component, "replicated_by", None)
            if towers is not None:
                memo[id(towers)] = None  # a copy is not replicated (a strategy's towers stay with the original)
        duplicate = _copy.deepcopy(self, memo)
        for component in duplicate.walk():
            component._reset_build_state()
        duplicate.parent = None
        if name is not None:
            duplicate.name = name
        if device is not None:
            duplicate.device = device
        return duplicate

    def __repr__(self) -> str:
        return f"{type(self).__name__}('{self.path}')"


def _repoint_attributes(owner: Component, old: Component, new: Component) -> None:
    """Where ``owner`` keeps ``old`` in an attribute (directly or in a list, tuple or dict), keep ``new`` instead."""
    swap = lambda value: new if value is old else value  # noqa: E731
    for attr, value in list(vars(owner).items()):
        if attr in ("parent", "sub_components"):
            continue
        if value is old:
            setattr(owner, attr, new)
        elif isinstance(value, list) and any(v is old for v in value):
            value[:] = [swap(v) for v in value]
        elif isinstance(value, tuple) and any(v is old for v in value):
            setattr(owner, attr, type(value)(*map(swap, value)) if hasattr(value, "_fields")
                    else tuple(map(swap, value)))
        elif isinstance(value, dict) and any(v is old for v in value.values()):
            value.update({k: new for k, v in value.items() if v is old})
