//! The gRPC binding's decoding of a peer's bytes: the first byte picks the rpc
//! (and, by its top bit, its request or its response message); the rest is a
//! request body as the server reads it, or one streamed answer message as the
//! client reads it. A body that is not one message is refused; a message that
//! decodes has a JSON form that encodes back to protobuf and whose JSON form
//! is the same again (the transcoding is stable), and the event sequence
//! reader never panics.

use a2a::ErrorKind;
use grpc::Service;

/// The body limit the target reads with (the server's default).
const LIMIT: usize = 4 << 20;

pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(service) = Service::contract() else {
        panic!("the generated protos do not compile");
    };
    let rpcs: Vec<_> = service.rpcs().collect();
    let rpc = rpcs[usize::from(selector & 0x7f) % rpcs.len()];
    let (descriptor, message) = if selector & 0x80 == 0 {
        let Ok(message) = grpc::frame::single(rest, LIMIT) else {
            return;
        };
        (&rpc.input, message)
    } else {
        let _ = grpc::sequence::read(rest);
        (&rpc.output, rest)
    };
    let Ok(json) = grpc::transcode::to_json(descriptor, message) else {
        return;
    };
    let text = json.to_string();
    let encoded = grpc::transcode::from_json(descriptor, &text, ErrorKind::InternalError)
        .unwrap_or_else(|e| panic!("a decoded {} does not encode again: {e}", descriptor.full_name()));
    let again = grpc::transcode::to_json(descriptor, &encoded)
        .unwrap_or_else(|e| panic!("a re-encoded {} does not decode: {e}", descriptor.full_name()));
    assert_eq!(
        again,
        json,
        "the JSON form of a {} is not stable",
        descriptor.full_name()
    );
}
