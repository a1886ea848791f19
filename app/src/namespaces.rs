//! Namespaces (`_cleveragents/namespace/{list,show,members}`).
//!
//! A namespace exists for a caller when it holds data (a task or a document),
//! is `default`, or is named in the caller's roles; the caller sees only those
//! it can read (local mode reads everything). Memberships come from the
//! application's configuration ([`crate::AppConfig::members`]); a principal
//! with a role in `*` is a member of every namespace. There is no separate
//! namespace record: `createdAt` is the oldest `createdAt` of the namespace's
//! registry entities and plans, or the application's start time when it has
//! none.

use crate::store::{Internal, StoreHandle};
use crate::util::{self, namespace, Family};
use a2a::rpc::{Access, CallContext, Error};
use a2a::types::{
    Namespace, NamespaceList, NamespaceListParams, NamespaceMember, NamespaceMemberList,
    NamespaceMembersParams, NamespaceRole, RegistryKind, RegistryKindCount,
};
use base64::Engine as _;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::collections::BTreeSet;

const FAMILY: Family = Family::Ext;

/// The wire role of an access level.
pub fn role_of(access: Access) -> NamespaceRole {
    match access {
        Access::Reader => NamespaceRole::Reader,
        Access::Writer => NamespaceRole::Writer,
        Access::Admin => NamespaceRole::Admin,
    }
}

/// An opaque page cursor: base64url of a small JSON object.
pub fn encode_cursor_value(value: &Value) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}

/// Decodes a cursor of [`encode_cursor_value`]; anything else is invalid params.
pub fn decode_cursor_value(cursor: Option<&str>) -> Result<Option<Value>, Error> {
    let Some(text) = cursor.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .filter(Value::is_object)
        .map(Some)
        .ok_or_else(|| FAMILY.invalid_params("cursor", "is not a cursor this server issued"))
}

/// A name cursor: `{"after": <last name>}`.
pub fn encode_cursor(after: &str) -> String {
    encode_cursor_value(&json!({ "after": after }))
}

/// Decodes a name cursor of [`encode_cursor`].
pub fn decode_cursor(cursor: Option<&str>) -> Result<Option<String>, Error> {
    match decode_cursor_value(cursor)? {
        None => Ok(None),
        Some(value) => value
            .get("after")
            .and_then(Value::as_str)
            .map(|after| Some(after.to_string()))
            .ok_or_else(|| FAMILY.invalid_params("cursor", "is not a cursor this server issued")),
    }
}

/// A page limit: 1 to 100, 50 when absent or 0.
pub fn page_limit(limit: Option<i32>) -> Result<usize, Error> {
    match limit {
        None | Some(0) => Ok(50),
        Some(n) if (1..=100).contains(&n) => Ok(n as usize),
        Some(_) => Err(FAMILY.invalid_params("limit", "must be between 1 and 100")),
    }
}

/// Cuts a sorted list after `after` to one page; the cursor when more follow.
fn page<T>(
    items: Vec<T>,
    key: impl Fn(&T) -> &str,
    after: Option<&str>,
    limit: usize,
) -> (Vec<T>, Option<String>) {
    let mut items: Vec<T> = items
        .into_iter()
        .filter(|i| after.is_none_or(|a| key(i) > a))
        .collect();
    let more = items.len() > limit;
    items.truncate(limit);
    let next = if more {
        items.last().map(|i| encode_cursor(key(i)))
    } else {
        None
    };
    (items, next)
}

/// The namespace service.
#[derive(Clone)]
pub struct NamespaceService {
    db: StoreHandle,
    /// Known principals and their roles (principal → namespace → role).
    members: BTreeMap<String, BTreeMap<String, Access>>,
    /// When the configured memberships took effect.
    started_at: String,
}

impl NamespaceService {
    pub fn new(
        db: StoreHandle,
        members: BTreeMap<String, BTreeMap<String, Access>>,
        started_at: String,
    ) -> Self {
        NamespaceService {
            db,
            members,
            started_at,
        }
    }

    /// The caller's role in `namespace` (local mode is admin everywhere).
    fn caller_role(ctx: &CallContext, namespace: &str) -> Option<Access> {
        match &ctx.principal {
            None => Some(Access::Admin),
            Some(p) => p.access(namespace),
        }
    }

    /// The configured members of `namespace`, ordered by principal.
    fn members_of(&self, namespace: &str) -> Vec<NamespaceMember> {
        self.members
            .iter()
            .filter_map(|(principal, roles)| {
                let role = roles.get(namespace).copied().max(roles.get("*").copied())?;
                Some(NamespaceMember {
                    principal: principal.clone(),
                    display_name: None,
                    role: role_of(role),
                    added_at: self.started_at.clone(),
                })
            })
            .collect()
    }

    /// Every namespace that exists for the caller and that it can read, sorted.
    async fn visible_namespaces(&self, ctx: &CallContext) -> Result<Vec<String>, Error> {
        let mut all: BTreeSet<String> = self
            .db
            .store()
            .namespaces()
            .await
            .internal(FAMILY)?
            .into_iter()
            .collect();
        all.insert(a2a::DEFAULT_NAMESPACE.to_string());
        if let Some(p) = &ctx.principal {
            all.extend(p.namespaces.keys().filter(|ns| ns.as_str() != "*").cloned());
        }
        Ok(all.into_iter().filter(|ns| util::can_read(ctx, ns)).collect())
    }

    /// Oldest entity/plan creation time, entity counts per kind and plan count.
    async fn namespace_stats(
        &self,
        namespace: &str,
    ) -> Result<(Option<String>, Vec<RegistryKindCount>, i64), Error> {
        let store = self.db.store();
        let mut per_kind = vec![];
        for kind in RegistryKind::ALL {
            let docs = store.list_docs(kind.descriptor().name, namespace, "", None, usize::MAX);
            per_kind.push((kind, docs.await.internal(FAMILY)?));
        }
        let plans = store
            .list_docs(crate::plans::COLL, namespace, "", None, usize::MAX)
            .await
            .internal(FAMILY)?;
        let mut oldest: Option<String> = None;
        let mut note = |value: &Value| {
            if let Some(at) = value.get("createdAt").and_then(Value::as_str) {
                if oldest.as_deref().is_none_or(|o| at < o) {
                    oldest = Some(at.to_string());
                }
            }
        };
        let mut counts = vec![];
        for (kind, docs) in &per_kind {
            docs.iter().for_each(|d| note(&d.value));
            let builtin = if *kind == RegistryKind::Tool {
                crate::registry::builtin_tools(namespace).len()
            } else {
                0
            };
            let count = docs.len() + builtin;
            if count > 0 {
                // Ordered by wire name, as the schema's example shows.
                counts.push((
                    kind.to_string(),
                    RegistryKindCount {
                        kind: *kind,
                        count: i64::try_from(count).unwrap_or(i64::MAX),
                    },
                ));
            }
        }
        plans.iter().for_each(|d| note(&d.value["plan"]));
        counts.sort_by(|a, b| a.0.cmp(&b.0));
        let plan_count = i64::try_from(plans.len()).unwrap_or(i64::MAX);
        Ok((oldest, counts.into_iter().map(|(_, c)| c).collect(), plan_count))
    }

    async fn namespace_entry(
        &self,
        ctx: &CallContext,
        name: &str,
        detailed: bool,
    ) -> Result<Namespace, Error> {
        let (oldest, entity_counts, plan_count) = self.namespace_stats(name).await?;
        let role = Self::caller_role(ctx, name).unwrap_or(Access::Reader);
        Ok(Namespace {
            name: name.to_string(),
            description: None,
            created_at: oldest.unwrap_or_else(|| self.started_at.clone()),
            caller_role: role_of(role),
            member_count: i32::try_from(self.members_of(name).len()).unwrap_or(i32::MAX),
            plan_count: detailed.then_some(plan_count),
            entity_counts: if detailed { entity_counts } else { vec![] },
        })
    }

    pub async fn list(&self, ctx: &CallContext, params: NamespaceListParams) -> Result<NamespaceList, Error> {
        let limit = page_limit(params.limit)?;
        let after = decode_cursor(params.cursor.as_deref())?;
        let mut names = self.visible_namespaces(ctx).await?;
        if let Some(root) = params
            .namespace
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            let nested = format!("{root}/");
            names.retain(|n| n == root || n.starts_with(&nested));
        }
        let (names, next_cursor) = page(names, |n| n.as_str(), after.as_deref(), limit);
        let mut items = Vec::with_capacity(names.len());
        for name in &names {
            items.push(self.namespace_entry(ctx, name, false).await?);
        }
        Ok(NamespaceList { items, next_cursor })
    }

    pub async fn show(&self, ctx: &CallContext) -> Result<Namespace, Error> {
        let ns = namespace(ctx);
        let what = format!("namespace `{ns}`");
        if !self.visible_namespaces(ctx).await?.contains(&ns) {
            return Err(FAMILY.not_found(&what));
        }
        self.namespace_entry(ctx, &ns, true).await
    }

    pub async fn members(
        &self,
        ctx: &CallContext,
        params: NamespaceMembersParams,
    ) -> Result<NamespaceMemberList, Error> {
        let ns = namespace(ctx);
        let what = format!("namespace `{ns}`");
        let limit = page_limit(params.limit)?;
        let after = decode_cursor(params.cursor.as_deref())?;
        if !self.visible_namespaces(ctx).await?.contains(&ns) {
            return Err(FAMILY.not_found(&what));
        }
        let mut members = self.members_of(&ns);
        if let Some(role) = params.role {
            members.retain(|m| m.role == role);
        }
        let (items, next_cursor) = page(members, |m| m.principal.as_str(), after.as_deref(), limit);
        Ok(NamespaceMemberList {
            namespace: ns,
            items,
            next_cursor,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(
            encode_cursor("acme/marketing"),
            "eyJhZnRlciI6ImFjbWUvbWFya2V0aW5nIn0"
        );
        assert_eq!(
            decode_cursor(Some("eyJhZnRlciI6ImFjbWUvbWFya2V0aW5nIn0"))
                .ok()
                .flatten()
                .as_deref(),
            Some("acme/marketing")
        );
        assert_eq!(decode_cursor(None).ok(), Some(None));
        assert_eq!(decode_cursor(Some("%%%")).err().map(|e| e.code), Some(-32602));
    }
}
