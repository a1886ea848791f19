"""Registers an actor, reads it back, updates it with optimistic concurrency
and prints the namespace's recent domain events, over HTTP or stdio.

    python examples/quickstart.py http://127.0.0.1:8080/   # an agent serving HTTP
    python examples/quickstart.py                          # starts cleveragents-agent --stdio
"""

from __future__ import annotations

import sys
import uuid

from cleveragents_contract import Client, errors, models


def main(url: str | None) -> None:
    client = Client.http(url) if url else Client.stdio(args=["--stdio", "--memory"])
    with client:
        name = f"greeter-{uuid.uuid4().hex[:6]}"
        actor = client.registry_actors_add(
            models.ActorAddParams(actor=models.ActorSpec(name=name, kind="ACTOR_KIND_AGENT"))
        )
        print(f"added {actor.name} v{actor.version} in {actor.namespace}")
        update = models.ActorUpdateParams(
            expected_version=actor.version,
            actor=models.ActorSpec(name=name, kind="ACTOR_KIND_AGENT", instructions="Say hello."),
        )
        print(f"updated to v{client.registry_actors_update(update).version}")
        try:
            client.registry_actors_update(update)  # the same version again: stale
        except errors.ExtInvalidState as stale:
            print(f"stale update refused: {stale.code} {stale.reason}: {stale.message}")
        for event in client.events_subscribe(models.EventsSubscribeParams(after=0)):
            print(f"event {event.cursor}: {event.type} (task {event.task_id})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
