//! Typed client over HTTP and stdio transports.
