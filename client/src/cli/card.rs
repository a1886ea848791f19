//! `card get` (a2a-cli §10.1): the agent's card shown — identity,
//! capabilities, interfaces (and the one chosen), security schemes, skills —
//! with its signature status (verified, unverifiable or absent), checked
//! against the AgentCard schema with `--validate`, or the extended card with
//! `--extended`, fetched only with credentials a declared scheme takes.

use super::failure::{Failure, Local};
use super::output;
use super::settings::id;
use super::standard::Ctx;
use super::target::Target;
use super::text::Text;
use a2a::methods::markers::GetExtendedAgentCard;
use a2a::rpc::{Method, Transport};
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Value};

/// The `card get` command.
pub fn get_command() -> Command {
    Command::new("get")
        .about("Fetch and show the agent's card: identity, capabilities, interfaces, security schemes, skills, signature")
        .arg(
            Arg::new("validate")
                .long("validate")
                .action(ArgAction::SetTrue)
                .help("Check the card against the A2A AgentCard schema (a card that fails is an error)"),
        )
        .arg(
            Arg::new("extended")
                .long("extended")
                .action(ArgAction::SetTrue)
                .help("Fetch the authenticated extended card, with credentials a scheme of the public card takes"),
        )
}

/// The signature status of a card (§10.1): verified, unverifiable or absent.
pub fn signature_status(card: &Value, trusted: Option<&crate::TrustedKeys>) -> (String, bool) {
    let signed = card
        .get("signatures")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty());
    if !signed {
        return ("absent (the card is not signed)".into(), true);
    }
    match trusted {
        None => ("unverifiable (no trusted keys: --trusted-keys JWKS)".into(), true),
        Some(keys) => match keys.verify(card) {
            Ok(kids) => (format!("verified (signed by {})", kids.join(", ")), true),
            Err(why) => (format!("unverifiable ({why})"), false),
        },
    }
}

/// `card get`.
pub async fn get(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let trusted = match ctx.settings.get(id::TRUSTED_KEYS) {
        Some(path) => Some(
            crate::TrustedKeys::load(std::path::Path::new(path))
                .map_err(|why| Failure::usage(format!("--trusted-keys: {why}")))?,
        ),
        None => None,
    };
    let mut card = target.card.clone();
    if matches.get_flag("extended") {
        if !target.allows(GetExtendedAgentCard::NAME) {
            return Err(Failure::local(
                Local::Usage,
                "the agent's card declares no extended card (capabilities.extendedAgentCard)",
            ));
        }
        if target.interface.is_some() && !target.sends_credentials {
            let mut failure = Failure::local(
                Local::CredentialsMissing,
                "the extended card is fetched only with credentials a security scheme of the public card accepts",
            );
            if let Some(hint) = target.auth_hint() {
                failure = failure.hint(hint);
            }
            return Err(failure);
        }
        let mut params = json!({});
        target.with_tenant(GetExtendedAgentCard::NAME, &mut params);
        card = target
            .transport
            .call(GetExtendedAgentCard::NAME, params)
            .await
            .map_err(|e| ctx.fail(target, &e, target.sends_credentials))?;
    }
    if matches.get_flag("validate") {
        let schema = crate::schema::standalone("AgentCard");
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| Failure::local(Local::Internal, format!("the AgentCard schema: {e}")))?;
        let errors: Vec<String> = validator
            .iter_errors(&card)
            .take(5)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if !errors.is_empty() {
            return Err(Failure::local(
                Local::CardInvalid,
                format!(
                    "the Agent Card does not match the A2A AgentCard schema: {}",
                    errors.join("; ")
                ),
            ));
        }
        eprintln!("valid: the card matches the A2A AgentCard schema");
    }
    let (signature, ok) = signature_status(&card, trusted.as_ref());
    if !ok {
        output::warn(&format!("signature {signature}"));
    }
    let location = target
        .card_location
        .clone()
        .unwrap_or_else(|| "local agent (stdio)".into());
    let interface = target.interface.clone();
    ctx.output.document(&card, |out, card, verbose| {
        render_card(out, card, verbose, &location, interface.as_ref(), &signature)
    });
    Ok(())
}

fn render_card(
    out: &mut Text,
    card: &Value,
    verbose: bool,
    location: &str,
    chosen: Option<&super::target::Interface>,
    signature: &str,
) {
    let str_of = |v: &Value| v.as_str().unwrap_or("").to_string();
    out.field("Name", &str_of(&card["name"]));
    out.field_opt("Description", card["description"].as_str());
    out.field_opt("Version", card["version"].as_str());
    out.field_opt(
        "Provider",
        card.pointer("/provider/organization").and_then(Value::as_str),
    );
    out.field("Card", location);
    for interface in card["supportedInterfaces"].as_array().into_iter().flatten() {
        let mut line = format!(
            "{} {} (A2A {})",
            str_of(&interface["protocolBinding"]),
            str_of(&interface["url"]),
            str_of(&interface["protocolVersion"])
        );
        if let Some(tenant) = interface["tenant"].as_str().filter(|t| !t.is_empty()) {
            line.push_str(&format!(" tenant {tenant}"));
        }
        out.field("Interface", &line);
    }
    if let Some(chosen) = chosen {
        out.field(
            "Selected Interface",
            &format!("{} {} (A2A {})", chosen.binding, chosen.url, chosen.version),
        );
    }
    let capability = |name: &str| {
        card.pointer(&format!("/capabilities/{name}"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
            .to_string()
    };
    out.field("Streaming", &capability("streaming"));
    out.field("Push Notifications", &capability("pushNotifications"));
    out.field("Extended Card", &capability("extendedAgentCard"));
    for extension in card
        .pointer("/capabilities/extensions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let required = if extension["required"].as_bool() == Some(true) {
            " (required)"
        } else {
            ""
        };
        out.field("Extension", &format!("{}{required}", str_of(&extension["uri"])));
    }
    for (name, scheme) in super::target::schemes(card) {
        out.field("Security Scheme", &format!("{name}: {}", scheme.describe()));
    }
    for skill in card["skills"].as_array().into_iter().flatten() {
        out.field(
            "Skill",
            &format!("{} ({})", str_of(&skill["id"]), str_of(&skill["name"])),
        );
        if verbose {
            out.field_opt("Skill Description", skill["description"].as_str());
        }
    }
    out.field("Signature", signature);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_statuses() {
        assert_eq!(
            signature_status(&json!({}), None).0,
            "absent (the card is not signed)"
        );
        let signed = json!({"signatures": [{"protected": "x", "signature": "y"}]});
        assert!(signature_status(&signed, None).0.starts_with("unverifiable"));
    }
}
