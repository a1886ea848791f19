//! The requirement identifiers of the A2A CLI standard's compliance registry
//! (a2a-cli v0.2, COMPLIANCE.md), each with its tier, the sections of the
//! specification that govern it, and a one-line summary in this project's
//! words: the report states what each identifier asks, so a reader need not
//! look it up.

/// The specification measured against.
pub const SPEC_VERSION: &str = "0.2";
/// Its revision date (its "Last updated").
pub const SPEC_REVISION: &str = "2026-08-17";

/// One registered requirement.
pub struct Requirement {
    pub id: &'static str,
    pub tier: u8,
    pub spec: &'static str,
    pub summary: &'static str,
}

impl Requirement {
    /// The area: the identifier between `A2ACLI_` and its number.
    pub fn area(&self) -> &'static str {
        let rest = self.id.strip_prefix("A2ACLI_").unwrap_or(self.id);
        rest.rsplit_once('_').map_or(rest, |(area, _)| area)
    }
}

const fn r(id: &'static str, tier: u8, spec: &'static str, summary: &'static str) -> Requirement {
    Requirement {
        id,
        tier,
        spec,
        summary,
    }
}

/// Every identifier, tier by tier, in the registry's order.
pub const REQUIREMENTS: &[Requirement] = &[
    r("A2ACLI_CARD_GET_001", 1, "§10.1, §13", "card get resolves a card from a host, an origin, a URL or a file, and the card picks the transport"),
    r("A2ACLI_SEND_001", 1, "§10.2", "send starts an interaction"),
    r("A2ACLI_SEND_002", 1, "§10.2, §6.5", "send waits by default; --async (and its aliases) returns the identifiers at once"),
    r("A2ACLI_SEND_003", 1, "§10.2, §9.2", "--stream follows the stream where there is one, never hangs where there is none, and a direct message ends it cleanly"),
    r("A2ACLI_SEND_004", 1, "§10.2", "every part of every artifact is rendered, none dropped"),
    r("A2ACLI_SEND_005", 1, "§10.2", "--media-type sets the media type of the part flag before it; it is inferred only when not given"),
    r("A2ACLI_SEND_006", 1, "§10.2", "--text, --file and --data repeat and keep their order; --data - reads stdin"),
    r("A2ACLI_TASK_GET_001", 1, "§10.3", "task get shows state, artifacts and history of a task"),
    r("A2ACLI_TASK_CANCEL_001", 1, "§10.4", "task cancel cancels, idempotently, and reports the state it leaves"),
    r("A2ACLI_INTERACT_001", 1, "§8.1", "--context-id continues an interaction"),
    r("A2ACLI_INTERACT_002", 1, "§8.1", "--task-id continues a task, with or without a matching --context-id; a refused identifier fails and starts nothing"),
    r("A2ACLI_INTERACT_003", 1, "§4.1, §4", "no server identifier is invented, and a context is not taken for a chat session"),
    r("A2ACLI_INTERACT_004", 1, "§8.2", "task, context and state are reported, copy-pasteable, with the command that resumes"),
    r("A2ACLI_INTERACT_005", 1, "§6.3, §4.1, §8.3", "no identifier is remembered between invocations"),
    r("A2ACLI_TASK_POLL_001", 1, "§9.3", "task get reads once; task get --wait polls until the task ends or pauses"),
    r("A2ACLI_TASK_POLL_002", 1, "§9.3", "--poll-interval and --timeout are honoured, with bounded backoff and the task id printed first"),
    r("A2ACLI_TASK_POLL_003", 1, "§9.1, §9.3", "a wait stops at INPUT_REQUIRED and AUTH_REQUIRED; UNSPECIFIED keeps it polling"),
    r("A2ACLI_TASK_POLL_004", 1, "§9.3", "a wait that prefers the stream falls back to polling when the stream fails"),
    r("A2ACLI_OUT_001", 1, "§11.1, §11.5, §8.2", "every answer about a task names task, context and state; payload on stdout, diagnostics on stderr"),
    r("A2ACLI_OUT_002", 1, "§11.3, App. B", "-o json is one document: the terminal protocol object"),
    r("A2ACLI_OUT_003", 1, "§11.3, §11.4, App. B", "-o json --stream is JSON Lines ending with the terminal event, or with an error object"),
    r("A2ACLI_OUT_004", 1, "§11.4, App. B, App. D", "errors are the envelope, the same on every binding: A2A names for the agent's, A2ACLI_ERR_* for the tool's, with a hint"),
    r("A2ACLI_OUT_005", 1, "§11.2, §6.1", "text is Label: value fields and closed blocks, no control sequences; interactive modes degrade off a terminal"),
    r("A2ACLI_OUT_006", 1, "§11.5", "--async still emits the task and context identifiers"),
    r("A2ACLI_EXIT_001", 1, "§11.6, App. D", "exits 0, 1, 2, and the reserved 3, 4, 5 only with their meanings"),
    r("A2ACLI_EXIT_002", 1, "§6.6, §11.6", "a task that failed, was rejected or paused exits 0, with a warning on stderr"),
    r("A2ACLI_AUTH_001", 1, "§12.1", "bearer and API key, from flags or the environment, placed as the card's scheme says; --svc-param apart"),
    r("A2ACLI_AUTH_002", 1, "§12.1, §6.5", "each credential flag has a variable, and help says a flag shows in the process table"),
    r("A2ACLI_AUTH_003", 1, "§12.1, §6.5", "--insecure warns, and warns again when credentials cross the unverified connection"),
    r("A2ACLI_AUTH_004", 1, "§12.1, §7.2", "credentials are redacted from every diagnostic, --debug included"),
    r("A2ACLI_TX_001", 1, "§13.1", "the transport is chosen from the card, in its order"),
    r("A2ACLI_TX_002", 1, "§13.1, §6.5", "the card's first supported interface by default; --transport repeatable and ordered"),
    r("A2ACLI_TX_003", 1, "§13.1", "the chosen interface's tenant is in every request, and no tenant where it declares none"),
    r("A2ACLI_VER_001", 1, "§13.2", "A2A-Version on every request, never below 1.0, no silent downgrade"),
    r("A2ACLI_DEFAULT_001", 1, "§6.5", "the six baseline defaults ship, each overridable by a flag and shown in help"),
    r("A2ACLI_CONFIG_001", 1, "§8.3", "what is kept lives under the configuration path, secrets 0600, shown by config show, no session state"),
    r("A2ACLI_CLI_001", 1, "§7.1, §7.2, §6.5", "help, COMMAND --help and -v/--version; help shows the defaults"),
    r("A2ACLI_SKILL_001", 1, "§14.1, §14.2", "exactly one Agent Skill, lean, deferring to help"),
    r("A2ACLI_SKILL_002", 1, "§14.3", "the skill does not restate the specification's requirements"),
    r("A2ACLI_CARD_GET_002", 2, "§10.1", "card get --validate checks the card against the A2A schema"),
    r("A2ACLI_TASK_LIST_001", 2, "§7.1, App. A", "task list pages with a cursor and filters by status and context"),
    r("A2ACLI_TASK_SUBSCRIBE_001", 2, "§7.1, §9.2", "task subscribe follows a task's events"),
    r("A2ACLI_TASK_SUBSCRIBE_002", 2, "§9.4, §9.2", "a dropped stream is resumed, its first event the whole task"),
    r("A2ACLI_AUTH_005", 2, "§12.2", "auth login runs the OAuth 2.1 device code flow"),
    r("A2ACLI_AUTH_006", 2, "§12.2", "auth login runs the OAuth 2.1 client credentials flow"),
    r("A2ACLI_AUTH_007", 2, "§12.2", "tokens are kept privately and attached to later calls"),
    r("A2ACLI_TX_004", 2, "§13.1", "at least two transports, each selectable"),
    r("A2ACLI_VER_003", 2, "§13.3", "the card's capability is checked before a streaming, push or extended-card call"),
    r("A2ACLI_CONFIG_002", 2, "§8.3", "flag, environment, local file, global file, default, in that order; config show names each source"),
    r("A2ACLI_DOWNLOAD_001", 2, "§7.1", "task download saves a task's artifacts"),
    r("A2ACLI_OUT_007", 2, "§7.2", "--debug logs the raw messages on the wire to stderr"),
    r("A2ACLI_CONFORM_001", 2, "§7.1", "conformance checks a live agent"),
    r("A2ACLI_CLI_002", 2, "§7.1", "completion prints a shell completion script"),
    r("A2ACLI_PUSH_001", 2, "§7.1, App. A", "task push-config creates, gets, lists and deletes"),
    r("A2ACLI_CARD_GET_003", 3, "§10.1, §12.4", "the extended card, fetched only with a scheme the public card declares"),
    r("A2ACLI_CARD_GET_004", 3, "§10.1", "card signatures are reported verified, unverifiable or absent; absent is no failure"),
    r("A2ACLI_CARD_GET_005", 3, "§10.1", "a catalog entry resolves to its card wherever --agent-card takes a reference"),
    r("A2ACLI_PUSH_002", 3, "§9.2", "a local webhook receives push notifications"),
    r("A2ACLI_CHAT_001", 3, "§8.1, §7.1", "chat carries context and task across turns"),
    r("A2ACLI_TX_005", 3, "§13.1", "gRPC"),
    r("A2ACLI_AUTH_008", 3, "§12.4", "no credential goes to an endpoint whose card declares no scheme that takes it"),
    r("A2ACLI_AUTH_009", 3, "§12.3", "mutual TLS"),
    r("A2ACLI_AUTH_010", 3, "§12.3", "OpenID Connect"),
    r("A2ACLI_AUTH_011", 3, "§12.3", "an in-task AUTH_REQUIRED stops, says how to authenticate, and resumes"),
    r("A2ACLI_DEMO_SERVER_001", 3, "§7.1, §3", "demo-server runs an agent to practise on"),
    r("A2ACLI_VER_002", 3, "§13.3, A2A §4.6", "the extensions the tool supports are declared; a required one it lacks stops it"),
];
