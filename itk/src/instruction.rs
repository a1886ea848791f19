//! The interop kit's traversal instruction (`itk.Instruction`, the kit's
//! `protos/instruction.proto`), as protobuf messages, and how one travels in
//! an A2A message: the serialized instruction as the first raw part with
//! media type `application/x-protobuf` (or, as some participants send it,
//! base64 in a text part).

use a2a::types::{Message, Part, PartContent, Role};
use base64::Engine as _;

/// The media type of a part that carries an instruction.
pub const MEDIA_TYPE: &str = "application/x-protobuf";

/// One step of a traversal.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Instruction {
    #[prost(oneof = "Step", tags = "1, 2, 3")]
    pub step: Option<Step>,
}

/// What an instruction asks of the agent that receives it.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Step {
    /// Call another agent with a nested instruction.
    #[prost(message, tag = "1")]
    CallAgent(CallAgent),
    /// Answer with a text.
    #[prost(message, tag = "2")]
    ReturnResponse(ReturnResponse),
    /// Run several instructions in order.
    #[prost(message, tag = "3")]
    Steps(SeriesOfSteps),
}

/// Call the agent whose card is at `agent_card_uri` over `transport`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CallAgent {
    /// `jsonrpc`, `http_json` or `grpc` (any case).
    #[prost(string, tag = "1")]
    pub transport: String,
    /// The agent's origin; its card is at the well-known path under it.
    #[prost(string, tag = "2")]
    pub agent_card_uri: String,
    /// What the called agent is to do.
    #[prost(message, optional, boxed, tag = "3")]
    pub instruction: Option<Box<Instruction>>,
    /// Send with the streaming method.
    #[prost(bool, tag = "4")]
    pub streaming: bool,
    #[prost(oneof = "Behavior", tags = "5, 6, 7")]
    pub behavior: Option<Behavior>,
}

/// How the call is made.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Behavior {
    /// A plain send.
    #[prost(message, tag = "5")]
    SendMessage(Empty),
    /// A send with a push config whose webhook is under this URL.
    #[prost(message, tag = "6")]
    PushNotification(PushNotification),
    /// A streaming send, broken after its first event, then resubscribed.
    #[prost(message, tag = "7")]
    Resubscribe(Empty),
}

/// A behaviour without parameters.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Empty {}

/// The push behaviour's parameters.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PushNotification {
    #[prost(string, tag = "1")]
    pub url: String,
}

/// Answer with `response`; with `hold_task`, keep the task working a while
/// (saying `task-finished` first) so a caller can resubscribe to it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReturnResponse {
    #[prost(string, tag = "1")]
    pub response: String,
    #[prost(bool, tag = "2")]
    pub hold_task: bool,
}

/// Instructions run in order; their answers joined by newlines.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SeriesOfSteps {
    #[prost(message, repeated, tag = "1")]
    pub instructions: Vec<Instruction>,
    #[prost(int32, tag = "2")]
    pub response_generator: i32,
}

impl Instruction {
    /// The instruction a message carries, if it carries one.
    pub fn in_message(message: &Message) -> Option<Instruction> {
        message.parts.iter().find_map(|part| {
            let bytes = match &part.content {
                PartContent::Raw(encoded) if part.media_type.as_deref() == Some(MEDIA_TYPE) => {
                    base64::engine::general_purpose::STANDARD.decode(encoded).ok()?
                }
                PartContent::Text(text) => base64::engine::general_purpose::STANDARD
                    .decode(text.trim())
                    .ok()?,
                _ => return None,
            };
            prost::Message::decode(bytes.as_slice())
                .ok()
                .filter(|i: &Instruction| i.step.is_some())
        })
    }

    /// A user message carrying this instruction.
    pub fn to_message(&self) -> Message {
        let bytes = prost::Message::encode_to_vec(self);
        Message {
            message_id: app::util::new_id(),
            context_id: None,
            task_id: None,
            role: Role::User,
            parts: vec![Part {
                content: PartContent::Raw(base64::engine::general_purpose::STANDARD.encode(bytes)),
                filename: Some("instruction.bin".into()),
                media_type: Some(MEDIA_TYPE.into()),
                metadata: None,
            }],
            metadata: None,
            extensions: vec![],
            reference_task_ids: vec![],
        }
    }

    /// True when answering it keeps a task working (a `hold_task` anywhere
    /// in it but inside a call to another agent).
    pub fn holds_task(&self) -> bool {
        match &self.step {
            Some(Step::ReturnResponse(r)) => r.hold_task,
            Some(Step::Steps(series)) => series.instructions.iter().any(Instruction::holds_task),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(transport: &str, inner: Instruction) -> Instruction {
        Instruction {
            step: Some(Step::CallAgent(CallAgent {
                transport: transport.into(),
                agent_card_uri: "http://127.0.0.1:1".into(),
                instruction: Some(Box::new(inner)),
                streaming: true,
                behavior: Some(Behavior::SendMessage(Empty {})),
            })),
        }
    }

    fn answer(text: &str, hold: bool) -> Instruction {
        Instruction {
            step: Some(Step::ReturnResponse(ReturnResponse {
                response: text.into(),
                hold_task: hold,
            })),
        }
    }

    #[test]
    fn a_message_carries_an_instruction_both_ways() {
        let sent = call("grpc", answer("hi", false));
        let message = sent.to_message();
        assert_eq!(message.parts[0].media_type.as_deref(), Some(MEDIA_TYPE));
        assert_eq!(Instruction::in_message(&message), Some(sent.clone()));
        // As base64 in a text part.
        let PartContent::Raw(encoded) = &message.parts[0].content else {
            panic!("a raw part")
        };
        let mut as_text = message.clone();
        as_text.parts[0].content = PartContent::Text(encoded.clone());
        as_text.parts[0].media_type = None;
        assert_eq!(Instruction::in_message(&as_text), Some(sent));
    }

    #[test]
    fn plain_text_and_empty_instructions_are_not_instructions() {
        let mut message = answer("x", false).to_message();
        message.parts[0].content = PartContent::Text("tck-complete-task".into());
        message.parts[0].media_type = None;
        assert_eq!(Instruction::in_message(&message), None);
        let empty = Instruction { step: None }.to_message();
        assert_eq!(Instruction::in_message(&empty), None);
    }

    #[test]
    fn holding_is_the_answering_agents_own() {
        assert!(answer("x", true).holds_task());
        let series = Instruction {
            step: Some(Step::Steps(SeriesOfSteps {
                instructions: vec![answer("a", false), answer("b", true)],
                response_generator: 1,
            })),
        };
        assert!(series.holds_task());
        assert!(!call("jsonrpc", answer("x", true)).holds_task());
    }
}
