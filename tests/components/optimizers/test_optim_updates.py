"""SGD, Adam and RMSProp: several steps against NumPy references of the same rules, torch vs TF, clipping."""

from __future__ import annotations

import numpy as np
import pytest
from optim_numpy import ReferenceOptimizer, Regression, mse_and_grads

from rlworkbench.components import SGD, Adam, RMSProp, from_spec
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest

RANKS = {"batch": {"add_batch_rank": True}, "batch_time": {"add_batch_rank": True, "add_time_rank": True},
         "time_major": {"add_batch_rank": True, "add_time_rank": True, "time_major": True}}

# name -> (component class, config, NumPy rule)
CASES = {
    "sgd": (SGD, {"learning_rate": 0.1}, "sgd"),
    "sgd_momentum": (SGD, {"learning_rate": 0.05, "momentum": 0.9}, "sgd"),
    "adam": (Adam, {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6}, "adam"),
    "rmsprop": (RMSProp, {"learning_rate": 0.01, "decay": 0.9, "momentum": 0.0, "epsilon": 1e-6}, "rmsprop"),
    "rmsprop_momentum": (RMSProp, {"learning_rate": 0.01, "decay": 0.95, "momentum": 0.5, "epsilon": 1e-6},
                         "rmsprop"),
    "sgd_clip_norm": (SGD, {"learning_rate": 0.1, "clip_grad_norm": 0.2}, "sgd"),
    "adam_clip_value": (Adam, {"learning_rate": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8,
                               "clip_grad_value": 0.05}, "adam"),
    "rmsprop_clip_both": (RMSProp, {"learning_rate": 0.01, "decay": 0.9, "momentum": 0.3, "epsilon": 1e-6,
                                    "clip_grad_value": 0.3, "clip_grad_norm": 0.25}, "rmsprop"),
}
STEPS = 4


def spaces(ranks: dict[str, bool]) -> dict[str, FloatBox]:
    return {"x": FloatBox(-2.0, 2.0, shape=(3,), **ranks), "y": FloatBox(-1.0, 1.0, shape=(2,), **ranks)}


def batches(input_spaces: dict[str, FloatBox], size) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(input_spaces["x"].sample(size, seed=10 + i), input_spaces["y"].sample(size, seed=20 + i))
            for i in range(STEPS)]


def run_steps(backend: str, case: str, input_spaces, data, by_path: bool = True):
    cls, config, _ = CASES[case]
    root = Regression(lambda model: cls(variables_of="model" if by_path else model, **config))
    test = ComponentTest(root, input_spaces, backend=backend, seed=7)
    initial = test.variable_values("model/kernel", "model/bias")
    outputs = [test.test(("update", [x, y])) for x, y in data]
    return test, initial, outputs


@pytest.mark.parametrize("case", sorted(CASES))
def test_steps_match_the_numpy_rule(backend, case):
    input_spaces = spaces(RANKS["batch"])
    data = batches(input_spaces, 5)
    test, (kernel, bias), outputs = run_steps(backend, case, input_spaces, data)
    _, config, rule = CASES[case]
    reference = ReferenceOptimizer(rule, config["learning_rate"], **{k: v for k, v in config.items()
                                                                       if k != "learning_rate"})
    params = [kernel.astype(np.float64), bias.astype(np.float64)]
    for (x, y), (loss, norm) in zip(data, outputs):
        expected_loss, grads = mse_and_grads(*params, x, y)
        params, expected_norm = reference.step(params, grads)
        assert loss.dtype == np.float32 and loss.shape == () and norm.shape == ()
        np.testing.assert_allclose([loss, norm], [expected_loss, expected_norm], rtol=1e-5)
    np.testing.assert_allclose(test.variable_values("model/kernel"), params[0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(test.variable_values("model/bias"), params[1], rtol=1e-4, atol=1e-6)
    assert test.variable_values(f"{test.component.optimizer.name}/steps") == STEPS
    assert test.graph.output_space("update") == (FloatBox(), FloatBox())


@pytest.mark.parametrize("case", ["sgd_clip_norm", "adam", "rmsprop_momentum"])
def test_torch_and_tf_take_the_same_steps(backend, case):
    """Same seed, same data: both backends end with the same weights and optimizer state. Each run of this test
    builds both backends; the ``backend`` parameter picks the rank layout (batch-major or time-major)."""
    input_spaces = spaces(RANKS["batch_time" if backend == "torch" else "time_major"])
    data = batches(input_spaces, (3, 4))
    results = {name: run_steps(name, case, input_spaces, data, by_path=False) for name in ("torch", "tf")}
    (torch_test, torch_init, torch_out), (tf_test, tf_init, tf_out) = results["torch"], results["tf"]
    np.testing.assert_array_equal(torch_init[0], tf_init[0])
    np.testing.assert_allclose(np.array(torch_out), np.array(tf_out), rtol=1e-6, atol=1e-7)
    torch_weights, tf_weights = torch_test.variable_values(), tf_test.variable_values()
    assert list(torch_weights) == list(tf_weights)
    for name, value in torch_weights.items():
        np.testing.assert_allclose(tf_weights[name], value, rtol=1e-5, atol=1e-7, err_msg=name)
    # ... and the trained model predicts the same on both
    x = input_spaces["x"].sample((2, 3), seed=backend == "tf")
    np.testing.assert_allclose(tf_test.test(("predict", x)), torch_test.test(("predict", x)), rtol=1e-5, atol=1e-6)


def test_clipping_is_active_where_configured(backend):
    """With a tiny clip norm the update has exactly that norm: lr * clip; the reported norm is the unclipped one."""
    input_spaces = spaces(RANKS["batch"])
    x, y = batches(input_spaces, 8)[0]
    test = ComponentTest(Regression(lambda model: SGD(1.0, variables_of=model, clip_grad_norm=1e-3)), input_spaces,
                         backend=backend, seed=3)
    before = test.variable_values()
    _, norm = test.test(("update", [x, y]))
    after = test.variable_values()
    change = np.sqrt(sum(np.sum((after[k] - before[k]) ** 2) for k in ("model/kernel", "model/bias")))
    np.testing.assert_allclose(change, 1e-3, rtol=1e-3)
    _, grads = mse_and_grads(before["model/kernel"], before["model/bias"], x, y)
    np.testing.assert_allclose(norm, np.sqrt(sum(np.sum(g ** 2) for g in grads)), rtol=1e-5)
    assert norm > 1e-2


def test_optimizer_from_a_spec(backend):
    """A JSON-style spec with ``variables_of`` as a path; state variables are named ``<slot>/<variable path>``."""
    root = Regression(lambda model: from_spec({"type": "adam", "learning_rate": 0.01, "variables_of": "model"}))
    test = ComponentTest(root, spaces(RANKS["batch"]), backend=backend)
    assert sorted(test.variable_values()) == ["adam/m/model/bias", "adam/m/model/kernel", "adam/steps",
                                              "adam/v/model/bias", "adam/v/model/kernel", "model/bias",
                                              "model/kernel"]
    assert list(root.optimizer.variables_to_optimize) == ["model/kernel", "model/bias"]
    assert list(root.variables(trainable_only=True)) == ["model/kernel", "model/bias"]  # slots are not trainable
    assert test.graph.requires_grad("update") and not test.graph.requires_grad("predict")


def test_reference_rules_are_torch_optim(backend):
    """The NumPy rules the tests trust are those of torch.optim (same data, float64, no clipping)."""
    if backend != "torch":
        pytest.skip("checks the NumPy reference itself: once is enough")
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    start = [rng.normal(size=(3, 2)), rng.normal(size=(2,))]
    data = [(rng.normal(size=(6, 3)), rng.normal(size=(6, 2))) for _ in range(STEPS)]
    makers = {
        "sgd_momentum": lambda p, c: torch.optim.SGD(p, lr=c["learning_rate"], momentum=c["momentum"]),
        "adam": lambda p, c: torch.optim.Adam(p, lr=c["learning_rate"], betas=(c["beta1"], c["beta2"]),
                                              eps=c["epsilon"]),
        "rmsprop_momentum": lambda p, c: torch.optim.RMSprop(p, lr=c["learning_rate"], alpha=c["decay"],
                                                             eps=c["epsilon"], momentum=c["momentum"]),
    }
    for case, make in makers.items():
        _, config, rule = CASES[case]
        params = [torch.tensor(a, requires_grad=True) for a in start]
        optimizer = make(params, config)
        reference = ReferenceOptimizer(rule, config["learning_rate"], **{k: v for k, v in config.items()
                                                                           if k != "learning_rate"})
        ours = [a.copy() for a in start]
        for x, y in data:
            optimizer.zero_grad()
            loss = ((torch.tensor(x) @ params[0] + params[1] - torch.tensor(y)) ** 2).mean()
            loss.backward()
            optimizer.step()
            ours, _ = reference.step(ours, mse_and_grads(*ours, x, y)[1])
        for mine, theirs in zip(ours, params):
            np.testing.assert_allclose(mine, theirs.detach().numpy(), rtol=1e-10, err_msg=case)
