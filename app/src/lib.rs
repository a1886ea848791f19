//! Reference application layer: services and storage behind the contract.
