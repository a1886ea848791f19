#![cfg(test)]
//! Upgrades keep data: the store of every schema version SQLite has had,
//! as the code of that version wrote it (`fixtures/schema-N/store.sql`, a
//! dump of its database), opened by today's store, serves what that version
//! served (`expected.json`) and takes new writes. A new migration needs its
//! fixture (`scripts/store-fixture sqlite`), or
//! `every_migration_has_its_fixture` fails. The ignored
//! `write_upgrade_fixture` is the generator the script runs.

use crate::{SqliteStore, MIGRATIONS};
use std::path::{Path, PathBuf};
use store::upgrade;

/// The fixtures directory of this crate.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Opens, with today's store, the database the dump of schema `version`
/// describes, and checks it serves what that version served, then writes.
async fn upgrade_keeps_data(name: &str) {
    let version = upgrade::schema_of(name);
    let fixture = fixtures().join(name);
    let dir = name;
    let read = |file: &str| {
        std::fs::read_to_string(fixture.join(file)).unwrap_or_else(|e| panic!("fixture {dir}/{file}: {e}"))
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    {
        let conn = rusqlite::Connection::open(&path).expect("a new database");
        conn.execute_batch(&read("store.sql")).expect("the dump loads");
        let found: u32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("user_version");
        assert_eq!(found, version, "the dump's schema version");
    }
    let expected = read("expected.json");
    {
        let store = SqliteStore::open(&path).expect("today's store opens and migrates it");
        upgrade::check(&store, &expected).await;
        upgrade::writes_continue(&store).await;
    }
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    let now: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .expect("user_version");
    assert_eq!(now as usize, MIGRATIONS.len(), "migrated to the newest schema");
}

store::fixture_tests! {
    schema_1_upgrades_keeping_data => "schema-1",
    schema_2_upgrades_keeping_data => "schema-2",
    schema_3_upgrades_keeping_data => "schema-3",
    schema_4_upgrades_keeping_data => "schema-4",
    schema_5_upgrades_keeping_data => "schema-5",
    schema_6_upgrades_keeping_data => "schema-6",
    schema_6_first_form_upgrades_keeping_data => "schema-6-first-form",
    schema_7_upgrades_keeping_data => "schema-7",
}

#[test]
fn every_migration_has_its_fixture() {
    upgrade::assert_every_migration_has_its_fixture(&fixtures(), MIGRATIONS.len(), TESTED, "sqlite");
}

/// Writes the data set with this version's store into
/// `$STORE_FIXTURE_OUT/store.db` and what the store serves of it into
/// `$STORE_FIXTURE_OUT/expected.json`; `scripts/store-fixture` turns the
/// database into its dump.
#[tokio::test]
#[ignore = "the fixture generator, run by scripts/store-fixture"]
async fn write_upgrade_fixture() {
    let out = PathBuf::from(std::env::var("STORE_FIXTURE_OUT").expect("STORE_FIXTURE_OUT"));
    let store = SqliteStore::open(&out.join("store.db")).expect("open");
    upgrade::write(&store).await;
    let served = upgrade::served(&store).await;
    let text = serde_json::to_string_pretty(&served).expect("json");
    std::fs::write(out.join("expected.json"), text + "\n").expect("write expected.json");
}
