//! namespace/list, show and members through the generated router: local mode
//! sees every namespace with data plus `default`, a principal sees only the
//! namespaces it may read with its role there, entity counts, paging by
//! cursor, and that listing members needs an admin.

mod common;

use a2a::rpc::Access;
use a2a::Router;
use app::store::MemoryStore;
use app::{App, AppConfig};
use common::{as_principal, call, code, local, names};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

async fn add_actor(router: &Router<App>, namespace: &str, name: &str) -> Value {
    call(
        router,
        &local(),
        "_cleveragents/registry/actors/add",
        json!({ "namespace": namespace, "actor": { "name": name, "kind": "ACTOR_KIND_AGENT" } }),
    )
    .await
    .expect("add actor")
}

fn members_config() -> AppConfig {
    let roles = |r: &[(&str, Access)]| -> BTreeMap<String, Access> {
        r.iter().map(|(ns, a)| (ns.to_string(), *a)).collect()
    };
    AppConfig {
        members: BTreeMap::from([
            ("alice".into(), roles(&[("acme", Access::Admin)])),
            (
                "bob".into(),
                roles(&[("acme", Access::Reader), ("zeta", Access::Writer)]),
            ),
            ("ci-bot".into(), roles(&[("acme", Access::Writer)])),
            ("root".into(), roles(&[("*", Access::Admin)])),
        ]),
        ..AppConfig::default()
    }
}

#[tokio::test]
async fn namespace_list_in_local_mode_shows_namespaces_with_data_and_default() {
    let app = App::with_store(Arc::new(MemoryStore::new()), members_config());
    let router = Router::new(app);
    let method = "_cleveragents/namespace/list";
    let empty = call(&router, &local(), method, json!({})).await.expect("list");
    assert_eq!(names(&empty["items"], "name"), ["default"]);
    assert_eq!(empty["items"][0]["callerRole"], "NAMESPACE_ROLE_ADMIN");
    assert_eq!(empty["items"][0]["memberCount"], 1, "root is a member everywhere");
    assert!(empty.get("nextCursor").is_none());
    assert!(empty["items"][0].get("planCount").is_none());
    assert!(empty["items"][0].get("entityCounts").is_none());

    let first = add_actor(&router, "acme", "a1").await;
    add_actor(&router, "acme", "a2").await;
    add_actor(&router, "acme/marketing", "m1").await;
    add_actor(&router, "zeta", "z1").await;
    let all = call(&router, &local(), method, json!({})).await.expect("list");
    assert_eq!(
        names(&all["items"], "name"),
        ["acme", "acme/marketing", "default", "zeta"]
    );
    assert_eq!(all["items"][0]["createdAt"], first["createdAt"]);
    assert_eq!(all["items"][0]["memberCount"], 4);

    let page1 = call(&router, &local(), method, json!({ "limit": 2 }))
        .await
        .expect("page 1");
    assert_eq!(names(&page1["items"], "name"), ["acme", "acme/marketing"]);
    assert_eq!(page1["nextCursor"], "eyJhZnRlciI6ImFjbWUvbWFya2V0aW5nIn0");
    let page2 = call(
        &router,
        &local(),
        method,
        json!({ "limit": 2, "cursor": page1["nextCursor"] }),
    )
    .await
    .expect("page 2");
    assert_eq!(names(&page2["items"], "name"), ["default", "zeta"]);
    assert!(page2.get("nextCursor").is_none());

    let nested = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("nested");
    assert_eq!(names(&nested["items"], "name"), ["acme", "acme/marketing"]);

    assert_eq!(
        code(&router, &local(), method, json!({ "limit": 101 })).await,
        -32602
    );
    assert_eq!(
        code(&router, &local(), method, json!({ "cursor": "not-ours" })).await,
        -32602
    );
}

#[tokio::test]
async fn namespace_list_shows_only_readable_namespaces_with_the_callers_role() {
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), members_config()));
    add_actor(&router, "acme", "a1").await;
    add_actor(&router, "zeta", "z1").await;
    let bob = as_principal("bob", &[("acme", Access::Reader), ("new-team", Access::Writer)]);
    let list = call(&router, &bob, "_cleveragents/namespace/list", json!({}))
        .await
        .expect("list");
    assert_eq!(names(&list["items"], "name"), ["acme", "new-team"]);
    assert_eq!(
        names(&list["items"], "callerRole"),
        ["NAMESPACE_ROLE_READER", "NAMESPACE_ROLE_WRITER"]
    );
    let root = as_principal("root", &[("*", Access::Reader)]);
    let list = call(&router, &root, "_cleveragents/namespace/list", json!({}))
        .await
        .expect("list");
    assert_eq!(names(&list["items"], "name"), ["acme", "default", "zeta"]);
}

#[tokio::test]
async fn namespace_show_counts_entities_and_hides_unreadable_namespaces() {
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), members_config()));
    let first = add_actor(&router, "acme", "a1").await;
    add_actor(&router, "acme", "a2").await;
    call(
        &router,
        &local(),
        "_cleveragents/registry/skills/add",
        json!({ "namespace": "acme", "skill": { "name": "s1" } }),
    )
    .await
    .expect("add skill");
    let method = "_cleveragents/namespace/show";
    let shown = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("show");
    assert_eq!(
        shown,
        json!({
            "name": "acme",
            "createdAt": first["createdAt"],
            "callerRole": "NAMESPACE_ROLE_ADMIN",
            "memberCount": 4,
            "planCount": 0,
            "entityCounts": [
                { "kind": "REGISTRY_KIND_ACTOR", "count": 2 },
                { "kind": "REGISTRY_KIND_SKILL", "count": 1 },
                { "kind": "REGISTRY_KIND_TOOL", "count": 4 },
            ]
        })
    );
    let default = call(&router, &local(), method, json!({})).await.expect("default");
    assert_eq!(default["name"], "default");
    assert_eq!(default["planCount"], 0);
    assert_eq!(
        code(&router, &local(), method, json!({ "namespace": "nowhere" })).await,
        -32001
    );
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(
        code(&router, &outsider, method, json!({ "namespace": "acme" })).await,
        -32001
    );
    let reader = as_principal("bob", &[("acme", Access::Reader)]);
    let seen = call(&router, &reader, method, json!({ "namespace": "acme" }))
        .await
        .expect("reader");
    assert_eq!(seen["callerRole"], "NAMESPACE_ROLE_READER");
}

#[tokio::test]
async fn namespace_members_need_admin_and_page_by_principal() {
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), members_config()));
    add_actor(&router, "acme", "a1").await;
    let method = "_cleveragents/namespace/members";
    let all = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("members");
    assert_eq!(all["namespace"], "acme");
    assert_eq!(
        names(&all["items"], "principal"),
        ["alice", "bob", "ci-bot", "root"]
    );
    assert_eq!(
        names(&all["items"], "role"),
        [
            "NAMESPACE_ROLE_ADMIN",
            "NAMESPACE_ROLE_READER",
            "NAMESPACE_ROLE_WRITER",
            "NAMESPACE_ROLE_ADMIN"
        ]
    );
    assert!(all["items"][0]["addedAt"].as_str().is_some_and(|t| t.len() == 24));
    assert!(all["items"][0].get("displayName").is_none());

    let admins = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "role": "NAMESPACE_ROLE_ADMIN", "limit": 1 }),
    )
    .await
    .expect("admins");
    assert_eq!(names(&admins["items"], "principal"), ["alice"]);
    let rest = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "role": "NAMESPACE_ROLE_ADMIN", "cursor": admins["nextCursor"] }),
    )
    .await
    .expect("rest");
    assert_eq!(names(&rest["items"], "principal"), ["root"]);
    assert!(rest.get("nextCursor").is_none());

    let alice = as_principal("alice", &[("acme", Access::Admin)]);
    assert_eq!(
        code(&router, &alice, method, json!({ "namespace": "acme" })).await,
        0
    );
    let writer = as_principal("ci-bot", &[("acme", Access::Writer)]);
    assert_eq!(
        code(&router, &writer, method, json!({ "namespace": "acme" })).await,
        -32003
    );
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(
        code(&router, &outsider, method, json!({ "namespace": "acme" })).await,
        -32001
    );
    assert_eq!(
        code(&router, &local(), method, json!({ "namespace": "nowhere" })).await,
        -32001
    );
}
