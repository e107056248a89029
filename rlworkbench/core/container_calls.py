"""How a graph function sees container arguments: flattened, or split into one call per leaf.

Written once for every backend: it moves nested Python structures of tensors around and never touches a
tensor itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlworkbench import nest
from rlworkbench.core.decorators import GraphFnSpec
from rlworkbench.errors import SpaceError


def with_container_options(spec: GraphFnSpec, body: Callable[..., object]) -> Callable[..., Any]:
    """``body`` wrapped according to the spec's ``flatten`` / ``split`` / ``pass_key`` options."""
    if spec.split:
        return _split_calls(spec, body)
    if spec.flatten:
        return _flattened_call(spec, body)
    return body


def _flattened_call(spec: GraphFnSpec, body: Callable[..., object]) -> Callable[..., Any]:
    def call(component: Any, *args: object, **kwargs: object) -> Any:
        template = next((a for a in args if nest.is_container(a)), None)
        flat_args = [nest.flatten(a) if nest.is_container(a) else a for a in args]
        result = body(component, *flat_args, **kwargs)
        if template is None:
            return result
        keys = set(nest.flatten(template))

        def renest(output: Any) -> Any:
            return nest.unflatten_as(template, output) if isinstance(output, dict) and set(output) == keys else output

        return tuple(renest(r) for r in result) if spec.num_returns(component) > 1 else renest(result)

    return call


def _split_calls(spec: GraphFnSpec, body: Callable[..., object]) -> Callable[..., Any]:
    def call(component: Any, *args: object, **kwargs: object) -> Any:
        positions = [i for i, a in enumerate(args) if nest.is_container(a)]
        if not positions:
            return body(component, "", *args, **kwargs) if spec.pass_key else body(component, *args, **kwargs)
        template = args[positions[0]]
        flats = [nest.flatten(args[i]) for i in positions]
        count = spec.num_returns(component)
        outputs: list[dict[str, object]] = [{} for _ in range(count)]
        for key in flats[0]:
            leaf_args = list(args)
            for position, flat in zip(positions, flats):
                if key not in flat:
                    raise SpaceError("split graph function needs container arguments of one structure",
                                     graph_fn=spec.name, key_path=key, expected=sorted(flats[0]),
                                     got=sorted(flat))
                leaf_args[position] = flat[key]
            result = body(component, key, *leaf_args, **kwargs) if spec.pass_key else \
                body(component, *leaf_args, **kwargs)
            for index in range(count):
                outputs[index][key] = result if count == 1 else result[index]
        renested = [nest.unflatten_as(template, flat) for flat in outputs]
        return renested[0] if count == 1 else tuple(renested)

    return call
