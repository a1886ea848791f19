//! Calls through the generated router with a caller context, for the tests of
//! health, diagnostics, namespaces, context and plan drafting: local mode or a
//! principal with roles, the JSON-RPC code of a call, and names from a list.
//!
//! The other files here are fixtures that only some test files include (by
//! `#[path = "common/…"] mod …;`), so each test compiles just what it uses.

use a2a::rpc::{Access, CallContext, Principal};
use a2a::Router;
use app::App;
use serde_json::Value;

pub fn local() -> CallContext {
    CallContext::default()
}

pub fn as_principal(subject: &str, roles: &[(&str, Access)]) -> CallContext {
    CallContext {
        principal: Some(Principal {
            subject: subject.into(),
            namespaces: roles.iter().map(|(ns, a)| (ns.to_string(), *a)).collect(),
        }),
        ..CallContext::default()
    }
}

pub async fn call(
    router: &Router<App>,
    ctx: &CallContext,
    method: &str,
    params: Value,
) -> Result<Value, a2a::Error> {
    router
        .dispatch(ctx.clone(), method, Some(params))
        .await
        .into_single()
}

/// The JSON-RPC code of a failed call (0 when it succeeded).
pub async fn code(router: &Router<App>, ctx: &CallContext, method: &str, params: Value) -> i64 {
    match call(router, ctx, method, params).await {
        Ok(_) => 0,
        Err(e) => e.code,
    }
}

pub fn names(items: &Value, field: &str) -> Vec<String> {
    items
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i[field].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}
