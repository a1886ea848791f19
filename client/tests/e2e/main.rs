//! End-to-end tests of the client transports and the `agents` CLI against live
//! agents: the server crate's stdio, HTTP and HTTP+JSON transports over an in-test,
//! example-driven dispatcher (this test executable re-runs itself as the
//! stdio agent), plus a scripted loopback HTTP peer for retry and resume.
//!
//! A custom harness (`harness = false`) because the executable must also be
//! able to act as the agent process; every test still runs and is reported.
//! One executable, in modules: the agent, the library transports, retry and
//! resume, and the CLI.

mod agent;
mod chat;
mod cli;
mod compliance;
mod drafts;
mod resume;
mod transports;
mod webhook;

use agent::{run_stdio_agent, AGENT_ENV};
use cli::{
    cli_card_and_completions, cli_card_verify_checks_signatures, cli_error_exit_codes, cli_events_command,
    cli_every_command_json_over_http, cli_every_command_json_over_rest, cli_every_command_json_over_stdio,
    cli_openrpc_over_both_transports, cli_text_output_and_follow,
    cli_uses_the_local_admin_key_for_a_loopback_server,
};
use drafts::{
    cli_generations_need_an_agent_offering_1_1, cli_if_generation_refuses_a_stale_send,
    cli_wait_is_bounded_by_the_timeout, cli_wait_returns_when_the_task_ends,
    transports_speak_1_1_only_where_the_card_offers_it,
};
use resume::{
    http_answers_over_the_limit_are_refused, http_retries_reads_only, http_stream_resumes_from_last_seq,
};
use transports::{
    http_card_trust_is_checked_when_keys_are_configured, http_client_typed_calls_and_negotiation,
    rest_client_typed_calls_streams_and_errors, stdio_client_calls_streams_and_shuts_down,
};
use webhook::{
    cli_webhook_cleans_up_on_timeout_and_interrupt, cli_webhook_follows_a_task_to_its_end,
    cli_webhook_prints_notifications_until_the_task_ends, cli_webhook_refusals,
    cli_webhook_stops_when_the_task_needs_input,
};

fn main() {
    if std::env::var_os(AGENT_ENV).is_some() {
        run_stdio_agent();
        return;
    }
    let tests: &[(&str, fn())] = &[
        (
            "stdio_client_calls_streams_and_shuts_down",
            stdio_client_calls_streams_and_shuts_down,
        ),
        (
            "http_client_typed_calls_and_negotiation",
            http_client_typed_calls_and_negotiation,
        ),
        (
            "http_card_trust_is_checked_when_keys_are_configured",
            http_card_trust_is_checked_when_keys_are_configured,
        ),
        (
            "rest_client_typed_calls_streams_and_errors",
            rest_client_typed_calls_streams_and_errors,
        ),
        ("http_retries_reads_only", http_retries_reads_only),
        (
            "http_answers_over_the_limit_are_refused",
            http_answers_over_the_limit_are_refused,
        ),
        (
            "http_stream_resumes_from_last_seq",
            http_stream_resumes_from_last_seq,
        ),
        ("cli_events_command", cli_events_command),
        (
            "cli_every_command_json_over_stdio",
            cli_every_command_json_over_stdio,
        ),
        (
            "cli_every_command_json_over_http",
            cli_every_command_json_over_http,
        ),
        (
            "cli_every_command_json_over_rest",
            cli_every_command_json_over_rest,
        ),
        ("cli_text_output_and_follow", cli_text_output_and_follow),
        ("cli_error_exit_codes", cli_error_exit_codes),
        ("cli_card_and_completions", cli_card_and_completions),
        (
            "cli_card_verify_checks_signatures",
            cli_card_verify_checks_signatures,
        ),
        (
            "cli_openrpc_over_both_transports",
            cli_openrpc_over_both_transports,
        ),
        (
            "cli_uses_the_local_admin_key_for_a_loopback_server",
            cli_uses_the_local_admin_key_for_a_loopback_server,
        ),
        (
            "transports_speak_1_1_only_where_the_card_offers_it",
            transports_speak_1_1_only_where_the_card_offers_it,
        ),
        (
            "cli_wait_returns_when_the_task_ends",
            cli_wait_returns_when_the_task_ends,
        ),
        (
            "cli_wait_is_bounded_by_the_timeout",
            cli_wait_is_bounded_by_the_timeout,
        ),
        (
            "cli_if_generation_refuses_a_stale_send",
            cli_if_generation_refuses_a_stale_send,
        ),
        (
            "cli_generations_need_an_agent_offering_1_1",
            cli_generations_need_an_agent_offering_1_1,
        ),
        (
            "cli_webhook_prints_notifications_until_the_task_ends",
            cli_webhook_prints_notifications_until_the_task_ends,
        ),
        (
            "cli_webhook_stops_when_the_task_needs_input",
            cli_webhook_stops_when_the_task_needs_input,
        ),
        (
            "cli_webhook_follows_a_task_to_its_end",
            cli_webhook_follows_a_task_to_its_end,
        ),
        (
            "cli_webhook_cleans_up_on_timeout_and_interrupt",
            cli_webhook_cleans_up_on_timeout_and_interrupt,
        ),
        ("cli_webhook_refusals", cli_webhook_refusals),
        ("cli_compliance_report", compliance::cli_compliance_report),
        (
            "chat_on_a_terminal_carries_context_and_task",
            chat::chat_on_a_terminal_carries_context_and_task,
        ),
        (
            "chat_on_a_terminal_ctrl_c_stops_a_turn_and_cancel_ends_its_task",
            chat::chat_on_a_terminal_ctrl_c_stops_a_turn_and_cancel_ends_its_task,
        ),
        (
            "chat_on_a_terminal_auth_required_says_how_to_go_on",
            chat::chat_on_a_terminal_auth_required_says_how_to_go_on,
        ),
        (
            "chat_refuses_a_terminal_when_its_output_is_not_one",
            chat::chat_refuses_a_terminal_when_its_output_is_not_one,
        ),
        (
            "chat_with_piped_turns_writes_the_text_floor",
            chat::chat_with_piped_turns_writes_the_text_floor,
        ),
        (
            "events_follow_shows_a_status_line_on_a_terminal",
            chat::events_follow_shows_a_status_line_on_a_terminal,
        ),
    ];
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        println!("test {name} ...");
        match std::panic::catch_unwind(test) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    println!("\ne2e: {} passed; {} failed", ran - failed.len(), failed.len());
    if !failed.is_empty() {
        println!("failures: {failed:?}");
        std::process::exit(1);
    }
}
