//! The typed client: one async method per callable method, over any
//! `rpc::Transport` (the encoding lives once in the runtime's `call`/`subscribe`).

use super::{doc, fn_name, marker, Names};
use crate::model::Contract;
use crate::Result;
use proc_macro2::TokenStream;
use quote::quote;

pub fn emit(contracts: &[Contract], names: &Names) -> Result<TokenStream> {
    let mut stubs = Vec::new();
    for contract in contracts {
        for method in contract.methods.iter().filter(|m| !m.notification) {
            let f = fn_name(method);
            let m = marker(method);
            let params = names.ty(&method.params)?;
            let result = names.ty(&method.result)?;
            let docs = doc(&format!("`{}`: {}", method.name, method.description));
            stubs.push(if method.streaming {
                quote! {
                    #docs
                    pub async fn #f(&self, params: #params) -> ::std::result::Result<crate::rpc::ClientStream<#result>, crate::rpc::CallError> {
                        self.subscribe::<crate::methods::markers::#m>(params).await
                    }
                }
            } else {
                quote! {
                    #docs
                    pub async fn #f(&self, params: #params) -> ::std::result::Result<#result, crate::rpc::CallError> {
                        self.call::<crate::methods::markers::#m>(params).await
                    }
                }
            });
        }
    }
    Ok(quote! {
        /// The typed client: one method per callable method of the contracts.
        pub struct Client<T> {
            transport: T,
        }

        impl<T: crate::rpc::Transport> Client<T> {
            /// A client over `transport`.
            pub fn new(transport: T) -> Self { Client { transport } }

            /// The transport the client calls through.
            pub fn transport(&self) -> &T { &self.transport }

            /// Calls method `M`.
            pub async fn call<M: crate::rpc::Method>(&self, params: M::Params) -> ::std::result::Result<M::Result, crate::rpc::CallError> {
                ::a2a_runtime::client::call::<M, T>(&self.transport, params).await
            }

            /// Calls streaming method `M`.
            pub async fn subscribe<M: crate::rpc::Method>(&self, params: M::Params) -> ::std::result::Result<crate::rpc::ClientStream<M::Result>, crate::rpc::CallError>
            where
                M::Result: 'static,
            {
                ::a2a_runtime::client::subscribe::<M, T>(&self.transport, params).await
            }

            #(#stubs)*
        }
    })
}
