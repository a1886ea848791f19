//! Documents (the registries, plans, push configs and sessions of the
//! application): versions checked on every write, commits applied whole or
//! not at all, listings by prefix and backwards by key.

use crate::{Commit, Doc, DocWrite, Expect, Store, StoreError};
use serde_json::json;

pub async fn documents_are_versioned_and_commits_atomic(store: &dyn Store) {
    let put = |expect, v| Commit {
        task: None,
        docs: vec![DocWrite::put("actor", "ns", "k", expect, v)],
        ..Commit::default()
    };
    assert_eq!(
        store
            .commit(put(Expect::Absent, json!(1)))
            .await
            .map(|c| c.doc_versions),
        Ok(vec![1])
    );
    assert_eq!(
        store.commit(put(Expect::Absent, json!(2))).await,
        Err(StoreError::Conflict {
            index: Some(0),
            found: Some(1)
        })
    );
    assert_eq!(
        store.commit(put(Expect::Version(7), json!(2))).await,
        Err(StoreError::Conflict {
            index: Some(0),
            found: Some(1)
        })
    );
    assert_eq!(
        store
            .commit(put(Expect::Version(1), json!(2)))
            .await
            .map(|c| c.doc_versions),
        Ok(vec![2])
    );
    // A commit whose second write fails leaves the first unapplied.
    let mixed = Commit {
        task: None,
        docs: vec![
            DocWrite::put("actor", "ns", "other", Expect::Absent, json!("x")),
            DocWrite::put("actor", "ns", "k", Expect::Version(1), json!(3)),
        ],
        ..Commit::default()
    };
    assert_eq!(
        store.commit(mixed.clone()).await,
        Err(StoreError::Conflict {
            index: Some(1),
            found: Some(2)
        })
    );
    assert_eq!(store.get_doc("actor", "ns", "other").await, Ok(None));
    let doc = store.get_doc("actor", "ns", "k").await.ok().flatten();
    assert_eq!(doc.map(|d| (d.version, d.value)), Some((2, json!(2))));
    let del = Commit {
        task: None,
        docs: vec![DocWrite::delete("actor", "ns", "k", Expect::Version(2))],
        ..Commit::default()
    };
    assert_eq!(
        store.commit(del.clone()).await.map(|c| c.doc_versions),
        Ok(vec![0])
    );
    assert_eq!(store.get_doc("actor", "ns", "k").await, Ok(None));
}

pub async fn list_docs_by_prefix_and_cursor(store: &dyn Store) {
    let docs = ["p/1", "p/2", "p/3", "q/1", "p"]
        .iter()
        .map(|k| DocWrite::put("c", "ns", k, Expect::Absent, json!(k)))
        .collect();
    assert!(store
        .commit(Commit {
            task: None,
            docs,
            ..Commit::default()
        })
        .await
        .is_ok());
    let keys = |docs: Vec<Doc>| docs.into_iter().map(|d| d.key).collect::<Vec<_>>();
    assert_eq!(
        store.list_docs("c", "ns", "p/", None, 10).await.map(keys),
        Ok(vec!["p/1".into(), "p/2".into(), "p/3".into()])
    );
    assert_eq!(
        store.list_docs("c", "ns", "p/", Some("p/1"), 1).await.map(keys),
        Ok(vec!["p/2".into()])
    );
    // A cursor below the prefix (other keys between them) starts at the prefix.
    assert_eq!(
        store.list_docs("c", "ns", "q/", Some("p/1"), 10).await.map(keys),
        Ok(vec!["q/1".into()])
    );
    assert_eq!(
        store.list_docs("c", "ns", "", None, 10).await.map(|d| d.len()),
        Ok(5)
    );
    // No limit at all (a scan of every document) is a limit too.
    assert_eq!(
        store
            .list_docs("c", "ns", "", None, usize::MAX)
            .await
            .map(|d| d.len()),
        Ok(5)
    );
    assert_eq!(
        store.list_docs("c", "other", "", None, 10).await.map(|d| d.len()),
        Ok(0)
    );
}

pub async fn list_docs_before_pages_backwards(store: &dyn Store) {
    let docs = ["a", "b", "c", "d", "b/1"]
        .iter()
        .map(|k| DocWrite::put("c", "ns", k, Expect::Absent, json!(k)))
        .chain([
            DocWrite::put("c", "ns2", "z", Expect::Absent, json!("other namespace")),
            DocWrite::put(
                "c",
                "n",
                "y",
                Expect::Absent,
                json!("a namespace that is a prefix"),
            ),
            DocWrite::put("c2", "ns", "x", Expect::Absent, json!("other collection")),
        ])
        .collect();
    assert!(store
        .commit(Commit {
            task: None,
            docs,
            ..Commit::default()
        })
        .await
        .is_ok());
    let keys = |docs: Vec<Doc>| docs.into_iter().map(|d| d.key).collect::<Vec<_>>();
    assert_eq!(
        store.list_docs_before("c", "ns", None, 10).await.map(keys),
        Ok(vec!["d".into(), "c".into(), "b/1".into(), "b".into(), "a".into()])
    );
    // Page by page, each page starting below the last key seen.
    let mut seen = Vec::new();
    let mut before: Option<String> = None;
    for _ in 0..10 {
        let page = store
            .list_docs_before("c", "ns", before.as_deref(), 2)
            .await
            .map(keys)
            .unwrap_or_default();
        if page.is_empty() {
            break;
        }
        before = page.last().cloned();
        seen.extend(page);
    }
    assert_eq!(seen, ["d", "c", "b/1", "b", "a"]);
    assert_eq!(
        store.list_docs_before("c", "ns", Some("b"), 10).await.map(keys),
        Ok(vec!["a".into()])
    );
    assert_eq!(
        store.list_docs_before("c", "ns", Some("a"), 10).await.map(keys),
        Ok(vec![])
    );
    assert_eq!(
        store.list_docs_before("c", "ns", Some("zzz"), 1).await.map(keys),
        Ok(vec!["d".into()])
    );
    let values = store
        .list_docs_before("c", "ns", Some("b/1"), 1)
        .await
        .map(|d| d.into_iter().map(|d| (d.version, d.value)).collect::<Vec<_>>());
    assert_eq!(values, Ok(vec![(1, json!("b"))]));
    assert_eq!(
        store.list_docs_before("c", "none", None, 10).await.map(keys),
        Ok(vec![])
    );
    assert_eq!(
        store.list_docs_before("c", "ns", None, 0).await.map(keys),
        Ok(vec![])
    );
}
