//! Protobuf's wire format as both direct paths use it: the wire types, and
//! the writer's varints, tags, length-delimited fields, and nested messages
//! whose length is written once their body is.

/// Protobuf wire types.
pub(crate) const VARINT: u32 = 0;
pub(crate) const I64: u32 = 1;
pub(crate) const LEN: u32 = 2;
pub(crate) const I32: u32 = 5;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub(crate) fn put_tag(out: &mut Vec<u8>, number: u32, wire: u32) {
    put_varint(out, (u64::from(number) << 3) | u64::from(wire));
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_tag(out, number, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Writes field `number` as a length-delimited body that `write` appends:
/// one byte is kept for the length (most bodies are short), widened after.
pub(crate) fn put_nested<E>(
    out: &mut Vec<u8>,
    number: u32,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    put_tag(out, number, LEN);
    let at = out.len();
    out.push(0);
    write(out)?;
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(10);
        put_varint(&mut prefix, len as u64);
        out.splice(at..=at, prefix);
    }
    Ok(())
}

/// The length of field `number`'s tag.
pub(crate) fn tag_len(number: u32) -> usize {
    let mut tag = Vec::with_capacity(5);
    put_tag(&mut tag, number, LEN);
    tag.len()
}
