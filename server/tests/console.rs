//! The web console's assets: served from the binary at `/console` only
//! when `http.console` is on, each with its type and a policy that lets the
//! page load nothing from elsewhere.

mod common;

use common::*;

const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

#[tokio::test]
async fn the_console_is_off_by_default() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    for path in ["/console", "/console/console.js"] {
        assert_eq!(get(server.addr, path).await.status, 404, "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_console_serves_its_page_and_assets_when_on() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.http.console = true;
    let server = start_http(config, dispatch).await;
    let cases = [
        ("/console", "text/html; charset=utf-8", "<!doctype html>"),
        ("/console/", "text/html; charset=utf-8", "<!doctype html>"),
        (
            "/console/console.js",
            "text/javascript; charset=utf-8",
            "// The console's behaviour",
        ),
        (
            "/console/console.css",
            "text/css; charset=utf-8",
            "/* The console's look",
        ),
        (
            "/console/contract.js",
            "text/javascript; charset=utf-8",
            "// The package's browser entry",
        ),
    ];
    for (path, content_type, starts) in cases {
        let response = get(server.addr, path).await;
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.header("content-type"), Some(content_type), "{path}");
        assert_eq!(response.header("content-security-policy"), Some(POLICY), "{path}");
        assert_eq!(
            response.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert!(response.body.starts_with(starts.as_bytes()), "{path}");
    }
    assert_eq!(get(server.addr, "/console/missing.js").await.status, 404);
    server.stop().await;
}
