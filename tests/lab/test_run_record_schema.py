"""The run-record contract is written once (rlworkbench/workbench/run_record.schema.json): the records a real run
writes, and the runs reply built from them, validate against it; Python's state Literals are its enums; the lab
extension's types (src/runRecord.generated.ts) are a fresh generation from it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import typing
from pathlib import Path

import jsonschema
import pytest

from rlworkbench.lab.handlers import split_records
from rlworkbench.workbench import promote
from rlworkbench.workbench.experiments.records import TRIAL_STATES
from rlworkbench.workbench.run_record_schema import enum_of, record_schema, record_validator
from rlworkbench.workbench.run_records import LIVE_STATES, RecordState, read_records
from rlworkbench.workbench.targets import known_targets
from rlworkbench.workbench.targets.base import DONE_STATES, BuiltinTarget, RunState
from tests.workbench.run_helpers import small_dqn, wait_until

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "scripts" / "run_record_types.py"


def generator():
    spec = importlib.util.spec_from_file_location("run_record_types", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problems(definition: str, instance: dict) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in record_validator(definition).iter_errors(instance)]


def test_the_schema_is_valid_and_its_enums_are_pythons_literals():
    schema = record_schema()
    jsonschema.validators.validator_for(schema).check_schema(schema)
    assert typing.get_args(RecordState) == enum_of("RunState")
    assert set(typing.get_args(RunState)) == set(LIVE_STATES) | DONE_STATES
    assert TRIAL_STATES == enum_of("TrialState")
    assert set(typing.get_args(BuiltinTarget)) <= set(known_targets())


def test_the_committed_typescript_is_a_fresh_generation():
    check = subprocess.run([sys.executable, str(GENERATOR), "--check"], check=False, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_the_generator_follows_the_schema_and_refuses_what_it_cannot_translate():
    module = generator()
    schema = {"$defs": {"Color": {"enum": ["red", "blue"]},
                        "Base": {"type": "object", "required": ["a"],
                                 "properties": {"a": {"type": ["integer", "null"]}, "b": {"$ref": "#/$defs/Color"}}},
                        "Served": {"$ref": "#/$defs/Base", "required": ["c"], "properties": {"c": {"type": "string"}},
                                   "unevaluatedProperties": False}}}
    text = module.typescript(schema)
    assert "export type Color = 'red' | 'blue';" in text
    assert "export interface IBase {\n  a: number | null;\n  b?: Color;\n}" in text
    assert "export interface IServed extends IBase {\n  c: string;\n}" in text
    with pytest.raises(module.SchemaSubsetError, match="patternProperties"):
        module.typescript({"$defs": {"Odd": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}}})


def test_a_real_runs_records_and_the_runs_reply_follow_the_schema(tmp_path, monkeypatch):
    runs = tmp_path / "records"
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(runs))
    run = promote(small_dqn(), timesteps=1500, logdir=tmp_path / "logs", seed=0)
    first = wait_until(lambda: next((r for r in read_records(runs) if r["id"] == run.id), None), 30, "a record")
    assert first["state"] in LIVE_STATES and problems("RunRecord", first) == []
    run.wait(120)
    final = wait_until(lambda: (r := read_records(runs)[0]) and r["state"] == "finished" and r, 10, "the last")
    assert final["returns"] and problems("RunRecord", final) == []
    reply = {**split_records(read_records(runs), tmp_path), "cluster": None}
    assert problems("RunsReply", reply) == []

    # the schema can fail: a field the writer dropped, one it added, a state it does not know
    assert problems("RunRecord", {k: v for k, v in final.items() if k != "logdir"}) == [
        ": 'logdir' is a required property"]
    assert "Unevaluated properties are not allowed ('surprise' was unexpected)" in problems(
        "RunRecord", {**final, "surprise": 1})[0]
    assert problems("RunRecord", {**final, "state": "paused"})[0].startswith("state: 'paused' is not one of")
    assert problems("RunsReply", {**reply, "runs": [final]})  # a served record has its paths in the root
