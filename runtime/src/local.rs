//! Where a local installation keeps its state, named once for the agent (which
//! writes there) and its clients (which find a local server's admin key there).
//! Only paths: reading and writing the files is the caller's.

use std::path::{Path, PathBuf};

/// Environment variable naming the data directory.
pub const DATA_DIR_ENV: &str = "CLEVERAGENTS_DATA_DIR";

/// File in the data directory holding the admin API key the agent creates.
pub const ADMIN_KEY_FILE: &str = "admin-api-key";

/// Subject the admin API key authenticates.
pub const ADMIN_KEY_SUBJECT: &str = "local-admin";

/// The per-user data directory when none is configured:
/// `$XDG_DATA_HOME/cleveragents`, else `~/.local/share/cleveragents`, else
/// `./cleveragents-data`.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("cleveragents");
    }
    match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        Some(home) => PathBuf::from(home).join(".local/share/cleveragents"),
        None => PathBuf::from("cleveragents-data"),
    }
}

/// The data directory a client assumes a local agent uses: `$CLEVERAGENTS_DATA_DIR`,
/// else [`default_data_dir`].
pub fn data_dir() -> PathBuf {
    std::env::var_os(DATA_DIR_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(default_data_dir)
}

/// Where the admin API key of the agent on `data_dir` lives.
pub fn admin_key_path(data_dir: &Path) -> PathBuf {
    data_dir.join(ADMIN_KEY_FILE)
}
