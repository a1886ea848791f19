//! The schema's example project `website` in namespace `acme`, with its style
//! guide resource: for the context and plan tests.

use crate::common::{call, local};
use a2a::Router;
use app::App;
use serde_json::json;

/// Text of exactly `n` bytes.
pub fn text_of(n: usize) -> String {
    "x".repeat(n)
}

pub const STYLE: &str = "# Style\n\nUse sentence case for headings. Keep release notes user-facing.\n";

/// The schema's example: project `website` in `acme` and one resource.
pub async fn website(router: &Router<App>) {
    assert_eq!(STYLE.len(), 73);
    call(
        router,
        &local(),
        "_cleveragents/registry/projects/add",
        json!({ "namespace": "acme", "project": { "name": "website", "files": [
            { "path": "README.md", "mediaType": "text/markdown", "text": text_of(42) },
            { "path": "assets/logo.png", "mediaType": "image/png", "text": text_of(70) },
            { "path": "CHANGELOG.md", "mediaType": "text/markdown", "text": text_of(45) },
        ] } }),
    )
    .await
    .expect("add project");
    call(
        router,
        &local(),
        "_cleveragents/registry/resources/add",
        json!({ "namespace": "acme", "resource": {
            "name": "docs-style-guide", "resourceType": "style-guide",
            "mediaType": "text/markdown", "text": STYLE
        } }),
    )
    .await
    .expect("add resource");
}
