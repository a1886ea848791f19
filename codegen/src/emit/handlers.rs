//! Handler traits (one per service) and the `Router` that decodes params,
//! calls the handler and encodes the result.
//!
//! A registry method's handler defaults to the generic method of its operation
//! (`registry.rs` emits what the generic methods are generic over); every other
//! handler defaults to method-not-found, so a backend implements only what it
//! serves.

use super::{dispatched, doc, fn_name, marker, service_trait, Names};
use crate::model::{Contract, MethodDef};
use crate::registry::{Registry, OPERATIONS};
use crate::Result;
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;

pub fn emit(contracts: &[Contract], registry: Option<&Registry>, names: &Names) -> Result<TokenStream> {
    let services = Services::of(contracts, registry, names)?;
    let traits = &services.traits;
    let handler = handler_trait(&services.idents);
    let router = router(&services.arms);
    Ok(quote! {
        #(#traits)*

        #handler

        #router
    })
}

/// The dispatched services of every contract, in schema order: the handler
/// trait of each, and the router's arm of each of their methods.
struct Services {
    traits: Vec<TokenStream>,
    idents: Vec<syn::Ident>,
    arms: Vec<TokenStream>,
}

impl Services {
    fn of(contracts: &[Contract], registry: Option<&Registry>, names: &Names) -> Result<Self> {
        let defaults = registry_defaults(registry, names)?;
        // A result that cannot be encoded is the base contract's internal error,
        // whichever contract the method belongs to.
        let internal = base_internal_error(contracts)?;
        let mut services = Services {
            traits: Vec::new(),
            idents: Vec::new(),
            arms: Vec::new(),
        };
        for contract in contracts {
            for (service, info) in &contract.services {
                let methods: Vec<_> = contract
                    .methods
                    .iter()
                    .filter(|m| &m.service == service && dispatched(m))
                    .collect();
                // A service with nothing to dispatch (binding methods are the
                // transport's) gets no trait.
                if methods.is_empty() {
                    continue;
                }
                let ident = service_trait(service);
                let mut fns = match registry {
                    Some(registry) if &registry.service == service => generic_registry_fns(registry, names)?,
                    _ => Vec::new(),
                };
                for method in &methods {
                    fns.push(handler_fn(service, method, &defaults, names)?);
                }
                for method in &methods {
                    services.arms.push(dispatch_arm(method, &internal, names)?);
                }
                let docs = doc(&format!(
                    "Service `{service}` of the `{}` contract: {}",
                    contract.name, info.description
                ));
                services.traits.push(quote! {
                    #docs
                    pub trait #ident: Send + Sync {
                        #(#fns)*
                    }
                });
                services.idents.push(ident);
            }
        }
        Ok(services)
    }
}

/// What a registry method's handler defaults to: the generic method of its
/// operation, for its kind's entity type.
struct RegistryDefault {
    entity: TokenStream,
    operation: &'static str,
}

/// The registry methods by wire name.
fn registry_defaults<'a>(
    registry: Option<&'a Registry>,
    names: &Names,
) -> Result<BTreeMap<&'a str, RegistryDefault>> {
    let mut defaults = BTreeMap::new();
    for kind in registry.iter().flat_map(|r| &r.kinds) {
        let entity = names.ty(&kind.entity)?;
        for (name, operation) in kind.methods.iter().zip(OPERATIONS) {
            let entity = entity.clone();
            defaults.insert(name.as_str(), RegistryDefault { entity, operation });
        }
    }
    Ok(defaults)
}

/// The handler method of one method, with its default body.
fn handler_fn(
    service: &str,
    method: &MethodDef,
    defaults: &BTreeMap<&str, RegistryDefault>,
    names: &Names,
) -> Result<TokenStream> {
    let f = fn_name(method);
    let m = marker(method);
    let params = names.ty(&method.params)?;
    let result = names.ty(&method.result)?;
    let output = if method.streaming {
        quote!(crate::rpc::EventStream<#result>)
    } else if method.encoded_result {
        quote!(crate::rpc::Reply<#result>)
    } else {
        result.clone()
    };
    let (docs, body) = match defaults.get(method.name.as_str()) {
        Some(RegistryDefault { entity, operation }) => {
            let generic = generic_fn(service, operation);
            let docs = doc(&format!(
                "`{}`: {}\n\nThe default calls [`Self::{generic}`].",
                method.name, method.description,
            ));
            (docs, quote!(self.#generic::<#entity>(ctx, params)))
        }
        None => {
            let docs = doc(&format!(
                "`{}`{}: {}\n\nThe default answers method-not-found.",
                method.name,
                if method.streaming { " (streaming)" } else { "" },
                method.description
            ));
            let body = quote! {
                let _ = (ctx, params);
                async { Err(crate::rpc::Error::unimplemented(<crate::methods::markers::#m as crate::rpc::Method>::descriptor())) }
            };
            (docs, body)
        }
    };
    Ok(quote! {
        #docs
        fn #f(
            &self,
            ctx: &crate::rpc::CallContext,
            params: #params,
        ) -> impl ::std::future::Future<Output = ::std::result::Result<#output, crate::rpc::Error>> + Send {
            #body
        }
    })
}

/// The router's arm of one method: decode its params, then the call of its
/// handler method, boxed on its own inside the call's handler span, encoding
/// what it answers (`internal` if the answer cannot be encoded). Each arm
/// boxes a future of its own method's size: one `async fn` over every arm
/// would be as large as the largest handler's future, and every call would
/// copy all of it.
fn dispatch_arm(method: &MethodDef, internal: &TokenStream, names: &Names) -> Result<TokenStream> {
    let f = fn_name(method);
    let params = names.ty(&method.params)?;
    let wire = &method.name;
    let service = &method.service;
    // Members newer than the caller's A2A version are dropped from what it
    // sends and from what it is answered (see `rpc::FitVersion`).
    let base = names.base.as_ref().filter(|_| !names.fitted.is_empty());
    let version = quote!(ctx.version_of(crate::Contract::#base));
    let fits_result = base.is_some() && names.fitted.contains(&method.result);
    // The handler's future is boxed where it is made, in the arm's first
    // poll: the arm's own future then holds a pointer, and wrapping it in
    // the span and boxing it copy a few words instead of the whole handler
    // state (kilobytes for a send), once per wrapper.
    let answer = quote!(Box::pin(self.handler.#f(&ctx, params)).await);
    let fit = match method.streaming {
        true => quote!(crate::rpc::fit_stream),
        false => quote!(crate::rpc::fit_result),
    };
    let answer = match fits_result {
        true => quote!(#fit(#answer, #version)),
        false => answer,
    };
    let call = if method.streaming {
        quote!(crate::rpc::Outcome::from_stream(#answer, #internal))
    } else if method.encoded_result {
        quote!(crate::rpc::Outcome::from_reply(#answer, #internal))
    } else {
        quote!(crate::rpc::Outcome::from_result(#answer, #internal))
    };
    let fit_params = match base.is_some() && names.fitted.contains(&method.params) {
        true => quote! {
            let mut params = params;
            if let Some(version) = #version {
                crate::rpc::FitVersion::fit_version(&mut params, version);
            }
        },
        false => TokenStream::new(),
    };
    Ok(quote! {
        #wire => {
            let params = match crate::rpc::decode_params::<#params>(descriptor, params) {
                Ok(params) => params,
                Err(error) => return crate::rpc::Outcome::ready(Err(error)),
            };
            #fit_params
            Box::pin(crate::rpc::in_handler_span(#wire, #service, async move { #call }))
        }
    })
}

/// `Handler`: every service trait at once, what the router is generic over.
fn handler_trait(idents: &[syn::Ident]) -> TokenStream {
    quote! {
        /// Everything a backend implements: all service traits. Implement each
        /// trait (an empty `impl` keeps every default) and hand the backend to
        /// [`Router::new`].
        pub trait Handler: #(#idents)+* + 'static {}
        impl<T> Handler for T where T: #(#idents)+* + 'static {}
    }
}

/// `Router`: resolution, authorization and the params' decoding before any
/// handler runs, then the arm of the method, whose boxed future runs inside
/// the call's handler span; the same as a [`Dispatch`](crate::rpc::Dispatch).
fn router(arms: &[TokenStream]) -> TokenStream {
    quote! {
        /// Routes a decoded JSON-RPC call to the handler method of its wire name.
        pub struct Router<H> {
            handler: ::std::sync::Arc<H>,
        }

        impl<H> Clone for Router<H> {
            fn clone(&self) -> Self { Self { handler: self.handler.clone() } }
        }

        impl<H: Handler> Router<H> {
            /// A router over `handler`.
            pub fn new(handler: ::std::sync::Arc<H>) -> Self { Self { handler } }

            /// The backend.
            pub fn handler(&self) -> &::std::sync::Arc<H> { &self.handler }

            /// Calls `method` with `params` (absent params read as `{}`; a
            /// binding's text is decoded straight into the method's type): unknown
            /// methods, binding methods and methods newer than the caller's extension
            /// version answer method-not-found; the caller is then authorized in the
            /// namespace the call acts in ([`crate::rpc::authorize`]); params that do not match the method's
            /// schema answer invalid-params with the offending field. The handler
            /// runs inside the call's `handler` span.
            ///
            /// Resolution, authorization and decoding happen here, before the
            /// future is returned; the future is the handler's call alone.
            pub fn dispatch(
                &self,
                ctx: crate::rpc::CallContext,
                method: &str,
                params: impl ::std::convert::Into<crate::rpc::Params>,
            ) -> crate::rpc::BoxFuture<'_, crate::rpc::Outcome> {
                let params = params.into();
                let descriptor = match crate::rpc::resolve(method, &ctx) {
                    Ok(descriptor) => descriptor,
                    Err(error) => return crate::rpc::Outcome::ready(Err(error)),
                };
                let mut ctx = ctx;
                if let Err(error) = crate::rpc::authorize(&mut ctx, descriptor, &params) {
                    return crate::rpc::Outcome::ready(Err(error));
                }
                match descriptor.name {
                    #(#arms)*
                    _ => crate::rpc::Outcome::ready(Err(crate::rpc::method_not_found(method))),
                }
            }
        }

        impl<H: Handler> crate::rpc::Dispatch for Router<H> {
            fn dispatch_params<'a>(
                &'a self,
                ctx: crate::rpc::CallContext,
                method: &'a str,
                params: crate::rpc::Params,
            ) -> crate::rpc::BoxFuture<'a, crate::rpc::Outcome> {
                Router::dispatch(self, ctx, method, params)
            }
        }
    }
}

/// The generic handler method an operation of every registry kind defaults to.
fn generic_fn(service: &str, operation: &str) -> syn::Ident {
    quote::format_ident!("{}_{operation}", service.to_snake_case())
}

/// One generic method per registry operation: implementing these five answers
/// every kind's methods.
fn generic_registry_fns(registry: &Registry, names: &Names) -> Result<Vec<TokenStream>> {
    let entity = quote!(crate::registry::RegistryEntity);
    let list_params = names.ty(&registry.list_params)?;
    let show_params = names.ty(&registry.show_params)?;
    let remove_params = names.ty(&registry.remove_params)?;
    let remove_result = names.ty(&registry.remove_result)?;
    let shapes = [
        (list_params, quote!(E::List)),
        (show_params, quote!(E)),
        (quote!(E::AddParams), quote!(E)),
        (quote!(E::UpdateParams), quote!(E)),
        (remove_params, remove_result),
    ];
    Ok(OPERATIONS
        .iter()
        .zip(shapes)
        .map(|(op, (params, output))| {
            let f = generic_fn(&registry.service, op);
            let variant = quote::format_ident!("{}", op.to_upper_camel_case());
            let docs = doc(&format!(
                "`{}` of any registry kind `E`: every kind's `{op}` method defaults to this.\n\nThe default answers method-not-found.",
                registry.service
            ));
            quote! {
                #docs
                fn #f<E: #entity>(
                    &self,
                    ctx: &crate::rpc::CallContext,
                    params: #params,
                ) -> impl ::std::future::Future<Output = ::std::result::Result<#output, crate::rpc::Error>> + Send {
                    let _ = (ctx, params);
                    async { Err(crate::rpc::Error::unimplemented(E::method(crate::registry::RegistryOperation::#variant))) }
                }
            }
        })
        .collect())
}

/// The base contract's internal error, for results that cannot be encoded.
fn base_internal_error(contracts: &[Contract]) -> Result<TokenStream> {
    let base = contracts
        .first()
        .ok_or_else(|| crate::Error::schema("", "no contract"))?;
    let error = base
        .error_with_code(-32603)
        .ok_or_else(|| crate::Error::schema(&base.file, "no error -32603"))?;
    let e = super::error_variant(error);
    Ok(quote!(crate::errors::ErrorKind::#e))
}
