//! Conformance suite derived from the schemas.
