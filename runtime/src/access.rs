//! Authorization, in one place: the namespace a call acts in and the caller's
//! role there, decided from the method table before any handler runs.
//!
//! The generated router calls [`authorize`] for every dispatched method, so no
//! entry point (HTTP, stdio, an in-process caller) can reach a handler past it.
//! The role a method needs is its descriptor's `access` (the schema's `access`);
//! a namespaced method without one needs admin (fail closed). Methods the schema
//! marks `namespaced: false` act on no namespace's resources and need only an
//! authenticated caller.
//!
//! The namespace is the contract's namespace field of the params (A2A `tenant`,
//! the extension's `namespace`) when it names one, else the caller's default
//! namespace, else the contract set's. It is written into the call context,
//! which is where handlers read it. A caller with no role at all in the
//! namespace gets the contract's not-found error (the namespace does not exist
//! for it); a caller with a lesser role gets the forbidden error, naming the
//! role needed. Without a principal (local mode, where the user runs the agent)
//! every role is held.

use crate::context::CallContext;
use crate::error::Error;
use crate::method::{Access, ContractFacts, MethodDescriptor};
use crate::params::Params;

/// Resolves the namespace of a call of `descriptor` with `params` into `ctx`
/// and checks the caller holds the role the method needs there.
pub fn authorize<C: ContractFacts>(
    ctx: &mut CallContext,
    descriptor: &MethodDescriptor<C>,
    params: &Params,
) -> Result<(), Error> {
    if !descriptor.namespaced {
        return Ok(());
    }
    let contract = descriptor.contract;
    let named = contract
        .namespace_field()
        .and_then(|field| params.string_member(field))
        .filter(|ns| !ns.trim().is_empty());
    let namespace = match named {
        Some(ns) if ns.trim().len() == ns.len() => ns,
        Some(ns) => ns.trim().to_string(),
        None => match ctx.default_namespace.clone() {
            Some(ns) => ns,
            None => contract.default_namespace().unwrap_or_default().to_string(),
        },
    };
    if let Some(principal) = &ctx.principal {
        let needed = descriptor.access.unwrap_or(Access::Admin);
        match principal.access(&namespace) {
            Some(held) if held >= needed => {}
            None => return Err(not_found(contract, descriptor)),
            Some(held) => return Err(forbidden(contract, descriptor, &namespace, needed, held)),
        }
    }
    ctx.namespace = Some(namespace);
    Ok(())
}

fn not_found<C: ContractFacts>(contract: C, descriptor: &MethodDescriptor<C>) -> Error {
    match contract.namespace_not_found() {
        Some(kind) => Error::from_kind(kind),
        // A contract set that declares no such error still refuses: as the
        // method does not exist for this caller.
        None => Error::method_not_found_in(contract, descriptor.name),
    }
}

fn forbidden<C: ContractFacts>(
    contract: C,
    descriptor: &MethodDescriptor<C>,
    namespace: &str,
    needed: Access,
    held: Access,
) -> Error {
    let Some(kind) = contract.forbidden() else {
        return not_found(contract, descriptor);
    };
    Error::new(
        kind,
        format!(
            "`{}` needs the {} role in namespace `{namespace}`; the caller is {}",
            descriptor.name,
            needed.name(),
            held.name()
        ),
    )
    .with_metadata("requiredRole", needed.name())
}
