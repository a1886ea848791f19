//! Growth without a stop-the-world step: a hash map split into shards, and
//! an append-only log kept in fixed-size chunks.
//!
//! A `HashMap` that outgrows its table rehashes every entry at once: at a
//! million tasks that is tens of milliseconds in one commit, on the request
//! path. Split into [`SHARDS`] maps, a resize moves one shard's entries. A
//! `Vec` that outgrows its buffer copies it whole (the namespace's event
//! order: 32 bytes an event, 100 MB at three million); in chunks, growing
//! adds a chunk.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};

/// Shards per map: a resize at a million entries moves about 4,000.
const SHARDS: usize = 256;

/// A hash map in [`SHARDS`] shards.
pub(super) struct Sharded<K, V> {
    shards: Box<[HashMap<K, V>]>,
    /// Picks a key's shard (each shard hashes with its own state again).
    picker: RandomState,
    len: usize,
}

impl<K, V> Default for Sharded<K, V> {
    fn default() -> Self {
        Sharded {
            shards: (0..SHARDS).map(|_| HashMap::new()).collect(),
            picker: RandomState::new(),
            len: 0,
        }
    }
}

impl<K: Hash + Eq, V> Sharded<K, V> {
    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> usize {
        (self.picker.hash_one(key) % SHARDS as u64) as usize
    }

    pub(super) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shards[self.shard(key)].get(key)
    }

    pub(super) fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let shard = self.shard(key);
        self.shards[shard].get_mut(key)
    }

    pub(super) fn insert(&mut self, key: K, value: V) -> Option<V> {
        let shard = self.shard(&key);
        let old = self.shards[shard].insert(key, value);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub(super) fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let shard = self.shard(key);
        let old = self.shards[shard].remove(key);
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    /// The value of `key`, inserted as the default if absent.
    pub(super) fn get_or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        let shard = self.shard(&key);
        let map = &mut self.shards[shard];
        let len = &mut self.len;
        map.entry(key).or_insert_with(|| {
            *len += 1;
            V::default()
        })
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.shards.iter().flat_map(HashMap::values)
    }
}

/// Entries per chunk of a [`Chunked`] log.
const CHUNK: usize = 4096;

/// An append-only sequence in chunks of [`CHUNK`] entries.
pub(super) struct Chunked<T> {
    chunks: Vec<Vec<T>>,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked { chunks: Vec::new() }
    }
}

impl<T> Chunked<T> {
    pub(super) fn push(&mut self, item: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < last.capacity() => last.push(item),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(item);
                self.chunks.push(chunk);
            }
        }
    }

    /// Keeps the entries `keep` takes, in order; a chunk left empty goes.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        for chunk in &mut self.chunks {
            chunk.retain(&mut keep);
        }
        self.chunks.retain(|chunk| !chunk.is_empty());
    }

    /// The entries from the first for which `before` is false on, in order,
    /// for a sequence sorted so that `before` holds for a prefix.
    pub(super) fn starting_where_not(&self, before: impl Fn(&T) -> bool) -> impl Iterator<Item = &T> {
        let chunk = self
            .chunks
            .partition_point(|chunk| chunk.last().is_some_and(&before));
        let offset = self
            .chunks
            .get(chunk)
            .map_or(0, |chunk| chunk.partition_point(&before));
        self.chunks[chunk.min(self.chunks.len())..]
            .iter()
            .enumerate()
            .flat_map(move |(i, chunk)| chunk[if i == 0 { offset } else { 0 }..].iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sharded_map_counts_and_finds_what_it_holds() {
        let mut map: Sharded<String, u32> = Sharded::default();
        for n in 0..10_000u32 {
            assert_eq!(map.insert(n.to_string(), n), None);
        }
        assert_eq!(map.insert("7".into(), 70), Some(7));
        *map.get_or_default("new".into()) += 5;
        assert_eq!(
            (map.len(), map.get("7"), map.get("new")),
            (10_001, Some(&70), Some(&5))
        );
        assert_eq!(map.remove("7"), Some(70));
        assert_eq!((map.len(), map.get("7")), (10_000, None));
        assert_eq!(map.values().count(), 10_000);
    }

    fn after(log: &Chunked<u64>, from: u64) -> Vec<u64> {
        log.starting_where_not(|n| *n <= from).copied().take(3).collect()
    }

    #[test]
    fn a_chunked_log_reads_on_from_a_point_across_chunks() {
        let chunk = CHUNK as u64;
        let mut log = Chunked::default();
        for n in 1..=3 * chunk + 5 {
            log.push(n);
        }
        assert_eq!(after(&log, 0), vec![1, 2, 3]);
        assert_eq!(after(&log, chunk - 1), vec![chunk, chunk + 1, chunk + 2]);
        assert_eq!(after(&log, 3 * chunk + 4), vec![3 * chunk + 5]);
        assert_eq!(after(&log, u64::MAX), Vec::<u64>::new());
        log.retain(|n| *n > chunk + 2 || *n == 1);
        assert_eq!(after(&log, 0), vec![1, chunk + 3, chunk + 4]);
    }
}
