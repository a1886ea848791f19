//! `chat` (a2a-cli Tier 3, §7.1): a conversation with the agent, one message
//! per line, the `contextId` carried from turn to turn and the `taskId` while
//! the task waits for the caller (§8.1).
//!
//! Interactive only when both stdin and stdout are terminals (§6.1): a
//! prompt, the agent's answers and the task's progress as they arrive, the
//! task, context and state after each turn, slash commands, and Ctrl-C to
//! stop waiting for a turn. Otherwise it degrades to the `text` floor
//! (§11.2): the turns are read from the piped stdin, and each turn's settled
//! answer is written as `send` writes it (in `-o json`, one
//! `SendMessageResponse` per line), with no control sequence and no prompt.
//! A terminal on stdin with stdout piped is refused: nothing would show the
//! prompt, and the tool never blocks on a terminal it cannot talk to.
//!
//! The conversation's state is in `session`, a turn's message and wait in
//! `turn`, what arrives during a turn in `live`, what a settled turn shows in
//! `present`, and the slash commands in `input` (reading them) and
//! `commands` (doing them).

mod commands;
mod input;
mod interrupts;
mod live;
mod present;
mod session;
mod style;
mod turn;

use super::failure::{Failure, Local};
use super::standard::Ctx;
use super::target::Target;
use super::text;
use clap::{ArgMatches, Command};
use input::{parse, Input};
use interrupts::Interrupts;
use live::{Live, Show};
use session::Session;
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal};
use style::Style;
use tokio::sync::mpsc;

/// The prompt a person answers.
const PROMPT: &str = "you> ";

/// What `/help` says.
const HELP: &str = "\
Each line is sent to the agent as a message; the conversation (its context)
goes on from turn to turn, and a task waiting for input is answered by the
next line.
  /new           start a new conversation (a new context)
  /task          show the current task and context ids
  /cancel [ID]   cancel the current task (or the task ID)
  /help          this help
  /quit          end the chat (Ctrl-D does too)
A line starting with // is sent with a single /.
Ctrl-C while the agent works stops waiting for that turn (the task goes on);
Ctrl-C at the prompt ends the chat.";

/// The `chat` command.
pub fn command() -> Command {
    Command::new("chat")
        .about("Talk with the agent turn by turn (interactive on a terminal)")
        .long_about(
            "Talk with the agent turn by turn. Each line is a message (SendStreamingMessage where the agent \
             streams, SendMessage otherwise); the context is carried from turn to turn, and while a task \
             waits for input (or authentication) the next line answers it. --context-id and --task-id \
             set where the conversation starts.\n\n\
             On a terminal (stdin and stdout): a prompt, the agent's answers as they arrive, the task, \
             context and state after each turn, and the commands /new, /task, /cancel [ID], /help and \
             /quit (or Ctrl-D). Ctrl-C while the agent works stops waiting for that turn; the task goes \
             on.\n\n\
             With stdin piped: one message per line until the end of the input, each turn's answer \
             written as `send` writes it (text, or one SendMessageResponse per line with -o json), \
             with no prompt and no terminal control sequence. The same commands apply; a /cancel \
             writes the canceled task. With stdin a terminal but stdout not, chat refuses to start: \
             pipe the turns in, or use `send`.",
        )
}

/// `chat`.
pub async fn run(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let _ = matches;
    let stdin_terminal = std::io::stdin().is_terminal();
    let stdout_terminal = std::io::stdout().is_terminal();
    if stdin_terminal && !stdout_terminal {
        return Err(Failure::usage(
            "chat takes its turns from a terminal only when its output goes to one: stdout is not a terminal",
        )
        .hint(
            "pipe the turns in, one message per line (printf 'hello\\n' | agents chat), or use `agents send`",
        ));
    }
    let mut session = Session::new(ctx, target, stdin_terminal && stdout_terminal).map_err(Failure::usage)?;
    let lines = read_lines();
    if session.screen.is_some() {
        session.interactive(lines).await
    } else {
        session.piped(lines).await
    }
}

/// The lines of stdin, read on a thread of their own: a read that waits on
/// a person blocks no task and holds up no shutdown.
fn read_lines() -> mpsc::UnboundedReceiver<String> {
    let (lines, received) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    if lines
                        .send(text.trim_end_matches(['\n', '\r']).to_string())
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    received
}

impl Session<'_, '_> {
    async fn interactive(&mut self, mut lines: mpsc::UnboundedReceiver<String>) -> Result<(), Failure> {
        let style = self.screen.unwrap_or(Style { colour: false });
        let mut interrupts = Interrupts::new()
            .map_err(|e| Failure::local(Local::Internal, format!("cannot catch Ctrl-C: {e}")))?;
        let name = self.target.card["name"].as_str().unwrap_or("the agent");
        let place = self
            .target
            .card_location
            .clone()
            .unwrap_or_else(|| "local agent (stdio)".into());
        eprintln!(
            "{}",
            style.dim(&text::clean(&format!(
                "Chatting with {name} ({place}). Each line is a message; /help lists the commands, /quit or Ctrl-D ends."
            )))
        );
        match (&self.task_id, &self.context_id) {
            (Some(task), _) => self.note(&format!("The first line continues task {task}.")),
            (None, Some(context)) => self.note(&format!("The conversation goes on in context {context}.")),
            _ => {}
        }
        loop {
            let line = match lines.try_recv() {
                // Typed while the last turn ran: shown after its prompt.
                Ok(line) => {
                    eprintln!("{}{}", style.bold(PROMPT), text::clean(&line));
                    line
                }
                Err(mpsc::error::TryRecvError::Disconnected) => break,
                Err(mpsc::error::TryRecvError::Empty) => {
                    eprint!("{}", style.bold(PROMPT));
                    let line = tokio::select! {
                        line = lines.recv() => line,
                        _ = interrupts.recv() => None,
                    };
                    let Some(line) = line else {
                        eprintln!();
                        break;
                    };
                    line
                }
            };
            match parse(&line) {
                Input::Blank => {}
                Input::Quit => break,
                Input::Help => eprintln!("{HELP}"),
                Input::Unknown(name) => self.note(&format!("{name}: no such command; /help lists them")),
                Input::New => self.new_conversation(),
                Input::Task => self.show_ids(),
                Input::Cancel(id) => {
                    if let Err(failure) = self.cancel(id.as_deref()).await {
                        self.report(failure);
                    }
                }
                Input::Message(message) => {
                    let live = RefCell::new(Live::new(
                        if self.json() {
                            if self.ctx.output.stream {
                                Show::Events
                            } else {
                                Show::Nothing
                            }
                        } else {
                            Show::Screen(style)
                        },
                        self.ctx.output,
                    ));
                    let outcome = tokio::select! {
                        answer = self.turn(&message, &live) => Some(answer),
                        _ = interrupts.recv() => None,
                    };
                    live.borrow_mut().finish();
                    match outcome {
                        Some(Ok(answer)) => {
                            self.settle(&answer);
                            self.present(&answer);
                        }
                        Some(Err(failure)) => self.report(failure),
                        None => self.stopped(&live.borrow().tracked),
                    }
                }
            }
        }
        if let Some(context) = &self.context_id {
            let resume = match &self.task_id {
                Some(task) => format!("{} --task-id {task} chat", self.agents()),
                None => format!("{} --context-id {context} chat", self.agents()),
            };
            self.note(&format!("To go on with this conversation later: {resume}"));
        }
        Ok(())
    }

    async fn piped(&mut self, mut lines: mpsc::UnboundedReceiver<String>) -> Result<(), Failure> {
        let mut number = 0;
        while let Some(line) = lines.recv().await {
            number += 1;
            match parse(&line) {
                Input::Blank => {}
                Input::Quit => break,
                Input::Help => eprintln!("{HELP}"),
                Input::Unknown(name) => {
                    return Err(Failure::usage(format!("line {number}: {name} is not a chat command"))
                        .hint("the commands are /new, /task, /cancel [ID], /help and /quit; send a line starting with / as //…"));
                }
                Input::New => self.new_conversation(),
                Input::Task => self.show_ids(),
                Input::Cancel(id) => self.cancel(id.as_deref()).await?,
                Input::Message(message) => {
                    let show = if self.ctx.output.stream {
                        Show::Events
                    } else {
                        Show::Nothing
                    };
                    let live = RefCell::new(Live::new(show, self.ctx.output));
                    let answer = self.turn(&message, &live).await?;
                    self.settle(&answer);
                    self.present(&answer);
                }
            }
        }
        Ok(())
    }
}
