//! Typed client stubs: one async method per callable method, over `rpc::Client`.

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
        impl<T: crate::rpc::Transport> crate::rpc::Client<T> {
            #(#stubs)*
        }
    })
}
