"""Importing rlworkbench (and assembling a graph) imports no framework: backends load lazily."""

from __future__ import annotations

import subprocess
import sys
import textwrap

FRAMEWORKS = ("torch", "tensorflow", "ray")


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False,
                          timeout=60)


def test_importing_rlworkbench_imports_no_framework():
    result = _run(f"""
        import sys
        import rlworkbench, rlworkbench.core, rlworkbench.spaces, rlworkbench.backends, rlworkbench.testing
        loaded = [m for m in {FRAMEWORKS!r} if m in sys.modules]
        assert not loaded, loaded
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_assembly_is_backend_independent():
    result = _run(f"""
        import sys
        from rlworkbench import Component, api, graph_fn
        from rlworkbench.core import assemble

        class Double(Component):
            @api
            def apply(self, x):
                return self._double(x)

            @graph_fn
            def _double(self, x):
                return x * 2

        class Root(Component):
            def __init__(self):
                super().__init__(Double(name="double"), name="root")

            @api
            def run(self, x):
                return self.sub_components["double"].apply(x)

        graph = assemble(Root())
        assert [c.path for c in graph.components] == ["root", "root/double"], graph.components
        assert len(graph.edges) == 1
        loaded = [m for m in {FRAMEWORKS!r} if m in sys.modules]
        assert not loaded, loaded
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_the_check_would_see_a_framework_import():
    result = _run("""
        import sys
        import rlworkbench
        from rlworkbench.core import get_backend
        get_backend("torch")
        assert "torch" in sys.modules
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
