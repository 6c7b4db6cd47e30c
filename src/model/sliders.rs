//! The page's sliders: the run's speed and a node's clock rate, their stops and positions; and
//! the width below which the page is drawn as a phone's.

/// The widest window, in CSS pixels, drawn as a phone's.
pub const NARROW_PX: f64 = 560.0;

/// The speed slider's stops (in millionths of real time): 1/100× to 100×, logarithmic.
pub const SPEED_STOPS: [u64; 13] = [
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
];
/// The speed slider's first position: ×1/5. In free play the first leader is elected about a
/// second after Play and client A is granted at about two, and a message of 20–30 ms is still
/// seen crossing the ring (at ×1 most live less than a frame).
pub const SPEED_START: i32 = 4;

/// Virtual microseconds per real millisecond at slider stop `pos` (× 1000 = ppm of real time).
pub fn speed_of(pos: i32) -> u64 {
    SPEED_STOPS[pos.clamp(0, SPEED_STOPS.len() as i32 - 1) as usize]
}

/// The clock-rate slider's stops, in ppm: values a lesson talks about, from a quartz crystal's
/// 1000 ppm to a clock at a quarter or four times true speed. The slider snaps to them and reads
/// "×2" or "×0.999"; a scenario's rate between two stops is shown as it is, the slider at the
/// nearer one.
pub const RATE_STOPS: [u32; 15] = [
    250_000, 500_000, 750_000, 900_000, 950_000, 990_000, 999_000, 1_000_000, 1_001_000, 1_010_000,
    1_050_000, 1_100_000, 1_500_000, 2_000_000, 4_000_000,
];
/// The slider's position of ×1 (its positions run from −RATE_MID to +RATE_MID).
pub const RATE_MID: i32 = (RATE_STOPS.len() / 2) as i32;

pub fn rate_of(pos: i32) -> u32 {
    RATE_STOPS[(pos.clamp(-RATE_MID, RATE_MID) + RATE_MID) as usize]
}

/// The stop nearest `rate_ppm` by ratio (×1.001 is nearer ×1 than ×0.999 is to ×0.99).
pub fn rate_pos(rate_ppm: u32) -> i32 {
    let ratio = |r: u32| {
        let (a, b) = (r.max(1) as f64, rate_ppm.max(1) as f64);
        a.max(b) / a.min(b)
    };
    let i = RATE_STOPS
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| ratio(**a).total_cmp(&ratio(**b)))
        .map_or(RATE_MID as usize, |(i, _)| i);
    i as i32 - RATE_MID
}
