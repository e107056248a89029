"""An uncaught BuildError in an IPython cell shows the traceback and then draws the partial graph — after
``%load_ext rlworkbench``, or :func:`show_build_errors_as_graphs` for a given shell; importing rlworkbench (or its
workbench) installs nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from rlworkbench.workbench import show_build_errors_as_graphs

CELL = """
import sys
sys.path.insert(0, {core!r})
from core_components import STATES
from test_build_cycles import Learner
from rlworkbench import build
build(Learner(complete=True), {{"x": STATES}})
"""


@pytest.fixture
def shell():
    shell = InteractiveShell.instance()
    yield shell
    shell.set_custom_exc((), None)
    InteractiveShell.clear_instance()


def test_an_uncaught_build_error_draws_its_graph(shell, request):
    assert show_build_errors_as_graphs(shell)
    core = str(request.config.rootpath / "tests" / "core")
    with capture_output() as captured:
        result = shell.run_cell(CELL.format(core=core))
    assert result.error_in_exec is not None and type(result.error_in_exec).__name__ == "BuildError"
    assert "BuildError" in captured.stdout  # the traceback is still shown
    svgs = [output.data.get("image/svg+xml", "") for output in captured.outputs]
    assert any("stuck on torch" in svg and "priorities" in svg for svg in svgs)


def test_outside_ipython_nothing_is_installed():
    assert show_build_errors_as_graphs() is False


def test_a_handler_the_user_installed_is_left_alone(shell):
    def mine(*args, **kwargs):
        return None

    shell.set_custom_exc((ValueError,), mine)
    assert show_build_errors_as_graphs(shell) is False
    assert shell.custom_exceptions == (ValueError,)


def run_in_fresh_shell(code: str) -> list[str]:
    """The words ``code`` prints, run in a new process with an IPython shell (``shell``) already running."""
    preamble = ("import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
                "shell = InteractiveShell.instance()\n")
    done = subprocess.run([sys.executable, "-c", preamble + code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_importing_the_workbench_leaves_ipythons_exception_handler_alone():
    out = run_in_fresh_shell("""
shell.run_cell("import rlworkbench.workbench")
print(shell.custom_exceptions == (), "rlworkbench.workbench" in sys.modules)
""")
    assert out == ["True", "True"]


def test_load_ext_rlworkbench_draws_an_uncaught_build_error(request):
    core = str(request.config.rootpath / "tests" / "core")
    out = run_in_fresh_shell(f"""
from IPython.utils.capture import capture_output
shell.run_line_magic("load_ext", "rlworkbench")
installed = [error.__name__ for error in shell.custom_exceptions]
with capture_output() as captured:
    shell.run_cell({CELL.format(core=core)!r})
drawn = any("stuck on torch" in output.data.get("image/svg+xml", "") for output in captured.outputs)
print(installed, "BuildError" in captured.stdout, drawn, "rlworkbench.workbench" in sys.modules)
""")
    assert out == ["['BuildError']", "True", "True", "False"]  # the traceback, then the graph; no workbench import
