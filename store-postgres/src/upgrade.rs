#![cfg(test)]
//! Upgrades keep data: the database of every schema version PostgreSQL has
//! had, as the code of that version wrote it (`fixtures/schema-N/dump.sql`,
//! a plain `pg_dump`), restored into a fresh database of the throwaway
//! cluster and opened by today's store, serves what that version served
//! (`expected.json`) and takes new writes. A new migration needs its
//! fixture (`scripts/store-fixture postgres`), or
//! `every_migration_has_its_fixture` fails. The ignored
//! `write_upgrade_fixture` is the generator the script runs.

use crate::cluster::TestCluster;
use crate::schema::MIGRATIONS;
use crate::PgStore;
use std::path::{Path, PathBuf};
use store::upgrade;

/// The fixtures directory of this crate.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The name of the database a cluster URL points at.
fn database(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
}

/// The schema version recorded in the database at `url`.
async fn schema_version(url: &str) -> i32 {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
        .query_one("SELECT MAX(version) FROM schema_version", &[])
        .await
        .and_then(|row| row.try_get(0))
        .expect("schema_version")
}

/// Restores the dump of schema `version` into a fresh database, opens it
/// with today's store, and checks it serves what that version served, then
/// writes.
async fn upgrade_keeps_data(name: &str) {
    let version = upgrade::schema_of(name);
    let fixture = fixtures().join(name);
    let dir = name;
    let read = |file: &str| {
        std::fs::read_to_string(fixture.join(file)).unwrap_or_else(|e| panic!("fixture {dir}/{file}: {e}"))
    };
    let cluster = TestCluster::shared();
    let url = TestCluster::fresh_database();
    cluster
        .psql_script(database(&url), &read("dump.sql"))
        .unwrap_or_else(|e| panic!("the dump restores: {e}"));
    assert_eq!(
        schema_version(&url).await,
        i32::try_from(version).expect("a schema version"),
        "the dump's schema version"
    );
    let expected = read("expected.json");
    {
        let store = PgStore::open(&url)
            .await
            .expect("today's store opens and migrates it");
        upgrade::check(&store, &expected).await;
        upgrade::writes_continue(&store).await;
    }
    assert_eq!(
        schema_version(&url).await as usize,
        MIGRATIONS.len(),
        "migrated to the newest schema"
    );
}

store::fixture_tests! {
    schema_1_upgrades_keeping_data => "schema-1",
    schema_2_upgrades_keeping_data => "schema-2",
    schema_3_upgrades_keeping_data => "schema-3",
    schema_4_upgrades_keeping_data => "schema-4",
    schema_5_upgrades_keeping_data => "schema-5",
    schema_6_upgrades_keeping_data => "schema-6",
    schema_7_upgrades_keeping_data => "schema-7",
    schema_8_upgrades_keeping_data => "schema-8",
    schema_9_upgrades_keeping_data => "schema-9",
}

/// Migration 9 takes the lock every change of the counts is made under.
#[test]
fn the_recount_holds_the_event_order_lock() {
    let lock = format!("pg_advisory_xact_lock({})", crate::schema::EVENT_ORDER_LOCK);
    assert!(MIGRATIONS[8].contains(&lock), "{lock}");
}

#[test]
fn every_migration_has_its_fixture() {
    upgrade::assert_every_migration_has_its_fixture(&fixtures(), MIGRATIONS.len(), TESTED, "postgres");
}

/// Writes the data set with this version's store into a fresh database,
/// what the store serves of it into `$STORE_FIXTURE_OUT/expected.json`, and
/// the database's plain dump into `$STORE_FIXTURE_OUT/dump.sql`.
#[tokio::test]
#[ignore = "the fixture generator, run by scripts/store-fixture"]
async fn write_upgrade_fixture() {
    let out = PathBuf::from(std::env::var("STORE_FIXTURE_OUT").expect("STORE_FIXTURE_OUT"));
    let url = TestCluster::fresh_database();
    {
        let store = PgStore::open(&url).await.expect("open");
        upgrade::write(&store).await;
        let served = upgrade::served(&store).await;
        let text = serde_json::to_string_pretty(&served).expect("json");
        std::fs::write(out.join("expected.json"), text + "\n").expect("write expected.json");
    }
    let dump = TestCluster::shared().pg_dump(database(&url)).expect("pg_dump");
    std::fs::write(out.join("dump.sql"), dump).expect("write dump.sql");
}
