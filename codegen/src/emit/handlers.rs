//! Handler traits (one per service) and the `Router` that decodes params,
//! calls the handler and encodes the result.

use super::{dispatched, doc, fn_name, marker, service_trait, Names};
use crate::model::Contract;
use crate::registry::{Registry, OPERATIONS};
use crate::Result;
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::quote;

pub fn emit(contracts: &[Contract], registry: Option<&Registry>, names: &Names) -> Result<TokenStream> {
    // Registry methods: wire name → (entity type, operation).
    let mut registry_methods = std::collections::BTreeMap::new();
    for kind in registry.iter().flat_map(|r| &r.kinds) {
        let entity = names.ty(&kind.entity)?;
        for (name, op) in kind.methods.iter().zip(OPERATIONS) {
            registry_methods.insert(name.as_str(), (entity.clone(), op));
        }
    }
    // A result that cannot be encoded is the base contract's internal error,
    // whichever contract the method belongs to.
    let internal = base_internal_error(contracts)?;
    let mut traits = Vec::new();
    let mut trait_idents = Vec::new();
    let mut arms = Vec::new();
    for contract in contracts {
        for (service, info) in &contract.services {
            let methods: Vec<_> = contract
                .methods
                .iter()
                .filter(|m| &m.service == service && dispatched(m))
                .collect();
            if methods.is_empty() {
                continue;
            }
            let ident = service_trait(service);
            let mut fns = match registry {
                Some(registry) if &registry.service == service => generic_registry_fns(registry, names)?,
                _ => Vec::new(),
            };
            for method in methods {
                let f = fn_name(method);
                let m = marker(method);
                let params = names.ty(&method.params)?;
                let result = names.ty(&method.result)?;
                let output = if method.streaming {
                    quote!(crate::rpc::EventStream<#result>)
                } else {
                    result.clone()
                };
                let docs = doc(&format!(
                    "`{}`{}: {}\n\nThe default answers method-not-found.",
                    method.name,
                    if method.streaming { " (streaming)" } else { "" },
                    method.description
                ));
                let body = match registry_methods.get(method.name.as_str()) {
                    Some((entity, op)) => {
                        let generic = generic_fn(service, op);
                        quote!(self.#generic::<#entity>(ctx, params))
                    }
                    None => quote! {
                        let _ = (ctx, params);
                        async { Err(crate::rpc::Error::unimplemented(<crate::methods::markers::#m as crate::rpc::Method>::descriptor())) }
                    },
                };
                let docs = match registry_methods.get(method.name.as_str()) {
                    Some((_, op)) => doc(&format!(
                        "`{}`: {}\n\nThe default calls [`Self::{}`].",
                        method.name,
                        method.description,
                        generic_fn(service, op)
                    )),
                    None => docs,
                };
                fns.push(quote! {
                    #docs
                    fn #f(
                        &self,
                        ctx: &crate::rpc::CallContext,
                        params: #params,
                    ) -> impl ::std::future::Future<Output = ::std::result::Result<#output, crate::rpc::Error>> + Send {
                        #body
                    }
                });
                let wire = &method.name;
                let call = if method.streaming {
                    quote!(crate::rpc::Outcome::from_stream(self.handler.#f(&ctx, params).await, #internal))
                } else {
                    quote!(crate::rpc::Outcome::from_result(self.handler.#f(&ctx, params).await, #internal))
                };
                arms.push(quote! {
                    #wire => {
                        let params = match crate::rpc::decode_params::<#params>(descriptor, params) {
                            Ok(params) => params,
                            Err(error) => return crate::rpc::Outcome::Single(Err(error)),
                        };
                        #call
                    }
                });
            }
            let docs = doc(&format!(
                "Service `{service}` of the `{}` contract: {}",
                contract.name, info.description
            ));
            traits.push(quote! {
                #docs
                pub trait #ident: Send + Sync {
                    #(#fns)*
                }
            });
            trait_idents.push(ident);
        }
    }

    Ok(quote! {
        #(#traits)*

        /// Everything a backend implements: all service traits. Implement each
        /// trait (an empty `impl` keeps every default) and hand the backend to
        /// [`Router::new`].
        pub trait Handler: #(#trait_idents)+* + 'static {}
        impl<T> Handler for T where T: #(#trait_idents)+* + 'static {}

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

            /// Calls `method` with `params` (absent params read as `{}`): unknown
            /// methods, binding methods and methods newer than the caller's extension
            /// version answer method-not-found; the caller is then authorized in the
            /// namespace the call acts in ([`crate::rpc::authorize`]); params that do not match the method's
            /// schema answer invalid-params with the offending field.
            pub async fn dispatch(
                &self,
                ctx: crate::rpc::CallContext,
                method: &str,
                params: ::std::option::Option<::serde_json::Value>,
            ) -> crate::rpc::Outcome {
                let descriptor = match crate::rpc::resolve(method, &ctx) {
                    Ok(descriptor) => descriptor,
                    Err(error) => return crate::rpc::Outcome::Single(Err(error)),
                };
                let mut ctx = ctx;
                if let Err(error) = crate::rpc::authorize(&mut ctx, descriptor, params.as_ref()) {
                    return crate::rpc::Outcome::Single(Err(error));
                }
                match descriptor.name {
                    #(#arms)*
                    _ => crate::rpc::Outcome::Single(Err(crate::rpc::method_not_found(method))),
                }
            }
        }

        impl<H: Handler> crate::rpc::Dispatch for Router<H> {
            fn dispatch<'a>(
                &'a self,
                ctx: crate::rpc::CallContext,
                method: &'a str,
                params: ::std::option::Option<::serde_json::Value>,
            ) -> crate::rpc::BoxFuture<'a, crate::rpc::Outcome> {
                Box::pin(Router::dispatch(self, ctx, method, params))
            }
        }
    })
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
