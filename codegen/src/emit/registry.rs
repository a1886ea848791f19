//! The registry module: one descriptor per registry kind and the
//! `RegistryEntity` trait on every entity type, so a backend writes one generic
//! registry instead of a copy per kind (see `handlers.rs` for the generic
//! handler methods every kind's methods default to).
//!
//! What a kind is comes from `x-registry` as `crate::registry` resolved it; the
//! descriptors hold it as data, the `RegistryEntity` impls as types.

use super::{doc, marker, Names};
use crate::model::Contract;
use crate::registry::{Kind, Registry, OPERATIONS};
use crate::{Error, Result};
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

pub fn emit(contracts: &[Contract], registry: Option<&Registry>, names: &Names) -> Result<TokenStream> {
    let Some(registry) = registry else {
        return Ok(quote! {});
    };
    let kind_enum = names.ty(&registry.kind_enum)?;
    let operations: Vec<syn::Ident> = OPERATIONS
        .iter()
        .map(|op| format_ident!("{}", op.to_upper_camel_case()))
        .collect();
    let impls = registry
        .kinds
        .iter()
        .map(|kind| entity_impl(contracts, kind, &kind_enum, &operations, names))
        .collect::<Result<Vec<_>>>()?;
    let operation_enum = operation_enum(&operations);
    let descriptor_struct = descriptor_struct(&kind_enum);
    let kind_table = kind_table(registry, &kind_enum);
    let entity_trait = entity_trait(&kind_enum);
    Ok(quote! {
        #operation_enum
        #descriptor_struct
        #kind_table
        #entity_trait
        #(#impls)*
    })
}

/// `RegistryOperation`, one variant per operation, in [`OPERATIONS`] order.
fn operation_enum(operations: &[syn::Ident]) -> TokenStream {
    let op_docs = OPERATIONS.iter().map(|op| doc(&format!("`…/{op}`")));
    quote! {
        /// The operations every registry kind has, in the order of
        /// [`RegistryKindDescriptor::methods`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RegistryOperation {
            #(#op_docs #operations,)*
        }
    }
}

/// `RegistryKindDescriptor`: the shape of one kind's entry in the kind table.
fn descriptor_struct(kind_enum: &TokenStream) -> TokenStream {
    let operation_count = OPERATIONS.len();
    quote! {
        /// Everything the schema says about one registry kind.
        #[derive(Debug)]
        pub struct RegistryKindDescriptor {
            /// The kind this descriptor describes.
            pub kind: #kind_enum,
            /// Singular kebab-case name (`resource-type`).
            pub name: &'static str,
            /// Human label (`Resource type`), for messages.
            pub label: &'static str,
            /// Path segment of the kind's methods (`resource-types`).
            pub path: &'static str,
            /// Field of the add and update params carrying the spec (`resourceType`).
            pub spec_field: &'static str,
            /// Wire names of the spec's fields: what a client may write.
            pub spec_fields: &'static [&'static str],
            /// Wire names of the kind's methods, one per [`RegistryOperation`].
            pub methods: [&'static str; #operation_count],
        }

        impl RegistryKindDescriptor {
            /// The wire name of the kind's method for `operation`.
            pub fn method(&self, operation: RegistryOperation) -> &'static str {
                self.methods[operation as usize]
            }
        }
    }
}

/// `REGISTRY_KINDS`, one descriptor per kind in schema order, and the kind
/// enum's `ALL` and `descriptor`, which index it.
fn kind_table(registry: &Registry, kind_enum: &TokenStream) -> TokenStream {
    let mut descriptors = Vec::new();
    let mut arms = Vec::new();
    let mut variants = Vec::new();
    for (index, kind) in registry.kinds.iter().enumerate() {
        let variant = format_ident!("{}", kind.variant);
        let (name, label, path, field) = (&kind.name, &kind.label, &kind.path, &kind.spec_field);
        let fields = &kind.spec_fields;
        let methods = &kind.methods;
        descriptors.push(quote! {
            RegistryKindDescriptor {
                kind: #kind_enum::#variant,
                name: #name,
                label: #label,
                path: #path,
                spec_field: #field,
                spec_fields: &[#(#fields),*],
                methods: [#(#methods),*],
            }
        });
        arms.push(quote!(#kind_enum::#variant => &REGISTRY_KINDS[#index]));
        variants.push(quote!(#kind_enum::#variant));
    }
    let count = registry.kinds.len();
    let description = doc(&format!(
        "Every registry kind, in schema order.\n\n{}",
        registry.description
    ));
    quote! {
        #description
        pub static REGISTRY_KINDS: &[RegistryKindDescriptor] = &[#(#descriptors),*];

        impl #kind_enum {
            /// Every kind, in schema order.
            pub const ALL: [#kind_enum; #count] = [#(#variants),*];

            /// What the schema says about this kind.
            pub fn descriptor(self) -> &'static RegistryKindDescriptor {
                match self {
                    #(#arms,)*
                }
            }
        }
    }
}

/// The `RegistryEntity` trait a generic registry is written against.
fn entity_trait(kind_enum: &TokenStream) -> TokenStream {
    quote! {
        /// An entity type of the registry: its kind, spec, list page and params.
        pub trait RegistryEntity:
            ::serde::Serialize + ::serde::de::DeserializeOwned + Clone + Send + Sync + 'static
        {
            /// The registry kind of the entity type.
            const KIND: #kind_enum;
            /// What a client writes (the entity without its server-kept fields).
            type Spec: ::serde::Serialize + ::serde::de::DeserializeOwned + Clone + Send + Sync + 'static;
            /// One page of entities.
            type List: Send + 'static;
            /// The params of the kind's `add` method.
            type AddParams: Send + 'static;
            /// The params of the kind's `update` method.
            type UpdateParams: Send + 'static;
            /// What the schema says about the kind.
            fn descriptor() -> &'static RegistryKindDescriptor {
                Self::KIND.descriptor()
            }
            /// The kind's method for `operation`.
            fn method(operation: RegistryOperation) -> &'static crate::rpc::MethodDescriptor;
            /// A page of entities.
            fn page(items: ::std::vec::Vec<Self>, next_cursor: ::std::option::Option<::std::string::String>) -> Self::List;
            /// The spec of an add (its namespace is the call's, in the call context).
            fn added(params: Self::AddParams) -> Self::Spec;
            /// The expected version and spec of an update.
            fn updated(params: Self::UpdateParams) -> (i64, Self::Spec);
        }
    }
}

/// `RegistryEntity` on one kind's entity type.
fn entity_impl(
    contracts: &[Contract],
    kind: &Kind,
    kind_enum: &TokenStream,
    operations: &[syn::Ident],
    names: &Names,
) -> Result<TokenStream> {
    let variant = format_ident!("{}", kind.variant);
    let label = &kind.label;
    let entity = names.ty(&kind.entity)?;
    let spec = names.ty(&kind.spec)?;
    let list = names.ty(&kind.list)?;
    let add = names.ty(&kind.add_params)?;
    let update = names.ty(&kind.update_params)?;
    let spec_ident = format_ident!("{}", kind.spec_field.to_snake_case());
    let markers = operation_descriptors(contracts, kind)?;
    let docs = doc(&format!("`{}`: the `{label}` kind of the registry.", kind.entity));
    Ok(quote! {
        #docs
        impl RegistryEntity for #entity {
            const KIND: #kind_enum = #kind_enum::#variant;
            type Spec = #spec;
            type List = #list;
            type AddParams = #add;
            type UpdateParams = #update;
            fn method(operation: RegistryOperation) -> &'static crate::rpc::MethodDescriptor {
                match operation {
                    #(RegistryOperation::#operations => #markers,)*
                }
            }
            fn page(items: ::std::vec::Vec<Self>, next_cursor: ::std::option::Option<::std::string::String>) -> Self::List {
                #list { items, next_cursor }
            }
            fn added(params: Self::AddParams) -> Self::Spec {
                params.#spec_ident
            }
            fn updated(params: Self::UpdateParams) -> (i64, Self::Spec) {
                (params.expected_version, params.#spec_ident)
            }
        }
    })
}

/// The descriptor of the kind's method for each operation, through its marker
/// type, so `RegistryEntity::method` is a match, not a lookup by name.
fn operation_descriptors(contracts: &[Contract], kind: &Kind) -> Result<Vec<TokenStream>> {
    kind.methods
        .iter()
        .map(|name| {
            let method = contracts
                .iter()
                .flat_map(|c| &c.methods)
                .find(|m| &m.name == name)
                .ok_or_else(|| Error::Syntax {
                    what: "registry".into(),
                    message: format!("no method `{name}`"),
                })?;
            let marker = marker(method);
            Ok(quote!(<crate::methods::markers::#marker as crate::rpc::Method>::descriptor()))
        })
        .collect()
}
