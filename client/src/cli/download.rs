//! `task download` (a2a-cli Tier 2): a task's artifacts saved as files —
//! file parts as their bytes (a URL fetched without any credential), text
//! as `.txt`, data as `.json` — under names that cannot leave the chosen
//! directory.

use super::failure::{Failure, Local};
use super::output;
use super::parts;
use super::standard::Ctx;
use super::target::Target;
use super::text::label;
use a2a::methods::markers::GetTask;
use a2a::rpc::{Method, Transport};
use clap::ArgMatches;
use serde_json::{json, Map, Value};

/// A file name safe to write: no directory part, nothing hidden.
fn safe_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let cleaned: String = base
        .chars()
        .map(|c| if c.is_control() || c == ':' { '_' } else { c })
        .collect();
    let cleaned = cleaned.trim_start_matches('.').trim().to_string();
    if cleaned.is_empty() {
        "artifact".into()
    } else {
        cleaned
    }
}

/// `task download`.
pub async fn task_download(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let mut params = Map::new();
    let task_id = ctx.task_id(matches, &mut params)?;
    let mut params = Value::Object(params);
    target.with_tenant(GetTask::NAME, &mut params);
    let task = target
        .transport
        .call(GetTask::NAME, params)
        .await
        .map_err(|e| ctx.fail(target, &e, target.sends_credentials))?;
    let dir = std::path::PathBuf::from(matches.get_one::<String>("dir").map_or(".", String::as_str));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::local(Local::Internal, format!("cannot create {}: {e}", dir.display())))?;
    let only: Vec<&String> = matches
        .get_many::<String>("artifact")
        .map(Iterator::collect)
        .unwrap_or_default();
    let force = matches.get_flag("force");
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| Failure::local(Local::Internal, format!("HTTP client: {e}")))?;
    let mut written = Vec::new();
    for artifact in task["artifacts"].as_array().into_iter().flatten() {
        let artifact_id = artifact["artifactId"].as_str().unwrap_or("artifact");
        if !only.is_empty() && !only.iter().any(|o| o.as_str() == artifact_id) {
            continue;
        }
        let stem = safe_name(artifact["name"].as_str().unwrap_or(artifact_id));
        let count = artifact["parts"].as_array().map_or(0, Vec::len);
        for (index, part) in artifact["parts"].as_array().into_iter().flatten().enumerate() {
            let numbered = |ext: &str| {
                if count > 1 {
                    format!("{stem}-{}.{ext}", index + 1)
                } else {
                    format!("{stem}.{ext}")
                }
            };
            let (name, bytes) = if let Some(text) = part["text"].as_str() {
                (numbered("txt"), text.as_bytes().to_vec())
            } else if let Some(raw) = part["raw"].as_str() {
                let bytes = parts::decode(raw).ok_or_else(|| {
                    Failure::local(
                        Local::Internal,
                        format!("artifact {artifact_id}: its file is not valid base64"),
                    )
                })?;
                (
                    part["filename"]
                        .as_str()
                        .map_or_else(|| numbered("bin"), safe_name),
                    bytes,
                )
            } else if let Some(url) = part["url"].as_str() {
                // Fetched without any credential: the URL is the agent's to give, not to trust.
                let response = http
                    .get(url)
                    .send()
                    .await
                    .and_then(reqwest::Response::error_for_status)
                    .map_err(|e| {
                        Failure::local(
                            Local::Unreachable,
                            format!("artifact {artifact_id}: cannot fetch {url}: {e}"),
                        )
                    })?;
                let bytes = response.bytes().await.map_err(|e| {
                    Failure::local(
                        Local::Unreachable,
                        format!("artifact {artifact_id}: reading {url}: {e}"),
                    )
                })?;
                (
                    part["filename"]
                        .as_str()
                        .map_or_else(|| numbered("bin"), safe_name),
                    bytes.to_vec(),
                )
            } else if let Some(data) = part.get("data") {
                (
                    numbered("json"),
                    serde_json::to_vec_pretty(data).unwrap_or_default(),
                )
            } else {
                continue;
            };
            let path = dir.join(&name);
            if path.exists() && !force {
                return Err(Failure::usage(format!(
                    "{} exists: pass --force to replace it, or --dir",
                    path.display()
                )));
            }
            std::fs::write(&path, &bytes).map_err(|e| {
                Failure::local(Local::Internal, format!("cannot write {}: {e}", path.display()))
            })?;
            written.push(json!({
                "artifactId": artifact_id,
                "path": path.display().to_string(),
                "bytes": bytes.len(),
                "mediaType": part["mediaType"],
            }));
        }
    }
    let report = json!({
        "taskId": task["id"],
        "contextId": task["contextId"],
        "state": task.pointer("/status/state"),
        "files": written,
    });
    ctx.output.document(&report, |out, value, _| {
        out.field(label::TASK_ID, value["taskId"].as_str().unwrap_or(""));
        out.field(label::CONTEXT_ID, value["contextId"].as_str().unwrap_or(""));
        out.field(label::STATE, value["state"].as_str().unwrap_or(""));
        for file in value["files"].as_array().into_iter().flatten() {
            out.field("Saved", file["path"].as_str().unwrap_or(""));
            out.field(label::FILE_SIZE, &format!("{} bytes", file["bytes"]));
        }
    });
    if written.is_empty() {
        output::warn(&format!("task {task_id} has no artifact to save"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe() {
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name(".hidden"), "hidden");
        assert_eq!(safe_name(""), "artifact");
        assert_eq!(safe_name("a\u{1b}b:c"), "a_b_c");
    }
}
