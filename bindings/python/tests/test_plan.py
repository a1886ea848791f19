"""A plan's whole life over every transport, sync and async: use, execute,
status at the approval, approve, diff, a stale apply, apply."""

from __future__ import annotations

import asyncio

import pytest

from cleveragents_contract import Client, errors, methods, models
from support import (
    NEW_CHANGELOG,
    Fixture,
    install,
    install_async,
    open_async,
    wait_until_not,
    wait_until_not_async,
)

EXT_DOMAIN = methods.EXTENSION_URIS[0]


def check_used(fixture: Fixture, plan: models.Plan) -> None:
    assert plan.action == fixture.action
    assert plan.project == fixture.project
    assert plan.automation_profile == fixture.profile
    assert plan.namespace == methods.DEFAULT_NAMESPACE
    assert plan.inputs == {"version": "2.4.0", "notes": "Faster search."}
    assert (plan.phase, plan.state, plan.revision) == (
        "PLAN_PHASE_STRATEGIZE",
        "PLAN_STATE_CREATED",
        1,
    )
    assert plan.base_project_revision == 1
    assert plan.task_id is None


def check_executed(plan: models.Plan, execution: models.PlanExecution) -> None:
    assert (execution.plan.state, execution.plan.phase) == (
        "PLAN_STATE_RUNNING",
        "PLAN_PHASE_EXECUTE",
    )
    assert execution.plan.task_id == execution.task_id
    assert execution.context_id == plan.context_id


def check_waiting(status: models.PlanStatus) -> None:
    assert status.plan.state == "PLAN_STATE_INPUT_REQUIRED"
    assert [(s.id, s.state) for s in status.steps] == [
        ("render", "PLAN_STEP_STATE_SUCCEEDED"),
        ("approve", "PLAN_STEP_STATE_WAITING_INPUT"),
        ("write", "PLAN_STEP_STATE_PENDING"),
        ("check", "PLAN_STEP_STATE_PENDING"),
    ]
    prompt = status.pending_prompt
    assert prompt is not None
    assert prompt.to_wire() == {
        "promptId": "prm-approve-1",
        "stepId": "approve",
        "kind": "PLAN_PROMPT_KIND_APPROVAL",
        "question": "Write the notes for 2.4.0?",
        "createdAt": prompt.created_at,
    }


def approval(plan: models.Plan) -> models.PlanPromptParams:
    return models.PlanPromptParams(
        plan_id=plan.id,
        prompt_id="prm-approve-1",
        decision="PROMPT_DECISION_APPROVE",
        text="Looks good.",
    )


def check_diff(plan: models.Plan, fixture: Fixture, diff: models.PlanDiff) -> None:
    assert (diff.plan_id, diff.revision, diff.project, diff.project_revision) == (
        plan.id,
        1,
        fixture.project,
        1,
    )
    assert diff.stats.to_wire() == {"filesChanged": 1, "linesAdded": 4, "linesDeleted": 0}
    [changed] = diff.files
    assert (changed.path, changed.change, changed.binary) == (
        "CHANGELOG.md",
        "FILE_CHANGE_KIND_MODIFIED",
        False,
    )
    assert [hunk.to_wire() for hunk in changed.hunks or []] == [
        {
            "oldStart": 1,
            "oldLines": 5,
            "newStart": 1,
            "newLines": 9,
            "lines": [
                " # Changelog",
                " ",
                "+## 2.4.0",
                "+",
                "+- Faster search.",
                "+",
                " ## 2.3.0",
                " ",
                " - Initial public API.",
            ],
        }
    ]


def check_stale(error: errors.ExtInvalidState, fixture: Fixture) -> None:
    assert (error.code, error.reason, error.domain) == (-32004, "INVALID_STATE", EXT_DOMAIN)
    assert error.message == f"Project `{fixture.project}` is at revision 1, not the expected 9"


def check_applied(plan: models.Plan, fixture: Fixture, applied: models.PlanApplyResult) -> None:
    assert (applied.plan.state, applied.plan.phase) == ("PLAN_STATE_APPLIED", "PLAN_PHASE_APPLY")
    assert applied.plan.applied_project_revision == 2
    revision = applied.revision
    assert (revision.project, revision.revision, revision.parent_revision, revision.plan_id) == (
        fixture.project,
        2,
        1,
        plan.id,
    )
    assert revision.origin == "PROJECT_REVISION_ORIGIN_PLAN_APPLIED"
    assert [c.to_wire() for c in revision.changes or []] == [
        {"path": "CHANGELOG.md", "change": "FILE_CHANGE_KIND_MODIFIED"}
    ]
    assert applied.usage.files_changed == 1
    assert applied.usage.bytes_changed == len(NEW_CHANGELOG)


def test_plan_lifecycle(client: Client) -> None:
    fixture = Fixture()
    install(client, fixture)
    plan = client.plan_use(fixture.use())
    check_used(fixture, plan)
    execution = client.plan_execute(models.PlanExecuteParams(plan_id=plan.id))
    check_executed(plan, execution)
    status = wait_until_not(client, plan.id, "PLAN_STATE_RUNNING")
    check_waiting(status)
    with pytest.raises(errors.ExtInvalidState):
        client.plan_apply(models.PlanApplyParams(plan_id=plan.id))
    assert client.plan_prompt(approval(plan)).state == "PLAN_STATE_RUNNING"
    with pytest.raises(errors.ExtInvalidState) as answered:
        client.plan_prompt(approval(plan))
    assert answered.value.code == -32004
    done = wait_until_not(client, plan.id, "PLAN_STATE_RUNNING")
    assert (done.plan.state, done.plan.phase) == ("PLAN_STATE_COMPLETED", "PLAN_PHASE_REVIEW")
    check_diff(plan, fixture, client.plan_diff(models.PlanDiffParams(plan_id=plan.id)))
    with pytest.raises(errors.ExtInvalidState) as stale:
        client.plan_apply(models.PlanApplyParams(plan_id=plan.id, expected_project_revision=9))
    check_stale(stale.value, fixture)
    check_applied(plan, fixture, client.plan_apply(models.PlanApplyParams(plan_id=plan.id)))
    with pytest.raises(errors.ExtNotFound) as missing:
        client.plan_status(models.PlanStatusParams(plan_id="no-such-plan"))
    assert (missing.value.code, missing.value.reason) == (-32001, "NOT_FOUND")


def test_plan_lifecycle_async(transport: str, server_url: str) -> None:
    async def run() -> None:
        async with await open_async(transport, server_url) as client:
            fixture = Fixture()
            await install_async(client, fixture)
            plan = await client.plan_use(fixture.use())
            check_used(fixture, plan)
            execution = await client.plan_execute(models.PlanExecuteParams(plan_id=plan.id))
            check_executed(plan, execution)
            check_waiting(await wait_until_not_async(client, plan.id, "PLAN_STATE_RUNNING"))
            assert (await client.plan_prompt(approval(plan))).state == "PLAN_STATE_RUNNING"
            done = await wait_until_not_async(client, plan.id, "PLAN_STATE_RUNNING")
            assert done.plan.state == "PLAN_STATE_COMPLETED"
            check_diff(
                plan, fixture, await client.plan_diff(models.PlanDiffParams(plan_id=plan.id))
            )
            try:
                await client.plan_apply(
                    models.PlanApplyParams(plan_id=plan.id, expected_project_revision=9)
                )
            except errors.ExtInvalidState as stale:
                check_stale(stale, fixture)
            else:
                raise AssertionError("a stale apply succeeded")
            check_applied(
                plan, fixture, await client.plan_apply(models.PlanApplyParams(plan_id=plan.id))
            )

    asyncio.run(run())
