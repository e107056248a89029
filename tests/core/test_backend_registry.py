"""The backend registry: names to lazily imported backends; the default from RLWORKBENCH_BACKEND."""

from __future__ import annotations

import pytest

from rlworkbench import ConfigError
from rlworkbench.core import backend as backend_module
from rlworkbench.core.backend import BACKEND_ENV_VAR, default_backend_name, get_backend


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        get_backend("jax")
    assert info.value.got == "jax"
    assert {"torch", "tf"} <= set(info.value.expected)
    assert "torch" in str(info.value) and "jax" in str(info.value)


def test_backends_are_singletons_by_name():
    torch_backend = get_backend("torch")
    assert torch_backend.name == "torch" and get_backend("torch") is torch_backend
    assert get_backend(torch_backend) is torch_backend


def test_env_var_picks_the_default(monkeypatch):
    monkeypatch.delenv(BACKEND_ENV_VAR, raising=False)
    assert default_backend_name() == "torch"
    assert get_backend().name == "torch"
    monkeypatch.setenv(BACKEND_ENV_VAR, "nope")
    assert default_backend_name() == "nope"
    with pytest.raises(ConfigError) as info:
        get_backend()
    assert info.value.got == "nope"


def test_env_var_default_is_used_by_build(monkeypatch):
    from core_components import STATES, Agent

    from rlworkbench import build

    monkeypatch.setenv(BACKEND_ENV_VAR, "nope")
    with pytest.raises(ConfigError):
        build(Agent(), {"states": STATES})
    monkeypatch.setenv(BACKEND_ENV_VAR, "torch")
    assert build(Agent(), {"states": STATES}).graph.backend_name == "torch"


def test_registered_backends_resolve_lazily(monkeypatch):
    monkeypatch.setitem(backend_module._REGISTRY, "alias", "rlworkbench.backends.torch:TorchBackend")
    monkeypatch.delitem(backend_module._INSTANCES, "alias", raising=False)
    assert get_backend("alias").name == "torch"
    monkeypatch.delitem(backend_module._INSTANCES, "alias")
    assert "alias" in list(backend_module.available_backends())


def test_a_registered_backend_that_cannot_be_imported(monkeypatch):
    monkeypatch.setitem(backend_module._REGISTRY, "ghost", "rlworkbench.backends.ghost:GhostBackend")
    with pytest.raises(ConfigError) as info:
        get_backend("ghost")
    assert info.value.got == "ghost" and "torch" in info.value.expected
    assert "ghost" not in list(backend_module.available_backends())
