//! Agent Card decoding: a card decoded once re-encodes to a canonical form that
//! decodes to the same card.

use a2a::types::AgentCard;

pub fn run(data: &[u8]) {
    let Some(value) = crate::json(data) else {
        return;
    };
    let Ok(card) = serde_json::from_value::<AgentCard>(value) else {
        return;
    };
    let canonical = serde_json::to_value(&card).expect("a card encodes");
    let again: AgentCard = serde_json::from_value(canonical.clone()).expect("a canonical card decodes");
    assert_eq!(again, card);
    assert_eq!(serde_json::to_value(&again).expect("a card encodes"), canonical);
}
