//! Scenarios of the CleverAgents extension (run only when the extension is
//! gated): a registry entry's whole life with optimistic concurrency, and the
//! not-found errors of registry entities and plans.

use super::steps::{equal, Step, Steps};
use crate::session::unique;
use a2a::methods::markers::{
    PlanCancel, PlanStatus, RegistryActorsAdd, RegistryActorsList, RegistryActorsRemove, RegistryActorsShow,
    RegistryActorsUpdate, RegistryToolsRemove, RegistryToolsShow,
};
use a2a::rpc::Method;
use a2a::types::ActorKind;
use a2a::ErrorKind;
use serde_json::json;

pub async fn registry_crud(s: &mut Steps<'_>) -> Step<String> {
    let name = unique("conformance-actor");
    let actor = json!({"name": name, "kind": ActorKind::Agent, "description": "conformance actor",
                       "instructions": "Say hello."});
    let added = s.ok(RegistryActorsAdd::NAME, json!({"actor": actor})).await?;
    equal("added version", &added["version"], &json!(1))?;
    let shown = s.ok(RegistryActorsShow::NAME, json!({"name": name})).await?;
    equal("show after add", &shown, &added)?;
    s.err(
        RegistryActorsAdd::NAME,
        json!({"actor": actor}),
        ErrorKind::ExtAlreadyExists,
    )
    .await?;
    let mut changed = actor.clone();
    changed["instructions"] = json!("Say goodbye.");
    let update = json!({"expectedVersion": 1, "actor": changed});
    let updated = s.ok(RegistryActorsUpdate::NAME, update.clone()).await?;
    equal("updated version", &updated["version"], &json!(2))?;
    equal(
        "updated instructions",
        &updated["instructions"],
        &json!("Say goodbye."),
    )?;
    s.err(RegistryActorsUpdate::NAME, update, ErrorKind::ExtInvalidState)
        .await?;
    if !listed(s, &name).await? {
        return Err(format!("{} does not list {name}", RegistryActorsList::NAME));
    }
    let removed = s
        .ok(
            RegistryActorsRemove::NAME,
            json!({"name": name, "expectedVersion": 2}),
        )
        .await?;
    equal("removedVersion", &removed["removedVersion"], &json!(2))?;
    s.err(
        RegistryActorsShow::NAME,
        json!({"name": name}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    Ok("add, show, duplicate, update, stale update, list, remove, show".into())
}

/// True when the actor list, walked page by page (at most 100 pages), names `name`.
async fn listed(s: &mut Steps<'_>, name: &str) -> Step<bool> {
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut params = json!({"limit": 50});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let page = s.ok(RegistryActorsList::NAME, params).await?;
        let found = page["items"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| a["name"] == json!(name));
        cursor = page["nextCursor"]
            .as_str()
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        if found || cursor.is_none() {
            return Ok(found);
        }
    }
    Ok(false)
}

pub async fn registry_errors(s: &mut Steps<'_>) -> Step<String> {
    let missing = unique("conformance-missing");
    s.err(
        RegistryToolsShow::NAME,
        json!({"name": missing}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    s.err(
        RegistryToolsRemove::NAME,
        json!({"name": missing, "expectedVersion": 1}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    Ok("unknown entities are not found, with exact codes".into())
}

pub async fn plan_errors(s: &mut Steps<'_>) -> Step<String> {
    let missing = unique("conformance-missing");
    s.err(
        PlanStatus::NAME,
        json!({"planId": missing}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    s.err(
        PlanCancel::NAME,
        json!({"planId": missing}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    Ok("an unknown plan is not found".into())
}
