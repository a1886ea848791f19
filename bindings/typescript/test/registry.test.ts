// A registry entry's whole life over every transport, with optimistic
// concurrency (`expectedVersion`) and the exact typed errors of a duplicate,
// a stale update and a removed entry.

import assert from "node:assert/strict";
import { it } from "node:test";
import {
  ExtAlreadyExistsError,
  ExtInvalidStateError,
  ExtNotFoundError,
  ERROR_DOMAIN,
  type ActorSpec,
  type MethodError,
} from "../src/index.js";
import { overEveryTransport } from "./agent.js";

/** Asserts that `error` is exactly the registry's `Class` with `reason` and `code`. */
function typed<E extends Error>(
  error: unknown,
  Class: new (...args: never[]) => E,
  reason: string,
  code: number,
): E {
  assert.ok(error instanceof Class, `expected ${Class.name}, got ${String(error)}`);
  const fields = error as E & { reason: string; code: number; domain: string };
  assert.equal(fields.reason, reason);
  assert.equal(fields.code, code);
  assert.equal(fields.domain, ERROR_DOMAIN);
  return error;
}

overEveryTransport("registry CRUD", (context) => {
  it("adds, shows, updates, lists and removes an actor with expectedVersion", { timeout: 30_000 }, async () => {
    const { client, unique } = context();
    const name = unique("actor");
    const actor: ActorSpec = { name, kind: "ACTOR_KIND_AGENT", description: "test actor", instructions: "Say hello." };

    const added = await client.registryActorsAdd({ actor });
    assert.equal(added.version, 1);
    assert.equal(added.name, name);
    assert.equal(added.namespace, "default");
    assert.equal(added.kind, "ACTOR_KIND_AGENT");
    assert.equal(added.instructions, "Say hello.");
    assert.deepEqual(await client.registryActorsShow({ name }), added);

    const duplicate: unknown = await client.registryActorsAdd({ actor }).catch((e: unknown) => e);
    typed(duplicate, ExtAlreadyExistsError, "ALREADY_EXISTS", -32005);

    const update = { expectedVersion: 1, actor: { ...actor, instructions: "Say goodbye." } };
    const updated = await client.registryActorsUpdate(update);
    assert.equal(updated.version, 2);
    assert.equal(updated.instructions, "Say goodbye.");

    // The same update again names a version that is no longer current.
    const stale: unknown = await client.registryActorsUpdate(update).catch((e: unknown) => e);
    const conflict = typed(stale, ExtInvalidStateError, "INVALID_STATE", -32004);
    // The method's declared errors type the rejection.
    const declared: MethodError<"_cleveragents/registry/actors/update"> = conflict;
    assert.equal(declared.errorName, "ExtInvalidState");

    const listed = await client.registryActorsList({ limit: 100 });
    assert.ok(listed.items.some((a) => a.name === name && a.version === 2));

    const removed = await client.registryActorsRemove({ name, expectedVersion: 2 });
    assert.deepEqual(removed, { namespace: "default", name, removedVersion: 2 });

    const gone: unknown = await client.registryActorsShow({ name }).catch((e: unknown) => e);
    typed(gone, ExtNotFoundError, "NOT_FOUND", -32001);
  });
});
