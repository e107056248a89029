"""The run-record contract, written once: ``run_record.schema.json`` (JSON Schema 2020-12, shipped in the package).

Python writes the records (:mod:`.run_records`, :mod:`.experiments.publication`), the server extension serves them
(``/rlworkbench/runs``) and the JupyterLab extension reads them. The schema is the one place their fields are
written; the extension's TypeScript types (``src/runRecord.generated.ts``) are generated from it by
``scripts/run_record_types.py`` and committed, so the extension builds without Python, and a test fails when the
committed file is not a fresh generation. The schema leads, rather than the TypeScript, because it is data Python can
check records against at run time (jsonschema is a dependency) and both sides can read; a TS interface vanishes when
compiled. The Literal types in Python (``RunState``, ``RecordState``) are checked against its enums by the tests.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import jsonschema

SCHEMA_FILE = "run_record.schema.json"


@functools.cache
def record_schema() -> dict[str, object]:
    """The schema, as shipped beside this module (read once)."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text())


def record_validator(definition: str = "RunRecord") -> jsonschema.protocols.Validator:
    """A validator for one of the schema's ``$defs`` (``RunRecord``, ``ExperimentRecord``, ``RunsReply`` …)."""
    schema = record_schema()
    if definition not in schema["$defs"]:
        raise KeyError(f"no {definition!r} in {SCHEMA_FILE}; it defines {sorted(schema['$defs'])}")
    cls = jsonschema.validators.validator_for(schema)
    return cls({**schema, "$ref": f"#/$defs/{definition}"}, format_checker=cls.FORMAT_CHECKER)


def enum_of(definition: str) -> tuple[str, ...]:
    """The values of the schema's enum ``definition`` (``RunState``, ``TrialState``)."""
    return tuple(record_schema()["$defs"][definition]["enum"])
