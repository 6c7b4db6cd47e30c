//! The clients and the fenced storage as their panels draw them: what each client is doing and
//! what it believes it holds (on its own clock, with its margin), and the storage's latest
//! writes with the highest token it has seen.

use super::text::fmt_us;
use crate::lang::{t, Lang};
use crate::sim::World;

/// One client's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientRow {
    pub name: String,
    /// What it is doing ("acquiring k", "crashed"), "(paused)" after it while paused.
    pub doing: String,
    /// What it believes it holds and for how long still on its own clock, or "holds nothing".
    pub believes: String,
    /// Its own clock's reading, when that is 1 ms or more away from true time.
    pub clock: Option<String>,
    pub paused: bool,
    pub crashed: bool,
    /// Some link between it and a node is up.
    pub connected: bool,
    /// It repeats its own script and takes no requests by hand.
    pub scripted: bool,
}

/// Every client's row, in the run's order.
pub fn rows(w: &World, lang: Lang) -> Vec<ClientRow> {
    w.clients
        .iter()
        .map(|slot| {
            let c = &slot.client;
            let local = slot.clock.local_at(w.now_us);
            let believes = c
                .held
                .iter()
                .map(|(k, h)| {
                    if h.until_local_us > local {
                        t!(
                            lang,
                            "holds {k} #{token} for {left} more",
                            token = h.token,
                            left = fmt_us(h.until_local_us - local, lang)
                        )
                    } else {
                        t!(lang, "its lease on {k} #{token} ran out", token = h.token)
                    }
                })
                .collect::<Vec<_>>()
                .join("; ");
            let state = if slot.crashed {
                t!(lang, "crashed").to_string()
            } else {
                crate::snapshot::client_state(c, lang)
            };
            ClientRow {
                name: c.cfg.name.clone(),
                doing: if slot.paused {
                    t!(lang, "{state} (paused)")
                } else {
                    state
                },
                believes: if believes.is_empty() {
                    t!(lang, "holds nothing").to_string()
                } else {
                    believes
                },
                clock: ((local - w.now_us as i64).abs() >= 1000)
                    .then(|| t!(lang, "clock {t}", t = fmt_us(local, lang))),
                paused: slot.paused,
                crashed: slot.crashed,
                connected: (0..w.node_count)
                    .any(|q| w.net.is_up(w.client_endpoint(c.id as usize), q)),
                scripted: c.cfg.repeat,
            }
        })
        .collect()
}

/// The storage panel: its title (fenced or not), the highest tokens it has seen, and its
/// latest writes, newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageView {
    pub title: String,
    /// " · highest token seen k=4" (" · highest token seen none").
    pub seen: String,
    pub writes: Vec<WriteRow>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteRow {
    pub time: String,
    /// The client that wrote.
    pub who: String,
    /// The write and the storage's verdict, in words.
    pub text: String,
    pub accepted: bool,
}

impl StorageView {
    /// The storage with its latest `shown` writes.
    pub fn of(w: &World, shown: usize, lang: Lang) -> StorageView {
        let s = &w.storage;
        let writes = s
            .writes
            .iter()
            .rev()
            .take(shown)
            .map(|x| {
                let who = w.client_name(x.client);
                let (key, token) = (&x.key, x.token);
                WriteRow {
                    time: fmt_us(x.t_us as i64, lang),
                    text: if x.accepted {
                        t!(lang, "{who} wrote {key} with token {token}: ✓ accepted")
                    } else {
                        t!(
                            lang,
                            "{who} wrote {key} with token {token}: ✗ rejected (stale token)"
                        )
                    },
                    who,
                    accepted: x.accepted,
                }
            })
            .collect();
        let highest = s
            .highest
            .iter()
            .map(|(k, t)| format!("{k}={t}"))
            .collect::<Vec<_>>()
            .join(", ");
        StorageView {
            title: if s.ignores_tokens {
                t!(lang, "Storage (ignores tokens)")
            } else {
                t!(lang, "Storage (fenced)")
            }
            .to_string(),
            seen: if highest.is_empty() {
                t!(lang, " · highest token seen none").to_string()
            } else {
                t!(lang, " · highest token seen {highest}")
            },
            writes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::at;
    use crate::model::{Action, Command, Page};
    use crate::playground::Playground;

    #[test]
    fn a_paused_client_believes_it_holds_the_key_until_its_own_clock_says_the_lease_ran_out() {
        let p = at("gc-pause", 1_200_000);
        let r = rows(&p.playground.world, Lang::En);
        assert_eq!(
            r.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["A", "B"]
        );
        let a = &r[0];
        assert!(a.paused && a.doing.ends_with(" (paused)"), "{a:?}");
        assert!(
            a.believes.starts_with("holds k #") && a.believes.ends_with(" more"),
            "{a:?}"
        );
        assert_eq!(r[1].believes, "holds nothing");
        assert!(r.iter().all(|r| r.connected && !r.crashed && !r.scripted));
        assert!(
            r.iter().all(|r| r.clock.is_none()),
            "true clocks say nothing"
        );
        let p = at("gc-pause", 3_000_000);
        let a = &rows(&p.playground.world, Lang::En)[0];
        assert!(a.believes.starts_with("its lease on k #"), "{a:?}");
        assert!(rows(&p.playground.world, Lang::Ru)[0]
            .believes
            .starts_with("его аренда"));
    }

    #[test]
    fn a_client_whose_clock_jumped_says_what_it_reads() {
        let p = at("client-clock-jump", 1_400_000);
        let r = rows(&p.playground.world, Lang::En);
        assert_eq!(r[0].clock.as_deref(), Some("clock 0.600 s"));
        assert_eq!(r[1].clock, None);
    }

    #[test]
    fn a_crashed_or_cut_off_client_says_so_and_a_scripted_one_is_marked() {
        let mut p = Page::new(Playground::new(crate::model::default_scenario()).unwrap());
        let r = rows(&p.playground.world, Lang::En);
        assert!(r[0].scripted, "free play's clients repeat their scripts");
        p.apply(Command::Act(Action::ClientCrash { client: "A".into() }));
        p.apply(Command::Act(Action::ClientDisconnect {
            client: "B".into(),
        }));
        let r = rows(&p.playground.world, Lang::En);
        assert!(r[0].crashed && r[0].doing == "crashed", "{:?}", r[0]);
        assert!(!r[1].connected && r[0].connected);
    }

    #[test]
    fn the_storage_shows_its_latest_writes_newest_first_with_the_stale_one_rejected() {
        let p = at("gc-pause", 6_000_000);
        let s = StorageView::of(&p.playground.world, 8, Lang::En);
        assert_eq!(s.title, "Storage (fenced)");
        assert!(s.seen.starts_with(" · highest token seen k="), "{}", s.seen);
        let a = s.writes.iter().find(|x| x.who == "A").expect("A wrote");
        assert!(!a.accepted && a.text.ends_with("✗ rejected (stale token)"));
        assert!(s.writes.iter().any(|x| x.who == "B" && x.accepted));
        let newest = p.playground.world.storage.writes.last().unwrap();
        assert_eq!(s.writes[0].time, fmt_us(newest.t_us as i64, Lang::En));
        assert_eq!(
            StorageView::of(&p.playground.world, 1, Lang::En)
                .writes
                .len(),
            1
        );
        let none = StorageView::of(&at("gc-pause", 0).playground.world, 4, Lang::En);
        assert_eq!(
            (none.seen.as_str(), none.writes.len()),
            (" · highest token seen none", 0)
        );
        let broken = at("gc-pause-no-fencing", 6_000_000);
        assert_eq!(
            StorageView::of(&broken.playground.world, 4, Lang::En).title,
            "Storage (ignores tokens)"
        );
    }
}
