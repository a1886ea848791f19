//! The direct path against the reflective one: protobuf of seeded random
//! messages of every type of the contract's protos, whole and damaged, each
//! read both ways. Where the reflective path reads it, the direct one reads
//! the same JSON (or leaves it to the reflective path: never for a whole
//! message); where the reflective path refuses it, the direct one does too.

use super::decode;
use crate::random_json::{message, pool, Rng};
use crate::transcode::{reflective_from_json, reflective_to_json};
use a2a::ErrorKind;
use serde_json::json;

#[test]
fn every_message_reads_as_the_reflective_path_reads_it() {
    let pool = pool();
    let mut rng = Rng(11);
    let (mut whole, mut damaged, mut damaged_read) = (0, 0, 0);
    for descriptor in pool.all_messages().filter(|m| !m.is_map_entry()) {
        if descriptor.full_name().starts_with("google.protobuf.") {
            continue;
        }
        for _ in 0..40 {
            let text = message(&mut rng, &descriptor, 0).to_string();
            let Ok(bytes) = reflective_from_json(&descriptor, &text, ErrorKind::InternalError) else {
                continue;
            };
            let slow = reflective_to_json(&descriptor, &bytes).expect("a message it wrote reads back");
            let fast = decode(&descriptor, &bytes)
                .unwrap_or_else(|| panic!("{} not read directly: {text}", descriptor.full_name()));
            assert_eq!(fast, slow, "{}: {text}", descriptor.full_name());
            whole += 1;
            // The same bytes cut short, or with one byte changed.
            let mut broken = bytes.clone();
            if broken.is_empty() {
                continue;
            }
            let at = rng.below(broken.len() as u64) as usize;
            if rng.one_in(2) {
                broken.truncate(at);
            } else {
                broken[at] ^= 1 << rng.below(8);
            }
            damaged += 1;
            match reflective_to_json(&descriptor, &broken) {
                Ok(slow) => {
                    if let Some(fast) = decode(&descriptor, &broken) {
                        assert_eq!(fast, slow, "{}: {broken:?}", descriptor.full_name());
                        damaged_read += 1;
                    }
                }
                Err(error) => assert_eq!(
                    decode(&descriptor, &broken),
                    None,
                    "{}: {error}",
                    descriptor.full_name()
                ),
            }
        }
    }
    assert!(
        whole > 1000 && damaged_read > 0,
        "{whole} whole, {damaged} damaged, {damaged_read} of them read"
    );
}

#[test]
fn fields_are_read_as_protobuf_writes_them() {
    let pool = pool();
    let get = pool
        .get_message_by_name("lf.a2a.v1.GetTaskRequest")
        .expect("GetTaskRequest");
    let id = get.get_field_by_name("id").expect("id").number() as u8;
    let length = get
        .get_field_by_json_name("historyLength")
        .expect("historyLength")
        .number() as u8;
    // A string, an optional zero (written), an unknown varint field (dropped).
    let bytes = [id << 3 | 2, 2, b'a', b'b', length << 3, 0, 0xf8, 0x3e, 7];
    assert_eq!(
        decode(&get, &bytes),
        Some(json!({"id": "ab", "historyLength": 0}))
    );
    // The last value of a field given twice.
    let bytes = [id << 3 | 2, 1, b'a', id << 3 | 2, 1, b'b'];
    assert_eq!(decode(&get, &bytes), Some(json!({"id": "b"})));
    // An empty string (no presence) is left out, but for a field the
    // contract requires (protobuf cannot tell it unset from empty).
    let length_only = [length << 3, 3];
    assert_eq!(
        decode(&get, &length_only),
        Some(json!({"id": "", "historyLength": 3}))
    );
    let list = pool
        .get_message_by_name("lf.a2a.v1.ListTasksRequest")
        .expect("ListTasksRequest");
    let tenant = list.get_field_by_name("tenant").expect("tenant").number() as u8;
    assert_eq!(decode(&list, &[tenant << 3 | 2, 0]), Some(json!({})));
    // Not UTF-8, a wrong wire type, a field number out of range, cut short:
    // the reflective path decides.
    for bytes in [
        vec![id << 3 | 2, 1, 0xff],
        vec![id << 3, 1],
        vec![0xf8, 0xff, 0xff, 0xff, 0x7f, 0],
        vec![id << 3 | 2, 5, b'a'],
    ] {
        assert_eq!(decode(&get, &bytes), None, "{bytes:?}");
    }
}
