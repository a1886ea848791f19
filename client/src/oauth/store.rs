//! Tokens kept between runs, one file per agent and scheme, readable by the
//! user alone.
//!
//! The files live in `tokens/` under the client's configuration directory,
//! `$XDG_CONFIG_HOME/a2a-cli` (else `~/.config/a2a-cli`), the place the A2A
//! CLI convention names. An agent is known by the origin of its URL: that is
//! the boundary browsers hold credentials to, and the card, the endpoint and
//! the REST routes of one agent share it. The directory is made `0700` and
//! every file is written `0600` to a temporary name and renamed into place,
//! so a reader never sees half a token and no other user ever sees one.
//!
//! [`TokenStore::token_for`] is what later calls use: the kept access token
//! while it is current, else one fresh from the refresh token, else nothing
//! (the caller then says to log in again).

use crate::oauth::clock::unix_seconds;
use crate::oauth::error::OAuthError;
pub use crate::oauth::error::StoreError;
use crate::oauth::token::{ClientAuth, ClientAuthMethod, Secret, TokenResponse};
use crate::oauth::{ErrorCode, Flow, OAuthClient};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// The directory name under the user's configuration directory.
pub const CONFIG_DIR_NAME: &str = "a2a-cli";
/// A token this close to its expiry is treated as expired, so that it does
/// not run out between being read and being checked by the agent.
pub const EXPIRY_MARGIN: Duration = Duration::from_secs(30);
/// The format of the files; a file of a newer one is not read.
const FORMAT_VERSION: u32 = 1;
/// Largest token file read: a real one holds a JWT or two.
const FILE_LIMIT: u64 = 64 * 1024;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The configuration directory of A2A clients: `$XDG_CONFIG_HOME/a2a-cli`
/// when that variable holds an absolute path (the XDG rule), else
/// `$HOME/.config/a2a-cli`; on Windows `%APPDATA%\a2a-cli`.
pub fn default_dir() -> Option<PathBuf> {
    config_dir(|name| std::env::var_os(name))
}

/// [`default_dir`] with the environment read through `var`.
fn config_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(xdg) = absolute("XDG_CONFIG_HOME") {
        return Some(xdg.join(CONFIG_DIR_NAME));
    }
    if cfg!(windows) {
        if let Some(appdata) = absolute("APPDATA") {
            return Some(appdata.join(CONFIG_DIR_NAME));
        }
    }
    absolute("HOME").map(|home| home.join(".config").join(CONFIG_DIR_NAME))
}

/// Which agent and scheme a token is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AgentKey {
    origin: String,
    scheme: String,
}

impl AgentKey {
    /// The key of the card scheme `scheme` of the agent at `agent_url` (its
    /// card URL or endpoint: only the origin counts).
    pub fn new(agent_url: &str, scheme: &str) -> Result<Self, StoreError> {
        let invalid = || StoreError::InvalidAgent {
            url: agent_url.to_string(),
        };
        let url = Url::parse(agent_url).map_err(|_| invalid())?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(invalid());
        }
        Ok(AgentKey {
            origin: url.origin().ascii_serialization(),
            scheme: scheme.to_string(),
        })
    }

    /// The agent's origin (`https://agent.example:8443`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The card scheme's name.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The file name: origin and scheme with every byte but letters, digits,
    /// `.` and `-` escaped as `_XX`, joined by `+` (which is always escaped
    /// inside them, so two keys never share a name). A name too long for a
    /// file system keeps its head and ends with a hash of the whole.
    fn file_name(&self) -> String {
        let name = format!("{}+{}", escape(&self.origin), escape(&self.scheme));
        const MAX: usize = 200;
        if name.len() <= MAX {
            return format!("{name}.json");
        }
        let hash = fnv1a(format!("{}\n{}", self.origin, self.scheme).as_bytes());
        format!("{}~{hash:016x}.json", &name[..MAX - 17])
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-' {
            out.push(byte as char);
        } else {
            out.push_str(&format!("_{byte:02X}"));
        }
    }
    out
}

/// FNV-1a, 64 bits: fixed forever, unlike the standard library's hasher,
/// since file names must stay the same across releases.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A token as kept, with what refreshing it needs.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredToken {
    /// The format of the file.
    pub version: u32,
    /// The agent's origin.
    pub agent: String,
    /// The card scheme's name.
    pub scheme: String,
    /// The access token.
    pub access_token: String,
    /// Its type (`Bearer`).
    pub token_type: String,
    /// When it expires, in seconds since the Unix epoch; `None` when the
    /// server did not say (then it is used until the agent refuses it).
    pub expires_at: Option<u64>,
    /// The refresh token, when one was issued.
    pub refresh_token: Option<String>,
    /// The scopes granted, when the server said.
    pub scope: Option<String>,
    /// Where the refresh token is redeemed.
    pub refresh_url: Option<String>,
    /// The client the token was issued to.
    pub client_id: Option<String>,
    /// How that client authenticated (`client_secret_basic`, …); the secret
    /// itself is never kept.
    pub client_auth: Option<String>,
    /// The issuer, when known.
    pub issuer: Option<String>,
    /// When the token was obtained, in seconds since the Unix epoch.
    pub obtained_at: u64,
}

impl fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredToken")
            .field("agent", &self.agent)
            .field("scheme", &self.scheme)
            .field("access_token", &"***")
            .field("token_type", &self.token_type)
            .field("expires_at", &self.expires_at)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "***"))
            .field("scope", &self.scope)
            .field("refresh_url", &self.refresh_url)
            .field("client_id", &self.client_id)
            .field("client_auth", &self.client_auth)
            .field("issuer", &self.issuer)
            .field("obtained_at", &self.obtained_at)
            .finish()
    }
}

impl StoredToken {
    /// What to keep of `response`, obtained at `now` through `flow` by `client`.
    pub fn new(
        key: &AgentKey,
        response: &TokenResponse,
        flow: &Flow,
        client: &ClientAuth,
        now: SystemTime,
    ) -> Self {
        let obtained_at = unix_seconds(now);
        StoredToken {
            version: FORMAT_VERSION,
            agent: key.origin.clone(),
            scheme: key.scheme.clone(),
            access_token: response.access_token.clone(),
            token_type: response.token_type.clone(),
            expires_at: response.expires_in.map(|s| obtained_at.saturating_add(s)),
            refresh_token: response.refresh_token.clone(),
            scope: response.scope.clone(),
            refresh_url: Some(flow.refresh_endpoint().to_string()),
            client_id: Some(client.client_id.clone()),
            client_auth: Some(
                client
                    .method_for(flow.auth_methods.as_deref())
                    .as_str()
                    .to_string(),
            ),
            issuer: flow.issuer.clone(),
            obtained_at,
        }
    }

    /// The key the token is kept under.
    pub fn key(&self) -> AgentKey {
        AgentKey {
            origin: self.agent.clone(),
            scheme: self.scheme.clone(),
        }
    }

    /// True when the token has expired at `now`, or will within [`EXPIRY_MARGIN`].
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.expires_at
            .is_some_and(|at| unix_seconds(now).saturating_add(EXPIRY_MARGIN.as_secs()) >= at)
    }

    /// This token after a refresh answered `response` at `now`: a refresh
    /// answer without a refresh token or scope leaves the old ones in force
    /// (RFC 6749 §6).
    fn renewed(&self, response: &TokenResponse, now: SystemTime) -> Self {
        let obtained_at = unix_seconds(now);
        StoredToken {
            access_token: response.access_token.clone(),
            token_type: response.token_type.clone(),
            expires_at: response.expires_in.map(|s| obtained_at.saturating_add(s)),
            refresh_token: response
                .refresh_token
                .clone()
                .or_else(|| self.refresh_token.clone()),
            scope: response.scope.clone().or_else(|| self.scope.clone()),
            obtained_at,
            ..self.clone()
        }
    }
}

/// The token files of one configuration directory.
#[derive(Clone, Debug)]
pub struct TokenStore {
    base: PathBuf,
    tokens: PathBuf,
}

impl TokenStore {
    /// The store under `base` (a configuration directory such as
    /// [`default_dir`]'s; tests pass a temporary one). Nothing is created
    /// until a token is saved.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        let base = base.into();
        let tokens = base.join("tokens");
        TokenStore { base, tokens }
    }

    /// The store under [`default_dir`].
    pub fn open_default() -> Result<Self, StoreError> {
        default_dir().map(TokenStore::new).ok_or(StoreError::NoConfigDir)
    }

    /// The directory the token files are in.
    pub fn dir(&self) -> &Path {
        &self.tokens
    }

    /// The file `key`'s token is kept in.
    pub fn path_of(&self, key: &AgentKey) -> PathBuf {
        self.tokens.join(key.file_name())
    }

    /// Keeps `token` under its key, replacing any earlier one.
    pub fn save(&self, token: &StoredToken) -> Result<(), StoreError> {
        self.ensure_dirs()?;
        let path = self.path_of(&token.key());
        let bytes = serde_json::to_vec_pretty(token).map_err(|e| StoreError::Corrupt {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        write_private(&self.tokens, &path, &bytes)
    }

    /// The token kept under `key`, if any.
    pub fn load(&self, key: &AgentKey) -> Result<Option<StoredToken>, StoreError> {
        read_token(&self.path_of(key))
    }

    /// Forgets `key`'s token; true when there was one.
    pub fn remove(&self, key: &AgentKey) -> Result<bool, StoreError> {
        let path = self.path_of(key);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io(&path)(e)),
        }
    }

    /// Every kept token, ordered by file name (so by agent, then scheme).
    pub fn list(&self) -> Result<Vec<StoredToken>, StoreError> {
        let entries = match std::fs::read_dir(&self.tokens) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.tokens)(e)),
        };
        let mut paths = Vec::new();
        for entry in entries {
            let path = entry.map_err(io(&self.tokens))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            // Temporary files of a save in progress start with a dot.
            if !name.starts_with('.') && name.ends_with(".json") {
                paths.push(path);
            }
        }
        paths.sort();
        let mut tokens = Vec::new();
        for path in paths {
            tokens.extend(read_token(&path)?);
        }
        Ok(tokens)
    }

    /// The access token to send to `key`'s agent, if there is a usable one:
    /// the kept one while it is current; else, when a refresh token and
    /// where to redeem it are kept, a fresh one (kept in its place). A
    /// confidential client passes its `client_secret`, which is not kept.
    ///
    /// `Ok(None)` means the caller must log in again: no token, an expired
    /// one without a refresh token, or a refresh token the server no longer
    /// accepts (its file is then removed). Failures to reach the server are
    /// errors, since logging in again would not help.
    pub async fn token_for(
        &self,
        key: &AgentKey,
        oauth: &OAuthClient,
        client_secret: Option<&Secret>,
    ) -> Result<Option<String>, OAuthError> {
        let Some(token) = self.load(key)? else {
            return Ok(None);
        };
        let now = oauth.clock().now();
        if !token.is_expired(now) {
            return Ok(Some(token.access_token));
        }
        let (Some(refresh_token), Some(url), Some(client_id)) =
            (&token.refresh_token, &token.refresh_url, &token.client_id)
        else {
            return Ok(None);
        };
        let client = ClientAuth {
            client_id: client_id.clone(),
            client_secret: client_secret.cloned(),
            method: token
                .client_auth
                .as_deref()
                .and_then(ClientAuthMethod::parse)
                .filter(|m| *m != ClientAuthMethod::None),
        };
        match oauth.refresh(url, &client, refresh_token).await {
            Ok(response) => {
                let renewed = token.renewed(&response, now);
                self.save(&renewed)?;
                Ok(Some(renewed.access_token))
            }
            Err(OAuthError::Server {
                code: ErrorCode::InvalidGrant,
                ..
            }) => {
                // Another run may have redeemed (and so rotated) the same
                // refresh token a moment ago: its result is on disk then.
                match self.load(key)? {
                    Some(current) if current.refresh_token != token.refresh_token => {
                        Ok((!current.is_expired(now)).then_some(current.access_token))
                    }
                    _ => {
                        self.remove(key)?;
                        Ok(None)
                    }
                }
            }
            Err(error) => Err(error),
        }
    }

    /// Creates the configuration and token directories for the user alone,
    /// and sets the token directory back to `0700` if its mode was changed.
    fn ensure_dirs(&self) -> Result<(), StoreError> {
        for dir in [&self.base, &self.tokens] {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir).map_err(io(dir))?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = std::fs::metadata(&self.tokens).map_err(io(&self.tokens))?;
            if meta.permissions().mode() & 0o777 != 0o700 {
                std::fs::set_permissions(&self.tokens, std::fs::Permissions::from_mode(0o700))
                    .map_err(io(&self.tokens))?;
            }
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` in `dir`: to a new `0600` file first, flushed to
/// disk, then renamed over `path`, so the old content or the new is there
/// whole at every moment, and the token is never readable by others.
fn write_private(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("token");
    let temp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temp)?;
        // The mode asked for at creation is cut by the umask; this makes it exact.
        #[cfg(unix)]
        file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io(path)(e));
    }
    // The rename is durable once the directory is; a failure here loses
    // nothing already written, so it is not reported.
    #[cfg(unix)]
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(())
}

/// The token in the file at `path`, if there is one.
fn read_token(path: &Path) -> Result<Option<StoredToken>, StoreError> {
    let corrupt = |reason: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path)(e)),
    };
    let meta = file.metadata().map_err(io(path))?;
    if !meta.is_file() {
        return Err(corrupt("not a regular file".into()));
    }
    let mut bytes = Vec::new();
    file.take(FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(io(path))?;
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(corrupt(format!("larger than {FILE_LIMIT} bytes")));
    }
    // The parser's message may quote the file, and so a token: only its position is kept.
    let token: StoredToken = serde_json::from_slice(&bytes)
        .map_err(|e| corrupt(format!("invalid at line {} column {}", e.line(), e.column())))?;
    if token.version != FORMAT_VERSION {
        return Err(corrupt(format!(
            "format {} is not {FORMAT_VERSION}",
            token.version
        )));
    }
    Ok(Some(token))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::Grant;

    /// A fresh directory under the system's temporary one, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            static N: AtomicU64 = AtomicU64::new(0);
            let path = std::env::temp_dir().join(format!(
                "oauth-store-{tag}-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&path);
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn flow() -> Flow {
        Flow {
            grant: Grant::DeviceCode {
                device_authorization_url: "https://as.example/device".into(),
            },
            token_url: "https://as.example/token".into(),
            refresh_url: None,
            scopes: Default::default(),
            issuer: Some("https://as.example".into()),
            auth_methods: None,
        }
    }

    fn response(expires_in: Option<u64>) -> TokenResponse {
        TokenResponse {
            access_token: "access-1".into(),
            token_type: "Bearer".into(),
            expires_in,
            refresh_token: Some("refresh-1".into()),
            scope: Some("agent".into()),
        }
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn keys_are_origins_and_file_names_are_safe() {
        let key = AgentKey::new(
            "https://Agent.example:8443/.well-known/agent-card.json?x=1",
            "oauth",
        )
        .unwrap();
        assert_eq!(key.origin(), "https://agent.example:8443");
        assert_eq!(key.scheme(), "oauth");
        assert_eq!(key.file_name(), "https_3A_2F_2Fagent.example_3A8443+oauth.json");
        let default_port = AgentKey::new("https://agent.example:443/", "my scheme/+").unwrap();
        assert_eq!(
            default_port.file_name(),
            "https_3A_2F_2Fagent.example+my_20scheme_2F_2B.json"
        );
        let long = AgentKey::new("https://agent.example/", &"s".repeat(300)).unwrap();
        let name = long.file_name();
        assert_eq!(name.len(), 200 + ".json".len());
        assert!(name.ends_with(&format!(
            "~{:016x}.json",
            fnv1a(format!("https://agent.example\n{}", "s".repeat(300)).as_bytes())
        )));
        for bad in ["not a url", "file:///etc/passwd", "mailto:a@b"] {
            assert!(
                matches!(AgentKey::new(bad, "s"), Err(StoreError::InvalidAgent { .. })),
                "{bad}"
            );
        }
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn expiry_with_margin() {
        let key = AgentKey::new("https://agent.example", "oauth").unwrap();
        let client = ClientAuth::public("cli");
        let token = StoredToken::new(&key, &response(Some(100)), &flow(), &client, at(1_000));
        assert_eq!(token.expires_at, Some(1_100));
        assert_eq!(token.obtained_at, 1_000);
        assert!(!token.is_expired(at(1_069)));
        assert!(token.is_expired(at(1_070)));
        assert!(token.is_expired(at(2_000)));
        let forever = StoredToken::new(&key, &response(None), &flow(), &client, at(1_000));
        assert!(!forever.is_expired(at(u64::MAX / 2)));
        let huge = StoredToken::new(&key, &response(Some(u64::MAX)), &flow(), &client, at(1_000));
        assert_eq!(huge.expires_at, Some(u64::MAX));
    }

    #[test]
    fn saved_tokens_read_back_private() {
        let temp = TempDir::new("modes");
        let store = TokenStore::new(temp.0.join("a2a-cli"));
        let key = AgentKey::new("http://127.0.0.1:8080/", "oauth").unwrap();
        assert_eq!(store.load(&key).unwrap(), None);
        assert_eq!(store.list().unwrap(), Vec::new());
        let token = StoredToken::new(
            &key,
            &response(Some(60)),
            &flow(),
            &ClientAuth::public("cli"),
            at(5),
        );
        store.save(&token).unwrap();
        assert_eq!(store.load(&key).unwrap(), Some(token.clone()));
        assert_eq!(store.list().unwrap(), vec![token.clone()]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&temp.0.join("a2a-cli")), 0o700);
            assert_eq!(mode(store.dir()), 0o700);
            assert_eq!(mode(&store.path_of(&key)), 0o600);
            // A token directory opened up by hand is closed again on the next save.
            std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
            store.save(&token).unwrap();
            assert_eq!(mode(store.dir()), 0o700);
            assert_eq!(mode(&store.path_of(&key)), 0o600);
        }
        // Only the token file is left: no temporary file survives a save.
        let names: Vec<String> = std::fs::read_dir(store.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec![key.file_name()]);
        assert!(store.remove(&key).unwrap());
        assert!(!store.remove(&key).unwrap());
        assert_eq!(store.load(&key).unwrap(), None);
    }

    #[test]
    fn stored_fields() {
        let key = AgentKey::new("https://agent.example", "ci").unwrap();
        let mut flow = flow();
        flow.grant = Grant::ClientCredentials;
        flow.refresh_url = Some("https://as.example/refresh".into());
        flow.auth_methods = Some(vec!["client_secret_post".into()]);
        let client = ClientAuth::confidential("ci-bot", Secret::new("hunter2"));
        let token = StoredToken::new(&key, &response(Some(60)), &flow, &client, at(10));
        assert_eq!(token.refresh_url.as_deref(), Some("https://as.example/refresh"));
        assert_eq!(token.client_id.as_deref(), Some("ci-bot"));
        assert_eq!(token.client_auth.as_deref(), Some("client_secret_post"));
        assert_eq!(token.issuer.as_deref(), Some("https://as.example"));
        let json = serde_json::to_string(&token).unwrap();
        assert!(!json.contains("hunter2"));
        let debug = format!("{token:?}");
        assert!(!debug.contains("access-1") && !debug.contains("refresh-1") && !debug.contains("hunter2"));
    }

    #[test]
    fn renewal_keeps_what_the_answer_leaves_out() {
        let key = AgentKey::new("https://agent.example", "oauth").unwrap();
        let token = StoredToken::new(
            &key,
            &response(Some(60)),
            &flow(),
            &ClientAuth::public("cli"),
            at(10),
        );
        let bare = TokenResponse {
            access_token: "access-2".into(),
            token_type: "Bearer".into(),
            expires_in: Some(30),
            refresh_token: None,
            scope: None,
        };
        let renewed = token.renewed(&bare, at(100));
        assert_eq!(renewed.access_token, "access-2");
        assert_eq!(renewed.expires_at, Some(130));
        assert_eq!(renewed.refresh_token.as_deref(), Some("refresh-1"));
        assert_eq!(renewed.scope.as_deref(), Some("agent"));
        assert_eq!(renewed.obtained_at, 100);
    }

    #[test]
    fn corrupt_files_are_errors_without_content() {
        let temp = TempDir::new("corrupt");
        let store = TokenStore::new(&temp.0);
        let key = AgentKey::new("https://agent.example", "oauth").unwrap();
        std::fs::create_dir_all(store.dir()).unwrap();
        std::fs::write(store.path_of(&key), b"{\"access_token\": \"secret-value\"").unwrap();
        match store.load(&key) {
            Err(error @ StoreError::Corrupt { .. }) => assert!(!error.to_string().contains("secret-value")),
            other => panic!("{other:?}"),
        }
        std::fs::write(store.path_of(&key), vec![b' '; FILE_LIMIT as usize + 1]).unwrap();
        match store.load(&key) {
            Err(StoreError::Corrupt { reason, .. }) => assert_eq!(reason, "larger than 65536 bytes"),
            other => panic!("{other:?}"),
        }
        let mut future = serde_json::to_value(StoredToken::new(
            &key,
            &response(None),
            &flow(),
            &ClientAuth::public("cli"),
            at(1),
        ))
        .unwrap();
        future["version"] = 2.into();
        std::fs::write(store.path_of(&key), future.to_string()).unwrap();
        match store.load(&key) {
            Err(StoreError::Corrupt { reason, .. }) => assert_eq!(reason, "format 2 is not 1"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn config_dir_follows_xdg() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.into())
        };
        assert_eq!(
            config_dir(env(&[("XDG_CONFIG_HOME", "/xdg"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/xdg/a2a-cli"))
        );
        if !cfg!(windows) {
            // A relative XDG_CONFIG_HOME is to be ignored (XDG Base Directory spec).
            assert_eq!(
                config_dir(env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/home/u")])),
                Some(PathBuf::from("/home/u/.config/a2a-cli"))
            );
            assert_eq!(
                config_dir(env(&[("HOME", "/home/u")])),
                Some(PathBuf::from("/home/u/.config/a2a-cli"))
            );
            assert_eq!(config_dir(env(&[])), None);
        }
    }
}
