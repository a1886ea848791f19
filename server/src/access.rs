//! Authorization: which role each method needs, and the check of a principal's
//! role in the namespace a request acts in.
//!
//! The role comes from the method table: each descriptor's `access` (the
//! schema's `access`: reader for reads, writer for mutations, admin for
//! membership, sync and diagnostics). Methods the schema marks `namespaced: false`
//! act on no namespace's resources and need only an authenticated caller
//! (`GetExtendedAgentCard`, `_cleveragents/namespace/list`,
//! `_cleveragents/health/check`). A dispatched method without an `access` needs
//! admin (fail closed).
//!
//! The namespace is the `namespace` param of extension methods or the `tenant`
//! param of A2A methods (A2A `tenant` = CleverAgents namespace); when absent, the
//! principal's default namespace, which is then written into the params so the
//! backend acts where the check was made. A caller with no role at all in the
//! namespace gets "not found" (the namespace does not exist for it); a caller
//! with a lesser role gets -32003 forbidden.

use crate::auth::Authenticated;
use a2a::rpc::{Access, Error, MethodDescriptor};
use a2a::{Contract, ErrorKind};
use serde_json::{Map, Value};

/// What a method requires of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// Any authenticated caller.
    Authenticated,
    /// At least this role in the namespace the request acts in.
    Namespace(Access),
}

/// The requirement of a method.
pub fn requirement(descriptor: &MethodDescriptor) -> Requirement {
    if !descriptor.namespaced {
        return Requirement::Authenticated;
    }
    Requirement::Namespace(descriptor.access.unwrap_or(Access::Admin))
}

/// The param naming the namespace for a contract (`x-contract.namespaceField`);
/// a contract that declares none names it `namespace`.
fn namespace_field(contract: Contract) -> &'static str {
    contract.namespace_field().unwrap_or("namespace")
}

/// Checks `caller` may call `descriptor` with `params`, filling in the default
/// namespace when the params name none.
pub(crate) fn authorize(
    caller: &Authenticated,
    descriptor: &MethodDescriptor,
    params: &mut Option<Value>,
) -> Result<(), Error> {
    let needed = match requirement(descriptor) {
        Requirement::Authenticated => return Ok(()),
        Requirement::Namespace(needed) => needed,
    };
    let field = namespace_field(descriptor.contract);
    let named = params
        .as_ref()
        .and_then(|p| p.get(field))
        .and_then(Value::as_str)
        .map(str::to_string);
    let namespace = match named {
        Some(ns) if !ns.is_empty() => ns,
        _ => {
            let ns = caller.default_namespace.clone();
            // Only fill in objects (or absent params); anything else is left for
            // the router to reject as invalid params.
            match params {
                None => {
                    let mut object = Map::new();
                    object.insert(field.into(), Value::String(ns.clone()));
                    *params = Some(Value::Object(object));
                }
                Some(Value::Object(object)) if !object.contains_key(field) => {
                    object.insert(field.into(), Value::String(ns.clone()));
                }
                _ => {}
            }
            ns
        }
    };
    match caller.principal.access(&namespace) {
        None => Err(not_found(descriptor.contract)),
        Some(held) if held >= needed => Ok(()),
        Some(held) => Err(Error::new(
            ErrorKind::ExtAuthForbidden,
            format!(
                "`{}` needs the {} role in namespace `{namespace}`; the caller is {}",
                descriptor.name,
                role_name(needed),
                role_name(held)
            ),
        )
        .with_metadata("requiredRole", role_name(needed))),
    }
}

/// The answer for a namespace the caller cannot read: the same as for a
/// resource that does not exist, so nothing leaks.
fn not_found(contract: Contract) -> Error {
    match contract {
        Contract::A2a => Error::from_kind(ErrorKind::TaskNotFound),
        _ => Error::from_kind(ErrorKind::ExtNotFound),
    }
}

fn role_name(access: Access) -> &'static str {
    match access {
        Access::Reader => "reader",
        Access::Writer => "writer",
        Access::Admin => "admin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(name: &str) -> Requirement {
        requirement(a2a::find_method(name).expect("method"))
    }

    #[test]
    fn every_dispatched_method_declares_its_access() {
        for d in a2a::METHODS.iter().filter(|d| d.is_dispatched()) {
            assert!(d.access.is_some(), "{} has no access in the schema", d.name);
        }
        let namespaceless: Vec<&str> = a2a::METHODS
            .iter()
            .filter(|d| d.is_dispatched() && !d.namespaced)
            .map(|d| d.name)
            .collect();
        assert_eq!(
            namespaceless,
            [
                "GetExtendedAgentCard",
                "_cleveragents/namespace/list",
                "_cleveragents/health/check"
            ]
        );
    }

    #[test]
    fn sample_requirements() {
        use Requirement::*;
        assert_eq!(of("GetTask"), Namespace(Access::Reader));
        assert_eq!(of("SendMessage"), Namespace(Access::Writer));
        assert_eq!(of("_cleveragents/registry/actors/add"), Namespace(Access::Writer));
        assert_eq!(of("_cleveragents/plan/diff"), Namespace(Access::Reader));
        assert_eq!(of("_cleveragents/sync/push"), Namespace(Access::Admin));
        assert_eq!(of("_cleveragents/namespace/members"), Namespace(Access::Admin));
        assert_eq!(of("_cleveragents/namespace/list"), Authenticated);
        assert_eq!(of("GetExtendedAgentCard"), Authenticated);
    }
}
