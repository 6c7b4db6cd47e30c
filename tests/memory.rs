//! Memory of a long play, in bytes: a counting allocator (its own test binary, so the other
//! tests keep the system allocator as it is). Allocation sizes are deterministic, so these are
//! budgets, not timings.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> usize {
    LIVE.load(Relaxed)
}

/// The benchmark's memory scenario (two clients contending for one key), played for four hours
/// in the page's model: every node compacts its log (a snapshot every 64 entries, §7); the page
/// keeps the latest 8,192 trace lines and 4,096 client operations and storage writes; and the
/// scrubber's snapshots (at most 64) share their past in chunks and keep only a short trace,
/// history, write list and the diagram's last 2 s of messages. So memory grows only until the
/// snapshots are spread out, then stays flat (natively 9.8 MB at 1 h, 10.3 MB at 24 h).
#[test]
fn an_hour_of_play_keeps_snapshots_small() {
    let doc = serde_json::json!({"version": 1, "seed": 1, "nodes": 5, "until_ms": 15000000,
        "clients": [{"name": "A", "repeat": true, "start_ms": 400, "script": [{"acquire": {"key": "k", "lease_ms": 1500}}, {"work": {"key": "k", "ms": 600}}, {"release": {"key": "k"}}, {"sleep": {"ms": 700}}]},
            {"name": "B", "repeat": true, "start_ms": 900, "script": [{"acquire": {"key": "k", "lease_ms": 1500}}, {"work": {"key": "k", "ms": 400}}, {"release": {"key": "k"}}, {"sleep": {"ms": 900}}]}]});
    let sc = raftlock::scenario::Scenario::from_json(&doc.to_string()).unwrap();
    let base = live();
    let mut p = raftlock::playground::Playground::new(sc).unwrap();
    let mut at = Vec::new();
    for min in [1u64, 10, 60, 240] {
        p.advance_to(min * 60_000_000, false);
        at.push((min, live() - base));
    }
    let before = live();
    let clone = p.world.clone();
    let one = live() - before;
    drop(clone);
    let mb = |b: usize| b as f64 / 1048576.0;
    println!(
        "live bytes: {} ; one world clone {:.0} KB; {} snapshots",
        at.iter()
            .map(|(m, b)| format!("{m} min {:.1} MB", mb(*b)))
            .collect::<Vec<_>>()
            .join(", "),
        one as f64 / 1024.0,
        p.snapshot_count()
    );
    assert!(
        one < 1 << 20,
        "a world clone (a snapshot) at 60 min costs {one} B"
    );
    assert!(
        at[2].1 < 14 << 20,
        "an hour of play holds {:.1} MB",
        mb(at[2].1)
    );
    let later = at[3].1 as f64 - at[2].1 as f64;
    assert!(
        later < 2.5 * 1048576.0,
        "three more hours added {:.1} MB",
        later / 1048576.0
    );
}
