//! Enum variants without their enum's name as a prefix. Proto enum values carry
//! the enum's name (`TASK_STATE_COMPLETED` in `TaskState`), so typify names the
//! variant `TaskStateCompleted`; the Rust name becomes `TaskState::Completed`
//! while the wire name (the serde rename) stays as it is.

use std::collections::BTreeMap;
use syn::visit_mut::VisitMut;
use syn::{Fields, Item};

/// Renames the variants of every unit-only enum whose variants all start with
/// the enum's name, in the enum and in every path that names them.
pub fn strip_enum_name_prefixes(file: &mut syn::File) {
    let renames: BTreeMap<String, BTreeMap<String, String>> = file
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Enum(item) => Some((item.ident.to_string(), unprefixed(item)?)),
            _ => None,
        })
        .collect();
    Rename {
        renames: &renames,
        self_type: None,
    }
    .visit_file_mut(file);
}

/// Old variant name → new one, if every variant of `item` is a unit variant
/// named after the enum and a valid name remains once the prefix is removed.
fn unprefixed(item: &syn::ItemEnum) -> Option<BTreeMap<String, String>> {
    let name = item.ident.to_string();
    let mut renames = BTreeMap::new();
    for variant in &item.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return None;
        }
        let old = variant.ident.to_string();
        let rest = old.strip_prefix(&name)?.to_string();
        // `Self` is the one capitalized keyword; an empty or digit-led rest is no name.
        if !rest.starts_with(|c: char| c.is_ascii_uppercase()) || rest == "Self" {
            return None;
        }
        renames.insert(old, rest);
    }
    (!renames.is_empty()).then_some(renames)
}

struct Rename<'a> {
    renames: &'a BTreeMap<String, BTreeMap<String, String>>,
    /// The type of the `impl` block being visited (what `Self` means there).
    self_type: Option<String>,
}

impl VisitMut for Rename<'_> {
    fn visit_item_enum_mut(&mut self, item: &mut syn::ItemEnum) {
        if let Some(renames) = self.renames.get(&item.ident.to_string()) {
            for variant in &mut item.variants {
                if let Some(new) = renames.get(&variant.ident.to_string()) {
                    variant.ident = syn::Ident::new(new, variant.ident.span());
                }
            }
        }
        syn::visit_mut::visit_item_enum_mut(self, item);
    }

    fn visit_item_impl_mut(&mut self, item: &mut syn::ItemImpl) {
        let outer = self.self_type.take();
        if let syn::Type::Path(path) = &*item.self_ty {
            self.self_type = path.path.segments.last().map(|s| s.ident.to_string());
        }
        syn::visit_mut::visit_item_impl_mut(self, item);
        self.self_type = outer;
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        for i in 1..path.segments.len() {
            let owner = path.segments[i - 1].ident.to_string();
            let owner = if owner == "Self" {
                self.self_type.clone().unwrap_or(owner)
            } else {
                owner
            };
            if let Some(new) = self
                .renames
                .get(&owner)
                .and_then(|r| r.get(&path.segments[i].ident.to_string()))
            {
                let span = path.segments[i].ident.span();
                path.segments[i].ident = syn::Ident::new(new, span);
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}
