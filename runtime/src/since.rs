//! Members newer than the version a caller speaks.
//!
//! A minor version of the protocol only adds members, so an older minor
//! version is the current model without them. The generated types that have
//! such a member (`x-since` in the schema), or hold one that has, implement
//! [`FitVersion`]; the generated router fits what a caller sends and what it
//! is answered to the caller's version, so a client of an older version
//! neither sets nor sees a newer member. The wrappers below let a generated
//! impl reach into optional, repeated and boxed members alike.

use crate::context::Version;
use crate::dispatch::{EventStream, MapStream, Reply};
use crate::error::Error;
use std::collections::{BTreeMap, HashMap};

/// A value that may hold members newer than some protocol version.
pub trait FitVersion {
    /// Clears every member that `version` does not know, at any depth.
    fn fit_version(&mut self, version: Version);
}

impl<T: FitVersion> FitVersion for Option<T> {
    fn fit_version(&mut self, version: Version) {
        if let Some(inner) = self {
            inner.fit_version(version);
        }
    }
}

impl<T: FitVersion> FitVersion for Vec<T> {
    fn fit_version(&mut self, version: Version) {
        self.iter_mut().for_each(|inner| inner.fit_version(version));
    }
}

impl<T: FitVersion> FitVersion for Box<T> {
    fn fit_version(&mut self, version: Version) {
        (**self).fit_version(version);
    }
}

impl<K, T: FitVersion> FitVersion for HashMap<K, T> {
    fn fit_version(&mut self, version: Version) {
        self.values_mut().for_each(|inner| inner.fit_version(version));
    }
}

impl<K, T: FitVersion> FitVersion for BTreeMap<K, T> {
    fn fit_version(&mut self, version: Version) {
        self.values_mut().for_each(|inner| inner.fit_version(version));
    }
}

/// A value is fitted; an encoded result goes out as it is, so a handler
/// answers encoded only what every version it serves may see.
impl<T: FitVersion> FitVersion for Reply<T> {
    fn fit_version(&mut self, version: Version) {
        if let Reply::Value(value) = self {
            value.fit_version(version);
        }
    }
}

/// A handler's unary answer fitted to the caller's version (`None`: as it is).
pub fn fit_result<T: FitVersion>(answer: Result<T, Error>, version: Option<Version>) -> Result<T, Error> {
    answer.map(|mut value| {
        if let Some(version) = version {
            value.fit_version(version);
        }
        value
    })
}

/// A handler's stream with every event fitted to the caller's version.
pub fn fit_stream<T: FitVersion + Send + 'static>(
    answer: Result<EventStream<T>, Error>,
    version: Option<Version>,
) -> Result<EventStream<T>, Error> {
    let Some(version) = version else { return answer };
    answer.map(|events| -> EventStream<T> {
        Box::pin(MapStream::new(
            events,
            move |item: Result<crate::Event<T>, Error>| {
                item.map(|mut event| {
                    event.data.fit_version(version);
                    event
                })
            },
        ))
    })
}
