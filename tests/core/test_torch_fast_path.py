"""The fast path: built API methods are the user's functions, bound; autograd only where gradients are taken;
assembly and call handlers work per thread on built trees."""

from __future__ import annotations

import threading
import types

import numpy as np
import pytest
import torch
from core_components import STATES, Agent, Linear

from rlworkbench import BuildError, Component, api, build, graph_fn
from rlworkbench.core import call_modes
from rlworkbench.core.assembly import assemble
from rlworkbench.spaces import FloatBox


class Trainer(Component):
    """``predict`` never takes gradients; ``grad_norm`` calls backward inside a requires_grad graph fn."""

    def __init__(self):
        self.layer = Linear(1, name="layer")
        super().__init__(self.layer, name="trainer")
        self.grad_enabled: dict[str, bool] = {}

    @api
    def predict(self, x):
        return self._observe(self.layer.apply(x))

    @api
    def grad_norm(self, x):
        return self._grad_norm(self.layer.apply(x))

    @api
    def loss(self, x):
        return self._loss(self.layer.apply(x))

    @graph_fn(requires_grad=True)
    def _loss(self, y):
        return (y ** 2).mean()

    @graph_fn
    def _observe(self, y):
        self.grad_enabled["predict"] = torch.is_grad_enabled()
        return y

    @graph_fn(requires_grad=True)
    def _grad_norm(self, y):
        self.grad_enabled["grad_norm"] = torch.is_grad_enabled()
        self.layer.kernel.grad = None
        (y ** 2).sum().backward()
        return self.layer.kernel.grad.norm()


SPACE = FloatBox(shape=(3,), add_batch_rank=True)


def test_no_autograd_graph_where_no_gradients_are_taken():
    trainer = Trainer()
    executor = build(trainer, {"x": SPACE}, seed=0)
    out = executor.execute("predict", SPACE.sample(2, seed=0), as_numpy=False)
    assert trainer.grad_enabled["predict"] is False
    assert not out.requires_grad and out.grad_fn is None
    assert not executor.graph.requires_grad("predict")


def test_autograd_where_a_graph_fn_requires_grad():
    trainer = Trainer()
    executor = build(trainer, {"x": SPACE}, seed=0)
    assert executor.graph.requires_grad("grad_norm")
    x = SPACE.sample(4, seed=0)
    norm = executor.execute("grad_norm", x)
    assert trainer.grad_enabled["grad_norm"] is True
    kernel, bias = trainer.layer.get_weights()["kernel"], trainer.layer.get_weights()["bias"]
    y = x @ kernel + bias
    expected = np.linalg.norm(2 * x.T @ y)
    np.testing.assert_allclose(norm, expected, rtol=1e-4)


def test_a_requires_grad_api_returns_a_differentiable_tensor():
    trainer = Trainer()
    executor = build(trainer, {"x": SPACE}, seed=0)
    loss = executor.execute("loss", SPACE.sample(4, seed=0), as_numpy=False)
    assert loss.requires_grad and loss.grad_fn is not None
    loss.backward()
    assert trainer.layer.kernel.grad is not None and trainer.layer.kernel.grad.shape == (3, 1)
    assert isinstance(executor.execute("loss", SPACE.sample(4, seed=0)), np.ndarray)


def test_sub_component_calls_get_their_own_grad_mode():
    trainer = Trainer()
    executor = build(trainer, {"x": SPACE}, seed=0)
    out = executor.call("layer", "apply", SPACE.sample(2, seed=0), as_numpy=False)
    assert out.grad_fn is None


def test_built_api_methods_are_plain_bound_user_functions():
    root = Agent()
    build(root, {"states": STATES}, seed=0)
    for component in root.walk():
        for name, spec in component.api_methods.items():
            bound = getattr(component, name)
            assert type(bound) is types.MethodType
            assert bound.__func__ is spec.fn and bound.__self__ is component
            assert name not in vars(component)  # nothing is patched onto the instance
        for name, spec in component.graph_fns.items():
            bound = getattr(component, name)
            assert type(bound) is types.MethodType and bound.__func__ is spec.fn
    assert root.act.__func__ is Agent.api_methods["act"].fn
    x = STATES.sample(2, seed=0)
    out = root.act(torch.from_numpy(x))  # callable directly on tensors, no recording
    assert isinstance(out, torch.Tensor) and out.shape == (2, 2)


def test_a_rebuild_binds_anew_and_an_unbuilt_component_says_so():
    root = Agent()
    build(root, {"states": STATES}, seed=0)
    first = root.act
    build(root, {"states": STATES}, seed=0)
    assert root.act is not first and root.act.__func__ is first.__func__
    with pytest.raises(BuildError, match="not built") as info:
        Agent().act(torch.zeros(1, 3))
    assert info.value.api_method == "act"


def test_a_built_tree_assembles_in_place_while_another_thread_calls_it():
    """Drawing assembles the built tree itself (no copy); its recording is local to the assembling thread."""
    root = Agent()
    executor = build(root, {"states": STATES}, seed=0)
    x = STATES.sample(4, seed=1)
    expected = executor.execute("act", x)
    stop, results, errors = threading.Event(), [], []

    def keep_acting():
        while not stop.is_set():
            try:
                results.append(executor.execute("act", x))
            except Exception as error:  # pragma: no cover - what the test must not see
                errors.append(error)

    thread = threading.Thread(target=keep_acting)
    thread.start()
    try:
        for _ in range(30):
            graph = assemble(root, ["act"])
            assert [call.name for call in graph.api_calls][:2] == ["act", "apply"]
    finally:
        stop.set()
        thread.join()
    assert not errors and results
    for result in results:
        np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(root.act(torch.from_numpy(x)).detach().numpy(), expected)


def test_a_call_handler_affects_only_its_own_thread():
    root = Agent()
    build(root, {"states": STATES}, seed=0)
    seen = []

    def handler(declared, component):
        bound = component._built_calls[declared]

        def traced(*args, **kwargs):
            seen.append(f"{component.name}.{declared.name}")
            return bound(*args, **kwargs)

        return traced

    other_thread_calls = []
    with call_modes.intercepting(handler):
        root.act(torch.zeros(1, 3))
        worker = threading.Thread(target=lambda: other_thread_calls.append(root.act(torch.zeros(1, 3))))
        worker.start()
        worker.join()
    assert seen[:3] == ["agent.act", "net.apply", "dense_0.apply"]
    count = len(seen)
    assert other_thread_calls and len(seen) == count  # the other thread's calls were not intercepted
    root.act(torch.zeros(1, 3))
    assert len(seen) == count and call_modes.active == 0
