//! Small shared helpers: timestamps, identifiers, namespace resolution and
//! access checks, and the error constructors every service uses.

use a2a::rpc::{Access, CallContext, Error};
use a2a::ErrorKind;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// The namespace used when a request names none (A2A `tenant` empty or absent).
pub const DEFAULT_NAMESPACE: &str = "default";

/// The extension URI under which plan task events carry their domain event.
pub const EXTENSION_URI: &str = "urn:cleveragents:extensions:v1";

/// Now as RFC 3339 UTC with fixed millisecond precision. The fixed width makes
/// timestamps sort lexically in time order, which the stores rely on.
pub fn now() -> String {
    format_ts(OffsetDateTime::now_utc())
}

fn format_ts(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// Parses an RFC 3339 timestamp into the canonical fixed-width UTC form.
pub fn normalize_ts(text: &str) -> Option<String> {
    OffsetDateTime::parse(text, &Rfc3339).ok().map(format_ts)
}

/// A fresh random identifier.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The namespace a request addresses: the given one, else the default.
pub fn namespace_of(requested: Option<&str>) -> String {
    match requested.map(str::trim) {
        Some(ns) if !ns.is_empty() => ns.to_string(),
        _ => DEFAULT_NAMESPACE.to_string(),
    }
}

/// True when the caller may read `namespace` (local mode reads everything).
pub fn can_read(ctx: &CallContext, namespace: &str) -> bool {
    ctx.principal
        .as_ref()
        .is_none_or(|p| p.can(namespace, Access::Reader))
}

/// True when the caller holds `needed` in `namespace`.
pub fn can(ctx: &CallContext, namespace: &str, needed: Access) -> bool {
    ctx.principal.as_ref().is_none_or(|p| p.can(namespace, needed))
}

/// Which error family a check answers in: the A2A one or the extension's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    A2a,
    Ext,
}

impl Family {
    pub fn not_found(self, what: &str) -> Error {
        match self {
            Family::A2a => Error::new(ErrorKind::TaskNotFound, format!("{what} not found")),
            Family::Ext => Error::new(ErrorKind::ExtNotFound, format!("{what} not found")),
        }
    }
    pub fn invalid_params(self, field: &str, description: &str) -> Error {
        let kind = match self {
            Family::A2a => ErrorKind::InvalidParams,
            Family::Ext => ErrorKind::ExtInvalidParams,
        };
        Error::new(kind, format!("Invalid params: {field}: {description}"))
            .with_field_violation(field, description)
    }
    pub fn internal(self, message: impl Into<String>) -> Error {
        let kind = match self {
            Family::A2a => ErrorKind::InternalError,
            Family::Ext => ErrorKind::ExtInternalError,
        };
        Error::new(kind, message)
    }
}

/// Checks that the caller holds `needed` in `namespace`. A caller that cannot
/// even read it gets "not found" for `what`, so existence never leaks.
pub fn require(
    ctx: &CallContext,
    namespace: &str,
    needed: Access,
    family: Family,
    what: &str,
) -> Result<(), Error> {
    if !can_read(ctx, namespace) {
        return Err(family.not_found(what));
    }
    if !can(ctx, namespace, needed) {
        return Err(Error::new(
            ErrorKind::ExtAuthForbidden,
            format!("this operation needs the {needed:?} role in the namespace"),
        ));
    }
    Ok(())
}

/// Serializes a value the contract defines; a failure is a bug, reported as an
/// internal error rather than a panic.
pub fn to_json<T: serde::Serialize>(value: &T, family: Family) -> Result<serde_json::Value, Error> {
    serde_json::to_value(value).map_err(|e| family.internal(format!("encoding failed: {e}")))
}

/// Decodes a stored value; corruption is an internal error.
pub fn from_json<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    family: Family,
) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| family.internal(format!("stored data is unreadable: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_fixed_width_utc() {
        assert_eq!(
            normalize_ts("2024-02-03T04:05:06+01:00").as_deref(),
            Some("2024-02-03T03:05:06.000Z")
        );
        assert_eq!(normalize_ts("yesterday"), None);
        assert_eq!(now().len(), 24);
    }

    #[test]
    fn empty_tenant_is_default_namespace() {
        assert_eq!(namespace_of(None), "default");
        assert_eq!(namespace_of(Some(" ")), "default");
        assert_eq!(namespace_of(Some("team")), "team");
    }
}
