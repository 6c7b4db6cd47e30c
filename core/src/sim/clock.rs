//! A node's local clock: `local = base_local + (true - base_true) × rate_ppm / 1e6`.
//!
//! A rate change re-bases the clock at the current instant, so local time never jumps when the
//! rate moves; a jump is a separate fault. Local time is signed (a jump back may pass zero).
//! All arithmetic is integer (i128 intermediates) so that native and wasm agree bit for bit.

use serde::{Deserialize, Serialize};

pub const PPM_ONE: u32 = 1_000_000;
/// The slowest and fastest rates a clock may run at (0.01× and 100×).
pub const RATE_PPM_MIN: u32 = 10_000;
pub const RATE_PPM_MAX: u32 = 100_000_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    base_true_us: u64,
    base_local_us: i64,
    rate_ppm: u32,
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new(0, PPM_ONE)
    }
}

impl Clock {
    pub fn new(offset_us: i64, rate_ppm: u32) -> Self {
        Clock {
            base_true_us: 0,
            base_local_us: offset_us,
            rate_ppm: rate_ppm.clamp(RATE_PPM_MIN, RATE_PPM_MAX),
        }
    }

    pub fn rate_ppm(&self) -> u32 {
        self.rate_ppm
    }

    /// The local reading at true time `t_us` (which must not precede the last re-basing).
    pub fn local_at(&self, t_us: u64) -> i64 {
        let dt = t_us.saturating_sub(self.base_true_us);
        // The same value as the i128 formula, without a 128-bit division (a library call in
        // wasm, 3% of a benchmark run) whenever the product fits 64 bits: runs up to 25 h at 100x.
        let scaled = match (dt as i64).checked_mul(self.rate_ppm as i64) {
            Some(p) if dt <= i64::MAX as u64 => p / PPM_ONE as i64,
            _ => (dt as i128 * self.rate_ppm as i128 / PPM_ONE as i128) as i64,
        };
        self.base_local_us + scaled
    }

    /// The first true time `>= now_us` at which the local clock reads at least `local_us`.
    pub fn true_when(&self, local_us: i64, now_us: u64) -> u64 {
        let now_local = self.local_at(now_us);
        if local_us <= now_local {
            return now_us;
        }
        let dl = local_us - self.base_local_us;
        // Smallest dt with dt*rate/1e6 >= dl: ceil(dl*1e6/rate) (64-bit when it fits, as above).
        let rate = self.rate_ppm as i64;
        let dt = match dl
            .checked_mul(PPM_ONE as i64)
            .and_then(|p| p.checked_add(rate - 1))
        {
            Some(p) => (p / rate) as i128,
            None => (dl as i128 * PPM_ONE as i128 + rate as i128 - 1) / rate as i128,
        };
        let t = self.base_true_us as i128 + dt;
        (t.min(u64::MAX as i128) as u64).max(now_us)
    }

    /// Change the rate at true time `now_us` without a jump in local time.
    pub fn set_rate(&mut self, now_us: u64, rate_ppm: u32) {
        self.base_local_us = self.local_at(now_us);
        self.base_true_us = now_us;
        self.rate_ppm = rate_ppm.clamp(RATE_PPM_MIN, RATE_PPM_MAX);
    }

    /// Jump the local clock forward (positive) or back (negative) at true time `now_us`.
    pub fn jump(&mut self, now_us: u64, delta_us: i64) {
        self.base_local_us = self.local_at(now_us).saturating_add(delta_us);
        self.base_true_us = now_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_rate_change_does_not_jump_local_time() {
        let mut c = Clock::new(0, PPM_ONE);
        assert_eq!(c.local_at(1_000_000), 1_000_000);
        c.set_rate(1_000_000, 2 * PPM_ONE);
        assert_eq!(c.local_at(1_000_000), 1_000_000);
        assert_eq!(c.local_at(2_000_000), 3_000_000);
    }

    #[test]
    fn clock_true_when_inverts_local_at() {
        let mut c = Clock::new(500, 1_500_000);
        c.set_rate(10_000, 333_333);
        for target in [20_000i64, 123_457, 9_999_999] {
            let t = c.true_when(target, 10_000);
            assert!(c.local_at(t) >= target);
            assert!(c.local_at(t - 1) < target, "first instant, target {target}");
        }
    }

    /// The 64-bit fast paths agree with the i128 formulas everywhere, including where the
    /// product no longer fits 64 bits.
    #[test]
    fn clock_fast_paths_equal_the_wide_formulas() {
        let wide_local = |c: &Clock, t: u64| {
            let dt = t.saturating_sub(c.base_true_us) as i128;
            c.base_local_us + (dt * c.rate_ppm as i128 / PPM_ONE as i128) as i64
        };
        let mut rng = crate::rng::Rng::new(7);
        for i in 0..20_000u64 {
            let rate = [
                RATE_PPM_MIN,
                PPM_ONE,
                RATE_PPM_MAX,
                1 + rng.below(RATE_PPM_MAX as u64) as u32,
            ][(i % 4) as usize];
            let base = rng.below(1 << 40);
            let c = Clock {
                base_true_us: base,
                base_local_us: rng.below(1 << 40) as i64 - (1 << 39),
                rate_ppm: rate.clamp(RATE_PPM_MIN, RATE_PPM_MAX),
            };
            let span = [1u64 << 20, 1 << 40, 1 << 62, u64::MAX - base][(i / 4 % 4) as usize];
            let t = base.saturating_add(rng.below(span.max(1)));
            assert_eq!(c.local_at(t), wide_local(&c, t), "local_at {c:?} at {t}");
            let target = c.local_at(t).saturating_add(rng.below(1 << 30) as i64 + 1);
            let got = c.true_when(target, base);
            let dl = (target - c.base_local_us) as i128;
            let dt = (dl * PPM_ONE as i128 + c.rate_ppm as i128 - 1) / c.rate_ppm as i128;
            let want = if target <= c.local_at(base) {
                base
            } else {
                ((c.base_true_us as i128 + dt).min(u64::MAX as i128) as u64).max(base)
            };
            assert_eq!(got, want, "true_when {c:?} for {target}");
        }
    }

    #[test]
    fn clock_jump_back_and_forward() {
        let mut c = Clock::new(0, PPM_ONE);
        c.jump(1_000, -5_000);
        assert_eq!(c.local_at(1_000), -4_000);
        c.jump(2_000, 10_000);
        assert_eq!(c.local_at(2_000), 7_000);
    }
}
