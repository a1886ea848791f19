"""The generated models, method table and error registry against the
schema itself: every example of every method round-trips exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from a2a.types import a2a_pb2
from pydantic import BaseModel, JsonValue, ValidationError

from cleveragents_contract import Model, errors, methods, models
from cleveragents_contract._client import typed_error
from cleveragents_contract._errors import RpcFailure

SCHEMA = Path(__file__).resolve().parents[3] / "schema" / "cleveragents-ext.json"


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text())
    return loaded


def dump(spec: methods.MethodSpec[Any, Any], value: object) -> JsonValue:
    dumped: JsonValue = spec.result.dump_python(
        value, mode="json", by_alias=True, exclude_none=True
    )
    return dumped


def without_defaults(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {k: without_defaults(v) for k, v in value.items() if v not in (False, 0, "", [], {})}
    if isinstance(value, list):
        return [without_defaults(v) for v in value]
    return value


def test_the_table_has_every_method_of_the_schema() -> None:
    table = schema()["x-methods"]
    assert sorted(methods.METHODS) == sorted(table)
    for name, spec in methods.METHODS.items():
        assert spec.name == name
        assert spec.streaming == table[name]["streaming"]
        assert [e.__name__ for e in spec.errors] == table[name]["errors"]
        assert spec.params.__name__ == table[name]["params"]


@pytest.mark.parametrize("name", sorted(schema()["x-methods"]))
def test_examples_round_trip_exactly(name: str) -> None:
    spec = methods.METHODS[name]
    for example in schema()["x-methods"][name].get("examples", []):
        params: BaseModel = spec.params.model_validate(example["params"])
        assert params.model_dump(mode="json", by_alias=True, exclude_none=True) == example["params"]
        answers = example.get("events", [example["result"]] if "result" in example else [])
        for answer in answers:
            value = spec.result.validate_python(answer)
            got = dump(spec, value)
            if isinstance(value, Model) or value is None:
                assert json.dumps(got, sort_keys=True) == json.dumps(answer, sort_keys=True)
            else:
                # A bare SDK message (session/tell's result) is written as
                # ProtoJSON, which leaves out a field of implicit presence at
                # its default, as the schema reads it too.
                assert without_defaults(got) == without_defaults(answer)


def test_wire_names_are_aliases_and_absent_stays_absent() -> None:
    params = models.ActorUpdateParams(
        expected_version=3, actor=models.ActorSpec(name="a", kind="ACTOR_KIND_AGENT")
    )
    assert params.to_wire() == {
        "expectedVersion": 3,
        "actor": {"name": "a", "kind": "ACTOR_KIND_AGENT"},
    }
    read = models.ActorUpdateParams.model_validate(
        {"expectedVersion": 3, "actor": {"name": "a", "kind": "ACTOR_KIND_AGENT"}, "newer": 1}
    )
    assert read == params


def test_enums_and_one_ofs_are_checked() -> None:
    with pytest.raises(ValidationError):
        models.ActorSpec.model_validate({"name": "a", "kind": "ACTOR_KIND_ROBOT"})
    with pytest.raises(ValidationError, match="exactly one of text | raw"):
        models.ProjectFile(path="a", media_type="text/plain", text="x", raw="eA==")
    with pytest.raises(ValidationError):
        models.ProjectFile(path="a", media_type="text/plain")


def test_error_answers_are_typed_by_error_info_then_code() -> None:
    domain = methods.EXTENSION_URIS[0]
    info: JsonValue = [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "NOT_FOUND",
            "domain": domain,
        }
    ]
    found = typed_error(RpcFailure(-32001, "Actor `x` not found", info), domain)
    assert type(found) is errors.ExtNotFound
    assert isinstance(found, errors.CleveragentsError)
    assert (found.code, found.reason, found.domain, found.message) == (
        -32001,
        "NOT_FOUND",
        domain,
        "Actor `x` not found",
    )
    assert found.data == info
    by_code = typed_error(RpcFailure(-32004, "stale", None), domain)
    assert type(by_code) is errors.ExtInvalidState
    unknown = typed_error(RpcFailure(-1, "odd", None), domain)
    assert type(unknown) is errors.ContractError and unknown.code == -1
    registry = schema()["x-errors"]
    for name, entry in registry.items():
        error: type[errors.ContractError] = getattr(errors, name)
        assert (error.code, error.reason, error.domain) == (entry["code"], entry["reason"], domain)


def test_sdk_messages_are_written_back_as_read() -> None:
    task = {
        "id": "t1",
        "contextId": "c1",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-01-02T03:04:05.000Z"},
        "metadata": {"n": 1, "flag": False},
    }
    exported = models.SessionExportTask.model_validate(
        {"task": task, "taskSha256": "00", "events": []}
    )
    assert exported.task.status.state == a2a_pb2.TASK_STATE_COMPLETED
    # ProtoJSON alone would write `05Z` and `1.0`; the task is written as read.
    assert json.dumps(exported.to_wire()["task"]) == json.dumps(task)
    changed = exported.model_copy(deep=True)
    changed.task.id = "t2"
    written = changed.to_wire()["task"]
    assert isinstance(written, dict) and written["id"] == "t2"
    assert isinstance(written["status"], dict)
    assert written["status"]["timestamp"] == "2026-01-02T03:04:05Z"
    unknown = {**task, "notInTheProto": 1}
    read = models.SessionExportTask.model_validate(
        {"task": unknown, "taskSha256": "00", "events": []}
    )
    assert "notInTheProto" not in json.dumps(read.to_wire())
