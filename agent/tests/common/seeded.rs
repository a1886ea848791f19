//! What seeded live tests (the kill soak, the history checker) share: a
//! small deterministic generator, so a seed repeats a run, and their
//! numeric settings from the environment.

/// A small deterministic generator (xorshift); its state is never 0.
pub struct Rng(pub u64);

impl Rng {
    /// The generator of stream `stream` of a run seeded with `seed`: each
    /// thread of a run draws from its own.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut state = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if state == 0 {
            state = 1;
        }
        let mut rng = Rng(state);
        rng.below(2);
        rng
    }

    /// A number in `0..bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

/// The number an environment variable holds, if it is set to one.
pub fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}
