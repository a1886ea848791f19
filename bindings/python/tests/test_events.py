"""The namespace's domain event stream over every transport, sync and async:
a plan's events up to its approval as they happen (a followed stream left
early, which stops it at the agent), then the same events again, and a
resume after one of them (SSE Last-Event-ID, stdio stream/resume)."""

from __future__ import annotations

import asyncio
from contextlib import aclosing, closing

from google.protobuf import json_format

from cleveragents_contract import Client, methods, models
from support import Fixture, install, install_async, open_async

# The plan's events up to the approval it waits for, and the task state each
# carries.
BEFORE_APPROVAL = [
    ("plan.created", "TASK_STATE_SUBMITTED"),
    ("plan.phase_changed", "TASK_STATE_WORKING"),
    ("tool.invoked", "TASK_STATE_WORKING"),
    ("tool.completed", None),
    ("tool.invoked", "TASK_STATE_WORKING"),
    ("plan.state_changed", "TASK_STATE_INPUT_REQUIRED"),
]
WAITING = "TASK_STATE_INPUT_REQUIRED"


def state(event: models.DomainEvent) -> str | None:
    """The task state a status event carries (an artifact event has none)."""
    wire = json_format.MessageToDict(event.event)
    found = wire.get("statusUpdate", {}).get("status", {}).get("state")
    return found if isinstance(found, str) else None


def check(
    plan: models.Plan, execution: models.PlanExecution, events: list[models.DomainEvent]
) -> None:
    assert [(e.type, state(e)) for e in events] == BEFORE_APPROVAL
    cursors = [e.cursor for e in events]
    assert cursors == sorted(set(cursors))
    assert [e.task_seq for e in events] == sorted({e.task_seq for e in events})
    for event in events:
        assert (event.plan_id, event.session_id, event.task_id) == (
            plan.id,
            plan.context_id,
            execution.task_id,
        )
        wire = json_format.MessageToDict(event.event)
        update = wire.get("statusUpdate") or wire["artifactUpdate"]
        domain = update["metadata"][methods.EXTENSION_URIS[0]]
        assert (domain["event"], domain["planId"], domain["seq"]) == (
            event.type,
            plan.id,
            event.task_seq,
        )


def test_event_stream_with_resume(client: Client) -> None:
    fixture = Fixture()
    install(client, fixture)
    plan = client.plan_use(fixture.use())
    execution = client.plan_execute(models.PlanExecuteParams(plan_id=plan.id))
    live: list[models.DomainEvent] = []
    followed = models.EventsSubscribeParams(plan_id=plan.id, follow=True)
    with closing(client.events_subscribe(followed)) as stream:
        for event in stream:
            live.append(event)
            if state(event) == WAITING:
                break
    check(plan, execution, live)
    # The transport still serves calls after the stream was left.
    assert (
        client.plan_status(models.PlanStatusParams(plan_id=plan.id)).plan.state
        == "PLAN_STATE_INPUT_REQUIRED"
    )
    stored = list(client.events_subscribe(models.EventsSubscribeParams(plan_id=plan.id)))
    assert stored == live
    resumed = list(
        client.events_subscribe(
            models.EventsSubscribeParams(plan_id=plan.id), last_event_id=live[2].cursor
        )
    )
    assert [e.to_wire() for e in resumed] == [e.to_wire() for e in live[3:]]
    after = list(
        client.events_subscribe(models.EventsSubscribeParams(plan_id=plan.id, after=live[4].cursor))
    )
    assert after == live[5:]
    only = models.EventsSubscribeParams(plan_id=plan.id, types=["tool.invoked"])
    assert [e.cursor for e in client.events_subscribe(only)] == [live[2].cursor, live[4].cursor]


def test_event_stream_with_resume_async(transport: str, server_url: str) -> None:
    async def run() -> None:
        async with await open_async(transport, server_url) as client:
            fixture = Fixture()
            await install_async(client, fixture)
            plan = await client.plan_use(fixture.use())
            execution = await client.plan_execute(models.PlanExecuteParams(plan_id=plan.id))
            live: list[models.DomainEvent] = []
            followed = models.EventsSubscribeParams(plan_id=plan.id, follow=True)
            async with aclosing(client.events_subscribe(followed)) as stream:
                async for event in stream:
                    live.append(event)
                    if state(event) == WAITING:
                        break
            check(plan, execution, live)
            status = await client.plan_status(models.PlanStatusParams(plan_id=plan.id))
            assert status.plan.state == "PLAN_STATE_INPUT_REQUIRED"
            resumed = [
                e
                async for e in client.events_subscribe(
                    models.EventsSubscribeParams(plan_id=plan.id), last_event_id=live[2].cursor
                )
            ]
            assert resumed == live[3:]

    asyncio.run(run())
