//! What a line typed into `chat` asks for: a message to send, or one of the
//! slash commands. Kept apart so both the interactive and the piped loop read
//! lines the same way.

/// What one line asks for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Input {
    /// Nothing.
    Blank,
    /// A message to send.
    Message(String),
    /// `/quit`.
    Quit,
    /// `/new`.
    New,
    /// `/task`.
    Task,
    /// `/cancel [ID]`.
    Cancel(Option<String>),
    /// `/help`.
    Help,
    /// A command this chat does not know.
    Unknown(String),
}

pub(super) fn parse(line: &str) -> Input {
    let line = line.trim();
    if line.is_empty() {
        return Input::Blank;
    }
    if line.starts_with("//") {
        return Input::Message(line[1..].to_string());
    }
    let Some(command) = line.strip_prefix('/') else {
        return Input::Message(line.to_string());
    };
    let mut words = command.split_whitespace();
    let name = words.next().unwrap_or("");
    match name {
        "quit" | "exit" | "q" => Input::Quit,
        "new" => Input::New,
        "task" => Input::Task,
        "cancel" => Input::Cancel(words.next().map(str::to_string)),
        "help" | "?" => Input::Help,
        _ => Input::Unknown(format!("/{name}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_commands() {
        assert_eq!(parse("  "), Input::Blank);
        assert_eq!(parse(" hello there "), Input::Message("hello there".into()));
        assert_eq!(parse("/quit"), Input::Quit);
        assert_eq!(parse("/exit"), Input::Quit);
        assert_eq!(parse("/new"), Input::New);
        assert_eq!(parse("/task"), Input::Task);
        assert_eq!(parse("/cancel"), Input::Cancel(None));
        assert_eq!(parse("/cancel t-1"), Input::Cancel(Some("t-1".into())));
        assert_eq!(parse("/help"), Input::Help);
        assert_eq!(parse("/bogus x"), Input::Unknown("/bogus".into()));
        assert_eq!(parse("//new"), Input::Message("/new".into()));
    }
}
