//! The media types an agent takes in messages — its card's input modes — and
//! the check every sent message's parts pass: a part that names a media type
//! the agent does not take is refused with ContentTypeNotSupportedError
//! (spec §3.3.2) before anything is stored. A part that names none is not
//! checked (the spec refuses "a Media Type provided in the request").
//!
//! A part names its media type in `mediaType`; one without it that carries a
//! string `contentType` in its metadata (the form the A2A project's ACTS
//! corpus and some clients still use) is held to that.

use a2a::rpc::Error;
use a2a::types::Message;
use a2a::ErrorKind;

/// The media types (and `type/*`, `*/*` ranges) an agent accepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputModes {
    /// Essences (`type/subtype`, lowercase, no parameters); empty takes any.
    accepted: Vec<String>,
}

/// `text/plain; charset=utf-8` → `text/plain`.
fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

impl InputModes {
    /// Exactly these modes (duplicates and parameters dropped). An empty
    /// list takes any media type.
    pub fn new<I, S>(modes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut accepted: Vec<String> = Vec::new();
        for mode in modes {
            let mode = essence(mode.as_ref());
            if !mode.is_empty() && !accepted.contains(&mode) {
                accepted.push(mode);
            }
        }
        InputModes { accepted }
    }

    /// True when a part of this media type is taken.
    pub fn accepts(&self, media_type: &str) -> bool {
        if self.accepted.is_empty() {
            return true;
        }
        let media = essence(media_type);
        let (kind, _) = media.split_once('/').unwrap_or((media.as_str(), ""));
        self.accepted.iter().any(|mode| match mode.as_str() {
            "*/*" => true,
            range if range.ends_with("/*") => range.trim_end_matches("/*") == kind,
            exact => exact == media,
        })
    }

    /// Refuses the message if one of its parts names a media type the agent
    /// does not take, saying which part and what it takes.
    pub(crate) fn check(&self, message: &Message) -> Result<(), Error> {
        for (index, part) in message.parts.iter().enumerate() {
            let named = match (&part.media_type, &part.metadata) {
                (Some(media_type), _) => Some(("mediaType", media_type.as_str())),
                (None, Some(metadata)) => metadata
                    .get("contentType")
                    .and_then(|v| v.as_str())
                    .map(|media_type| ("metadata.contentType", media_type)),
                (None, None) => None,
            };
            let Some((field, media_type)) = named else {
                continue;
            };
            if !self.accepts(media_type) {
                let shown: String = media_type.chars().take(100).collect();
                return Err(Error::new(
                    ErrorKind::ContentTypeNotSupported,
                    format!(
                        "message.parts[{index}].{field} `{shown}` is not accepted by this agent (it accepts {})",
                        self.accepted.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::InputModes;

    #[test]
    fn ranges_parameters_and_case_are_understood() {
        let modes = InputModes::new(["text/plain", "image/*", "Application/JSON; charset=utf-8"]);
        assert!(modes.accepts("text/plain"));
        assert!(modes.accepts("TEXT/PLAIN; charset=utf-8"));
        assert!(modes.accepts("image/png"));
        assert!(modes.accepts("application/json"));
        assert!(!modes.accepts("text/markdown"));
        assert!(!modes.accepts("application/x-unsupported-type-12345"));
        assert!(!modes.accepts("imagex/png"));
        assert!(InputModes::new(["*/*"]).accepts("application/octet-stream"));
        assert!(InputModes::default().accepts("anything/at-all"));
    }
}
