//! Task states, roles, parts, messages and artifacts in both versions: the
//! content every task, event and request is made of.

use super::{each, unconvertible, Unconvertible, DATA_VALUE_KEY};
use crate::types as v1;
use crate::v0_3::types as v03;
use serde_json::{Map, Value};

// ---- enums -------------------------------------------------------------

impl From<v03::TaskState> for v1::TaskState {
    fn from(state: v03::TaskState) -> Self {
        match state {
            v03::TaskState::Submitted => v1::TaskState::Submitted,
            v03::TaskState::Working => v1::TaskState::Working,
            v03::TaskState::InputRequired => v1::TaskState::InputRequired,
            v03::TaskState::Completed => v1::TaskState::Completed,
            v03::TaskState::Canceled => v1::TaskState::Canceled,
            v03::TaskState::Failed => v1::TaskState::Failed,
            v03::TaskState::Rejected => v1::TaskState::Rejected,
            v03::TaskState::AuthRequired => v1::TaskState::AuthRequired,
            v03::TaskState::Unknown => v1::TaskState::Unspecified,
        }
    }
}

impl From<v1::TaskState> for v03::TaskState {
    fn from(state: v1::TaskState) -> Self {
        match state {
            v1::TaskState::Submitted => v03::TaskState::Submitted,
            v1::TaskState::Working => v03::TaskState::Working,
            v1::TaskState::InputRequired => v03::TaskState::InputRequired,
            v1::TaskState::Completed => v03::TaskState::Completed,
            v1::TaskState::Canceled => v03::TaskState::Canceled,
            v1::TaskState::Failed => v03::TaskState::Failed,
            v1::TaskState::Rejected => v03::TaskState::Rejected,
            v1::TaskState::AuthRequired => v03::TaskState::AuthRequired,
            v1::TaskState::Unspecified => v03::TaskState::Unknown,
        }
    }
}

impl From<v03::Role> for v1::Role {
    fn from(role: v03::Role) -> Self {
        match role {
            v03::Role::User => v1::Role::User,
            v03::Role::Agent => v1::Role::Agent,
        }
    }
}

impl TryFrom<v1::Role> for v03::Role {
    type Error = Unconvertible;
    fn try_from(role: v1::Role) -> Result<Self, Unconvertible> {
        match role {
            v1::Role::User => Ok(v03::Role::User),
            v1::Role::Agent => Ok(v03::Role::Agent),
            v1::Role::Unspecified => Err(unconvertible("a message without a role")),
        }
    }
}

// ---- parts, messages, artifacts ---------------------------------------

impl TryFrom<v03::Part> for v1::Part {
    type Error = Unconvertible;
    fn try_from(part: v03::Part) -> Result<Self, Unconvertible> {
        Ok(match part {
            v03::Part::TextPart(text) => v1::Part {
                content: v1::PartContent::Text(text.text),
                filename: None,
                media_type: None,
                metadata: text.metadata,
            },
            v03::Part::FilePart(file) => {
                let (content, name, mime_type) = match file.file {
                    v03::FileContent::Bytes(f) => (v1::PartContent::Raw(f.bytes), f.name, f.mime_type),
                    v03::FileContent::Uri(f) => (v1::PartContent::Url(f.uri), f.name, f.mime_type),
                };
                v1::Part {
                    content,
                    filename: name,
                    media_type: mime_type,
                    metadata: file.metadata,
                }
            }
            v03::Part::DataPart(data) => v1::Part {
                content: v1::PartContent::Data(Value::Object(data.data)),
                filename: None,
                media_type: None,
                metadata: data.metadata,
            },
        })
    }
}

impl TryFrom<v1::Part> for v03::Part {
    type Error = Unconvertible;
    fn try_from(part: v1::Part) -> Result<Self, Unconvertible> {
        let file = |file| {
            v03::Part::FilePart(v03::FilePart {
                file,
                kind: v03::FilePartKind::File,
                metadata: part.metadata.clone(),
            })
        };
        Ok(match part.content {
            v1::PartContent::Text(text) => v03::Part::TextPart(v03::TextPart {
                kind: v03::TextPartKind::Text,
                metadata: part.metadata,
                text,
            }),
            v1::PartContent::Raw(bytes) => file(v03::FileContent::Bytes(v03::FileWithBytes {
                bytes,
                mime_type: part.media_type,
                name: part.filename,
            })),
            v1::PartContent::Url(uri) => file(v03::FileContent::Uri(v03::FileWithUri {
                mime_type: part.media_type,
                name: part.filename,
                uri,
            })),
            v1::PartContent::Data(data) => v03::Part::DataPart(v03::DataPart {
                data: match data {
                    Value::Object(object) => object,
                    other => Map::from_iter([(DATA_VALUE_KEY.to_string(), other)]),
                },
                kind: v03::DataPartKind::Data,
                metadata: part.metadata,
            }),
        })
    }
}

impl TryFrom<v03::Message> for v1::Message {
    type Error = Unconvertible;
    fn try_from(m: v03::Message) -> Result<Self, Unconvertible> {
        Ok(v1::Message {
            context_id: m.context_id,
            extensions: m.extensions,
            message_id: m.message_id,
            metadata: m.metadata,
            parts: each(m.parts)?,
            reference_task_ids: m.reference_task_ids,
            role: m.role.into(),
            task_id: m.task_id,
        })
    }
}

impl TryFrom<v1::Message> for v03::Message {
    type Error = Unconvertible;
    fn try_from(m: v1::Message) -> Result<Self, Unconvertible> {
        Ok(v03::Message {
            context_id: m.context_id,
            extensions: m.extensions,
            kind: v03::MessageKind::Message,
            message_id: m.message_id,
            metadata: m.metadata,
            parts: each(m.parts)?,
            reference_task_ids: m.reference_task_ids,
            role: m.role.try_into()?,
            task_id: m.task_id,
        })
    }
}

impl TryFrom<v1::Artifact> for v03::Artifact {
    type Error = Unconvertible;
    fn try_from(a: v1::Artifact) -> Result<Self, Unconvertible> {
        Ok(v03::Artifact {
            artifact_id: a.artifact_id,
            description: a.description,
            extensions: a.extensions,
            metadata: a.metadata,
            name: a.name,
            parts: each(a.parts)?,
        })
    }
}

impl TryFrom<v03::Artifact> for v1::Artifact {
    type Error = Unconvertible;
    fn try_from(a: v03::Artifact) -> Result<Self, Unconvertible> {
        Ok(v1::Artifact {
            artifact_id: a.artifact_id,
            description: a.description,
            extensions: a.extensions,
            metadata: a.metadata,
            name: a.name,
            parts: each(a.parts)?,
        })
    }
}
