"""Importing ``rlworkbench.workbench`` and every module under it and under ``rlworkbench.lab`` changes nothing in the
process: no environment variable, atexit hook, logging handler/filter/level, thread, excepthook, warnings filter,
signal handler, ``sys.path`` entry or file. Whatever must happen does so when the thing that needs it starts.

Measured in fresh interpreters: the first lists the modules (skipping those whose import needs a missing extra) and
the third-party modules they pull in; the second imports those third-party modules first (their own import effects —
Ray's logging handlers, TensorFlow's threads — are not ours), takes a snapshot, imports ours and compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PACKAGES = ("rlworkbench.workbench", "rlworkbench.lab")

LIST_MODULES = """
import importlib, json, pkgutil, sys
from rlworkbench.errors import MissingExtra

ours, skipped = [], {}
def note_skip(name, error):
    skipped[name] = f"{type(error).__name__}: {error}"
def load(name):
    try:
        importlib.import_module(name)
    except MissingExtra as error:
        return note_skip(name, error)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] == "rlworkbench":
            raise
        return note_skip(name, error)
    ours.append(name)
def walk_error(name):
    error = sys.exc_info()[1]
    if not isinstance(error, (MissingExtra, ModuleNotFoundError)):
        raise error
    note_skip(name, error)
for package in PACKAGES:
    load(package)
    if package in ours:
        for info in pkgutil.walk_packages(sys.modules[package].__path__, package + ".", onerror=walk_error):
            load(info.name)
others = [name for name, module in list(sys.modules.items())
          if module is not None and name.split(".")[0] not in ("rlworkbench", "__main__", "__mp_main__")]
print(json.dumps({"ours": ours, "skipped": skipped, "others": others}))
"""

PROBE = r"""
import atexit, importlib, json, logging, os, signal, sys, threading, warnings

plan = json.loads(sys.stdin.read())
for name in plan["others"]:  # their import effects are theirs: part of the baseline
    try:
        importlib.import_module(name)
    except BaseException:
        pass

def described(thing):
    return f"{getattr(thing, '__qualname__', type(thing).__qualname__)}@{id(thing):x}"

def files(roots):
    return sorted(os.path.join(folder, name) for root in roots for folder, dirs, names in os.walk(root)
                  for name in dirs + names)

def snapshot():
    loggers = {"<root>": logging.getLogger()}
    loggers.update((name, logger) for name, logger in logging.Logger.manager.loggerDict.items()
                   if isinstance(logger, logging.Logger))
    return {
        "os.environ": dict(os.environ),
        "atexit callbacks": atexit._ncallbacks(),
        "loggers": {name: {"level": logger.level, "propagate": logger.propagate, "disabled": logger.disabled,
                           "handlers": [described(handler) for handler in logger.handlers],
                           "filters": [described(filter) for filter in logger.filters]}
                    for name, logger in loggers.items()},
        "logging.disable": logging.root.manager.disable,
        "threads": sorted(f"{thread.name} ({thread.ident})" for thread in threading.enumerate()),
        "sys.excepthook": described(sys.excepthook),
        "threading.excepthook": described(threading.excepthook),
        "sys.unraisablehook": described(sys.unraisablehook),
        "warnings.filters": [repr(entry) for entry in warnings.filters],
        "signal handlers": {str(number): repr(signal.getsignal(number))
                            for number in signal.valid_signals()
                            if number < signal.NSIG and number not in (signal.SIGKILL, signal.SIGSTOP)},
        "sys.path": list(sys.path),
        "sys.meta_path": [described(finder) for finder in sys.meta_path],
        "files": files(plan["roots"]),
    }

NEW_LOGGER = {"level": 0, "propagate": True, "disabled": False, "handlers": [], "filters": []}

def changes(before, after):
    found = {}
    for key in before:
        old, new = before[key], after[key]
        if key == "loggers":  # a logger made by getLogger(__name__) is no change; one configured is
            diff = {name: {"before": old.get(name, NEW_LOGGER), "after": state} for name, state in new.items()
                    if state != old.get(name, NEW_LOGGER)}
        elif isinstance(old, dict):
            diff = {name: {"before": old.get(name), "after": new.get(name)}
                    for name in sorted(set(old) | set(new)) if old.get(name) != new.get(name)}
        elif isinstance(old, list) and key in ("threads", "files"):
            diff = {"added": sorted(set(new) - set(old)), "removed": sorted(set(old) - set(new))}
            diff = {side: items for side, items in diff.items() if items}
        else:
            diff = {"before": old, "after": new} if old != new else {}
        if diff:
            found[key] = diff
    return found

before = snapshot()
for name in plan["ours"]:
    importlib.import_module(name)
after = snapshot()
print("CHANGES " + json.dumps(changes(before, after), indent=1, default=repr))
"""


def run_python(code: str, tmp_path: Path, stdin: str = "", home: Path | None = None) -> str:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if home is not None:
        env.update(HOME=str(home), RLWORKBENCH_RUNS_DIR=str(home / "runs"))
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=600,
                          env=env, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr[-6000:]
    return done.stdout


def test_importing_the_workbench_and_lab_changes_nothing(tmp_path):
    listing = run_python(f"PACKAGES = {PACKAGES!r}\n" + LIST_MODULES, tmp_path)
    plan = json.loads(listing.strip().splitlines()[-1])
    assert "rlworkbench.workbench" in plan["ours"], plan["skipped"]
    assert len(plan["ours"]) > 50  # the walk found the modules (the few needing a missing extra are skipped)

    home, work = tmp_path / "home", tmp_path / "work"
    (home / "runs").mkdir(parents=True)
    work.mkdir()
    plan["roots"] = [str(home), str(work)]
    probed = run_python(PROBE, work, stdin=json.dumps(plan), home=home)
    report = probed.split("CHANGES ", 1)[1]
    changed = json.loads(report)
    assert not changed, f"importing {len(plan['ours'])} modules of {PACKAGES} changed the process:\n{report}"


def test_an_exit_hook_is_registered_once_on_first_use():
    import atexit

    from rlworkbench.workbench.exit_hooks import at_exit_once

    calls = []

    def hook() -> None:
        calls.append(1)

    before = atexit._ncallbacks()
    try:
        at_exit_once(hook)
        at_exit_once(hook)
        assert atexit._ncallbacks() == before + 1
    finally:
        atexit.unregister(hook)


def test_a_sweep_settles_tune_when_it_starts_and_only_once(monkeypatch):
    import logging

    from rlworkbench.workbench.experiments import driver

    for name in driver.TUNE_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TUNE_GLOBAL_CHECKPOINT_S", "7")  # a value of the user's own stays
    logger = logging.getLogger("ray.tune.analysis.experiment_analysis")
    monkeypatch.setattr(logger, "filters", [])
    driver.settle_tune()
    driver.settle_tune()
    assert {name: os.environ[name] for name in driver.TUNE_SETTINGS} == {
        "TUNE_DISABLE_AUTO_CALLBACK_LOGGERS": "1", "RAY_AIR_NEW_OUTPUT": "0", "TUNE_GLOBAL_CHECKPOINT_S": "7"}
    assert len(logger.filters) == 1
    missing = logging.LogRecord(logger.name, logging.WARNING, __file__, 1, "Failed to fetch metrics for x", (), None)
    assert not logger.filter(missing)


LIVE_RUN_AT_EXIT = """
import sys
sys.path.insert(0, {root!r})
from rlworkbench.workbench.promote import promote
from tests.workbench.run_helpers import small_dqn, wait_until

run = promote(small_dqn(), timesteps=10**9, logdir={logdir!r}, seed=0)
wait_until(lambda: run.state == "running", 120, "the run to train")
print(run.logdir, flush=True)
"""  # and the interpreter exits with the run going


def test_a_run_still_going_at_exit_saves_its_final_checkpoint(tmp_path, request):
    """The exit hook that importing no longer registers is registered by the first run that starts."""
    code = LIVE_RUN_AT_EXIT.format(root=str(request.config.rootpath), logdir=str(tmp_path / "logs"))
    logdir = Path(run_python(code, tmp_path).strip().splitlines()[-1])
    assert (logdir / "checkpoints" / "final").exists(), sorted(p.name for p in logdir.rglob("*"))
