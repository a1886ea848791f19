"""What the tests share: opening clients, the registry fixture of a plan and
bounded waits."""

from __future__ import annotations

import asyncio
import os
import time
import uuid

from a2a.types import a2a_pb2

from cleveragents_contract import AsyncClient, Client, models

# The agent keeps everything in memory, so every run starts clean.
AGENT_ARGS = ("--memory",)
# The bound on every answer and on every wait for a plan's state.
TIMEOUT = 20.0
# Pause between status polls while a plan runs.
POLL = 0.05

OLD_CHANGELOG = "# Changelog\n\n## 2.3.0\n\n- Initial public API.\n"
NEW_CHANGELOG = "# Changelog\n\n## 2.4.0\n\n- Faster search.\n\n## 2.3.0\n\n- Initial public API.\n"


def agent_program() -> str:
    program = os.environ.get("CLEVERAGENTS_AGENT")
    if not program:
        raise RuntimeError("CLEVERAGENTS_AGENT names the agent binary (test.sh sets it)")
    return program


def open_sync(transport: str, url: str) -> Client:
    if transport == "http":
        return Client.http(url, timeout=TIMEOUT)
    return Client.stdio(agent_program(), ["--stdio", *AGENT_ARGS], timeout=TIMEOUT)


async def open_async(transport: str, url: str) -> AsyncClient:
    if transport == "http":
        return AsyncClient.http(url, timeout=TIMEOUT)
    return await AsyncClient.stdio(agent_program(), ["--stdio", *AGENT_ARGS], timeout=TIMEOUT)


def unique(prefix: str) -> str:
    """A name no other test uses (the HTTP agent is shared by all)."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class Fixture:
    """A project, a manual automation profile, a validation and a release-notes
    action (render, approve, write the changelog, validate), uniquely named."""

    def __init__(self) -> None:
        self.project = unique("website")
        self.profile = unique("careful")
        self.validation = unique("mentions-version")
        self.action = unique("release-notes")

    def params(
        self,
    ) -> tuple[
        models.ProjectAddParams,
        models.AutomationProfileAddParams,
        models.ValidationAddParams,
        models.ActionAddParams,
    ]:
        project = models.ProjectAddParams(
            project=models.ProjectSpec(
                name=self.project,
                files=[
                    models.ProjectFile(
                        path="CHANGELOG.md", media_type="text/markdown", text=OLD_CHANGELOG
                    )
                ],
            )
        )
        profile = models.AutomationProfileAddParams(
            automation_profile=models.AutomationProfileSpec(
                name=self.profile,
                approval_mode="APPROVAL_MODE_MANUAL",
                budget=models.Budget(max_tool_calls=10),
            )
        )
        validation = models.ValidationAddParams(
            validation=models.ValidationSpec(
                name=self.validation,
                kind="VALIDATION_KIND_CONTENT_MATCHES",
                path_glob="CHANGELOG.md",
                pattern="## 2\\.4\\.0",
                severity="VALIDATION_SEVERITY_ERROR",
            )
        )
        render = "## {{version}}\n\n- {{notes}}\n"
        content = "# Changelog\n\n{{steps.render}}\n## 2.3.0\n\n- Initial public API.\n"
        action = models.ActionAddParams(
            action=models.ActionSpec(
                name=self.action,
                automation_profile=self.profile,
                validations=[self.validation],
                steps=[
                    models.ActionStep(
                        id="render",
                        name="Render",
                        tool="template",
                        arguments={"template": render, "name": "notes"},
                    ),
                    models.ActionStep(
                        id="approve",
                        name="Approve",
                        tool="approval",
                        arguments={"question": "Write the notes for {{version}}?"},
                    ),
                    models.ActionStep(
                        id="write",
                        name="Write",
                        tool="write-file",
                        arguments={"path": "CHANGELOG.md", "content": content},
                    ),
                    models.ActionStep(id="check", name="Check", tool="run-validation"),
                ],
            )
        )
        return project, profile, validation, action

    def use(self) -> models.PlanUseParams:
        return models.PlanUseParams(
            action=self.action,
            project=self.project,
            inputs={"version": "2.4.0", "notes": "Faster search."},
        )


def install(client: Client, fixture: Fixture) -> None:
    project, profile, validation, action = fixture.params()
    client.registry_projects_add(project)
    client.registry_automation_profiles_add(profile)
    client.registry_validations_add(validation)
    client.registry_actions_add(action)


async def install_async(client: AsyncClient, fixture: Fixture) -> None:
    project, profile, validation, action = fixture.params()
    await client.registry_projects_add(project)
    await client.registry_automation_profiles_add(profile)
    await client.registry_validations_add(validation)
    await client.registry_actions_add(action)


def wait_until_not(client: Client, plan_id: str, state: models.PlanState) -> models.PlanStatus:
    """The plan's status once its state is no longer `state` (bounded)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        status = client.plan_status(models.PlanStatusParams(plan_id=plan_id))
        if status.plan.state != state or time.monotonic() > deadline:
            return status
        time.sleep(POLL)


async def wait_until_not_async(
    client: AsyncClient, plan_id: str, state: models.PlanState
) -> models.PlanStatus:
    deadline = time.monotonic() + TIMEOUT
    while True:
        status = await client.plan_status(models.PlanStatusParams(plan_id=plan_id))
        if status.plan.state != state or time.monotonic() > deadline:
            return status
        await asyncio.sleep(POLL)


def text_message(text: str) -> a2a_pb2.Message:
    """A user message, as the official SDK builds it."""
    return a2a_pb2.Message(
        message_id=unique("msg"), role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text=text)]
    )
