//! Latency summaries: nearest-rank percentiles over the measured samples.
//!
//! Samples are kept whole (one `u64` of nanoseconds per request) rather than
//! bucketed: a run holds at most a few hundred thousand of them, so sorting
//! once at the end is cheap and the percentiles are exact.

use serde::Serialize;

/// What the table reports about one measured loop's latencies, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub count: usize,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
}

/// The nearest-rank percentile `q` (0 < q ≤ 1) of `sorted` (ascending): the
/// smallest sample at or below which at least `q` of all samples lie. `None`
/// for no samples.
pub fn percentile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    // Rank 1..=n; the float product is rounded up so p50 of 1..=100 is 50, not 51.
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Sorts `samples_ns` in place and summarizes them.
pub fn summarize(samples_ns: &mut [u64]) -> Summary {
    samples_ns.sort_unstable();
    let us = |ns: Option<u64>| ns.unwrap_or(0) as f64 / 1_000.0;
    let total: u128 = samples_ns.iter().map(|&s| u128::from(s)).sum();
    let mean_us = if samples_ns.is_empty() {
        0.0
    } else {
        total as f64 / samples_ns.len() as f64 / 1_000.0
    };
    Summary {
        count: samples_ns.len(),
        p50_us: us(percentile(samples_ns, 0.50)),
        p99_us: us(percentile(samples_ns, 0.99)),
        max_us: us(samples_ns.last().copied()),
        mean_us,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_of_one_to_a_hundred() {
        let sorted: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&sorted, 0.50), Some(50));
        assert_eq!(percentile(&sorted, 0.99), Some(99));
        assert_eq!(percentile(&sorted, 1.0), Some(100));
        // Anything below the first rank is the smallest sample.
        assert_eq!(percentile(&sorted, 0.0), Some(1));
    }

    #[test]
    fn small_and_empty_sample_sets() {
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[7], 0.99), Some(7));
        // Two samples: p50 is the lower, p99 the upper.
        assert_eq!(percentile(&[3, 9], 0.5), Some(3));
        assert_eq!(percentile(&[3, 9], 0.99), Some(9));
    }

    #[test]
    fn summary_sorts_and_converts_to_microseconds() {
        let mut samples = vec![4_000, 1_000, 3_000, 2_000];
        let summary = summarize(&mut samples);
        assert_eq!(samples, vec![1_000, 2_000, 3_000, 4_000]);
        assert_eq!(summary.count, 4);
        assert_eq!(summary.p50_us, 2.0);
        assert_eq!(summary.p99_us, 4.0);
        assert_eq!(summary.max_us, 4.0);
        assert_eq!(summary.mean_us, 2.5);
        assert_eq!(summarize(&mut []), Summary::default());
    }
}
