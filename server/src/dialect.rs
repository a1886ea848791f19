//! The dialects on the shared call path. A 1.x call runs as it is (its
//! context names its minor version, to which the generated router fits what
//! it sends and what it is answered). A 0.3 call (by its 0.3 name or
//! an alias of the decision record) is upgraded into the 1.0 call that serves
//! it, runs through the same [`Pipeline`] as a 1.0 call (capability gates,
//! authorization, the same handlers and store), and its result or each of its
//! stream events is downgraded back. Errors keep their code, message and data:
//! the codes of the two versions agree.

use crate::auth::Authenticated;
use crate::negotiate::Dialect;
use crate::pipeline::Pipeline;
use a2a::rpc::{to_raw, CallContext, Error, Event, MapStream, Outcome, Params, RawJson};
use a2a::{Contract, ErrorKind};
use serde_json::Value;

/// Runs one call in the caller's dialect.
pub(crate) async fn call_in(
    pipeline: &Pipeline,
    dialect: Dialect,
    ctx: CallContext,
    caller: Option<&Authenticated>,
    method: &str,
    params: Params,
) -> Outcome {
    match dialect {
        Dialect::V1(_) => pipeline.call(ctx, caller, method, params).await,
        Dialect::V0_3 => call_v0_3(pipeline, ctx, caller, method, params).await,
    }
}

async fn call_v0_3(
    pipeline: &Pipeline,
    ctx: CallContext,
    caller: Option<&Authenticated>,
    method: &str,
    params: Params,
) -> Outcome {
    let Some(descriptor) = a2a::v0_3::find_method(method) else {
        return Outcome::Single(Err(Error::method_not_found_in(Contract::A2a, method)));
    };
    let params = match (descriptor.upgrade_params)(params) {
        Ok(params) => params,
        Err(error) => return Outcome::Single(Err(error)),
    };
    let downgrade = descriptor.downgrade_result;
    match pipeline.call(ctx, caller, descriptor.serves, params.into()).await {
        Outcome::Single(result) => Outcome::Single(result.and_then(|raw| convert(downgrade, &raw))),
        Outcome::Stream(events) => Outcome::Stream(Box::pin(MapStream::new(
            events,
            move |item: Result<Event<RawJson>, Error>| {
                let event = item?;
                Ok(Event {
                    seq: event.seq,
                    data: convert(downgrade, &event.data)?,
                })
            },
        ))),
    }
}

/// Applies a downgrade to encoded 1.0 JSON.
fn convert(downgrade: fn(Value) -> Result<Value, Error>, raw: &RawJson) -> Result<RawJson, Error> {
    let value: Value = serde_json::from_str(raw.get())
        .map_err(|e| Error::new(ErrorKind::InternalError, format!("a result is not JSON: {e}")))?;
    let value = downgrade(value)?;
    to_raw(&value).map_err(|e| {
        Error::new(
            ErrorKind::InternalError,
            format!("a result could not be encoded: {e}"),
        )
    })
}
