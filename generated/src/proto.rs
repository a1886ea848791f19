//! The gRPC binding's `.proto` files, as the generator wrote them from the
//! schemas that declare `x-proto` (see `schema/README.md`): the text a gRPC
//! front or client compiles into descriptors, and what other languages'
//! tooling can be given.

/// Each generated `.proto`: its file name (the name imports use) and its text.
pub const FILES: &[(&str, &str)] = &[("a2a.proto", include_str!("gen/a2a.proto"))];
