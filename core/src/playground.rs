//! The playground's model, without any web crate: a run of a scenario that can be played,
//! stepped, seeked back and forth (snapshots plus replay), taken over, and extended by what the
//! user does (recorded into the scenario document with its time, so a link replays it).
//! The Yew UI holds one of these; the native tests drive it directly.

use crate::scenario::{Action, Scenario, ScenarioError};
use crate::sim::World;

/// Snapshots kept for seeking; when full, every other one is dropped and the spacing doubles.
pub const SNAPSHOTS_MAX: usize = 64;
pub const SNAPSHOT_EVERY_US_MIN: u64 = 250_000;
/// Trace lines the page keeps (the event log, the space-time diagram and "next event" need
/// only the latest; lesson checks read the trace's running summary; an export replays).
pub const TRACE_KEEP: usize = 8192;
/// Client operations and storage writes the page keeps (the diagram and the storage panel show
/// the latest; lesson checks read running summaries; the history check replays the run).
pub const HISTORY_KEEP: usize = 4096;
/// Trace lines a scrubber snapshot keeps (copied, so snapshots spread over an hour do not pin
/// an hour of lines).
pub const SNAPSHOT_TRACE_LINES: usize = 256;

/// A world as the page runs it: lines kept (capped), every invariant after every event.
fn page_world(scenario: &Scenario) -> Result<World, ScenarioError> {
    let mut w = World::new(scenario, true)?;
    w.trace.set_cap(TRACE_KEEP);
    w.history.set_cap(HISTORY_KEEP);
    w.storage.set_cap(HISTORY_KEEP);
    Ok(w)
}

fn snapshot_of(w: &World) -> World {
    let mut s = w.clone();
    s.trace.keep_last(SNAPSHOT_TRACE_LINES);
    // Snapshots spread over hours must not pin hours of operations and writes between them:
    // each keeps about the latest few (the diagram and the storage panel show only those; the
    // history check replays the run).
    s.history.keep_last(SNAPSHOT_TRACE_LINES);
    s.storage.keep_last(SNAPSHOT_TRACE_LINES);
    // The space-time diagram shows the last 2 s: older deliveries are not needed after a seek.
    let since = s.now_us.saturating_sub(2_000_000);
    while s.recent.front().is_some_and(|m| m.4 < since) {
        s.recent.pop_front();
    }
    s.recent.shrink_to_fit();
    s
}

/// Where a replay in slices is headed: right after the `events`-th event if it names one, then
/// on to the moment `t_us`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    pub events: Option<u64>,
    pub t_us: u64,
    /// Stop where an invariant turns red (Run to does; a link or a seek replays through).
    pub stop_on_violation: bool,
}

impl Goal {
    /// The moment `t_us`, with no event count to reach first.
    pub fn at(t_us: u64, stop_on_violation: bool) -> Goal {
        Goal {
            events: None,
            t_us,
            stop_on_violation,
        }
    }
}

/// How a slice of work ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    Reached,
    Violated,
    More,
}

/// A replay of the run from its start to the event a history check is asked at.
#[derive(Clone)]
pub struct HistoryReplay {
    pub world: Box<World>,
    /// The count of events the check covers.
    pub target: u64,
    /// The operations the page's run recorded by then (kept and let go), when known.
    ops: Option<usize>,
}

impl HistoryReplay {
    /// The replay of a run's document to its `target`-th event (the page's worker checks the
    /// page's run from its document alone). A world records its history where it keeps its
    /// trace: it keeps only a few lines of it.
    pub fn of_document(scenario: &Scenario, target: u64) -> Result<HistoryReplay, ScenarioError> {
        let mut w = World::new(scenario, true)?;
        w.trace.set_cap(SNAPSHOT_TRACE_LINES);
        Ok(HistoryReplay {
            world: Box::new(w),
            target,
            ops: None,
        })
    }

    /// At most `max_events` events; true when the replay reached its target.
    pub fn slice(&mut self, max_events: u32) -> bool {
        for _ in 0..max_events {
            if self.world.stats.events >= self.target || !self.world.step() {
                return true;
            }
        }
        self.world.stats.events >= self.target
    }

    pub fn verdict(&self) -> Option<crate::check::history::Verdict> {
        if let Some(ops) = self.ops {
            debug_assert_eq!(self.world.history.ops.len(), ops);
        }
        self.world.history_verdict()
    }

    /// The verdict as the page's worker sends it (`check::history::verdict_to_json`), once the
    /// replay is the page's run: its trace hash at the target must be `run_hash`
    /// (`Trace::hash_hex`), else why not.
    pub fn verdict_json(&self, run_hash: &str) -> Result<String, String> {
        let hash = self.world.trace.hash_hex();
        if hash != run_hash {
            return Err(format!(
                "the replay reached trace hash {hash}, not the run's {run_hash}"
            ));
        }
        crate::check::history::verdict_to_json(&self.verdict())
    }
}

#[derive(Clone)]
pub struct Playground {
    /// The run's document: the scenario plus every action recorded during play.
    pub scenario: Scenario,
    pub world: World,
    snapshots: Vec<World>,
    snapshot_every_us: u64,
    /// The furthest moment this run has reached (the end of the scrubber).
    pub horizon_us: u64,
}

impl Playground {
    pub fn new(scenario: Scenario) -> Result<Playground, ScenarioError> {
        let world = page_world(&scenario)?;
        Ok(Playground {
            scenario,
            snapshots: vec![snapshot_of(&world)],
            world,
            snapshot_every_us: SNAPSHOT_EVERY_US_MIN,
            horizon_us: 0,
        })
    }

    pub fn now_us(&self) -> u64 {
        self.world.now_us
    }

    /// The end of the run (`until_ms` of the document): play stops there.
    pub fn end_us(&self) -> u64 {
        self.scenario.until_ms.saturating_mul(1000)
    }

    pub fn at_end(&self) -> bool {
        self.world.now_us >= self.end_us()
    }

    fn after_progress(&mut self) {
        let now = self.world.now_us;
        self.horizon_us = self.horizon_us.max(now);
        let last = self.snapshots.last().map_or(0, |s| s.now_us);
        if now >= last + self.snapshot_every_us {
            if self.snapshots.len() >= SNAPSHOTS_MAX {
                let mut i = 0;
                self.snapshots.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.snapshot_every_us *= 2;
            }
            self.snapshots.push(snapshot_of(&self.world));
        }
    }

    /// Advance virtual time to `t_us`, taking snapshots on the way. Stops early where an
    /// invariant turns red (the UI pauses there); returns true if it did.
    pub fn advance_to(&mut self, t_us: u64, stop_on_violation: bool) -> bool {
        loop {
            match self.advance_bounded(t_us, u32::MAX) {
                (_, true) if stop_on_violation => return true,
                (true, _) => return false,
                _ => {}
            }
        }
    }

    /// Like [`Playground::advance_to`] but processes at most `max_events` events, so a frame's
    /// work stays bounded. Returns (reached `t_us`, stopped where an invariant turned red).
    pub fn advance_bounded(&mut self, t_us: u64, max_events: u32) -> (bool, bool) {
        let t_us = t_us.min(self.end_us());
        let red = self.world.checker().broken.len();
        for _ in 0..max_events {
            match self.world.next_event_time() {
                Some(t) if t <= t_us => {
                    self.world.step();
                    self.after_progress();
                    // Stop where an invariant turns red; a red one breaking again does not stop
                    // the run (a lost entry makes every later apply differ).
                    if self.world.checker().broken.len() > red {
                        return (false, true);
                    }
                }
                _ => {
                    self.world.run_until(t_us);
                    self.after_progress();
                    return (true, false);
                }
            }
        }
        (false, false)
    }

    /// Process exactly one event. A timer that was reset since it was set is not an event (the
    /// world skips it uncounted), so the step goes on past such timers to the next real one.
    pub fn step_event(&mut self) {
        let before = self.world.stats.events;
        let mut moved = false;
        while self.world.stats.events == before
            && self
                .world
                .next_event_time()
                .is_some_and(|t| t <= self.end_us())
        {
            self.world.step();
            moved = true;
        }
        if moved {
            self.after_progress();
        }
    }

    /// Run until some node applies an entry (or `limit_us` of virtual time passes).
    pub fn step_to_next_apply(&mut self, limit_us: u64) {
        let until = self.world.now_us + limit_us;
        self.run_until_event(|e| matches!(e, crate::trace::Event::Apply { .. }), until);
    }

    /// Run until trace event `moment` happens (or `limit_us` of true time is reached). Returns
    /// whether it happened; the run stops right after that event.
    pub fn run_until_moment(
        &mut self,
        moment: crate::scenario::lesson::Moment,
        limit_us: u64,
    ) -> bool {
        let limit_us = limit_us.min(self.end_us());
        let mut watch = crate::scenario::lesson::Watch::new(moment, &self.world);
        while self.world.next_event_time().is_some_and(|t| t <= limit_us) {
            let before = self.world.trace.position();
            self.world.step();
            self.after_progress();
            if watch
                .after_step(self.world.trace.lines_since(before), &self.world)
                .is_some()
            {
                return true;
            }
        }
        self.world.run_until(limit_us);
        self.after_progress();
        false
    }

    /// Step events until one writes a trace line satisfying `hit` (then stop right after it), or
    /// run to `limit_us` (at most the end of the run). Returns whether it hit.
    fn run_until_event(
        &mut self,
        hit: impl Fn(&crate::trace::Event) -> bool,
        limit_us: u64,
    ) -> bool {
        let limit_us = limit_us.min(self.end_us());
        while self.world.next_event_time().is_some_and(|t| t <= limit_us) {
            let before = self.world.trace.position();
            self.world.step();
            self.after_progress();
            if self.world.trace.lines_since(before).any(|l| hit(&l.ev)) {
                return true;
            }
        }
        self.world.run_until(limit_us);
        self.after_progress();
        false
    }

    /// Go to `t_us` (back or forward): restore the latest snapshot at or before it and replay.
    /// Recorded actions stay, so the replay is exactly the run that was seen.
    pub fn seek(&mut self, t_us: u64) {
        let t_us = self.rewind(t_us);
        self.world.run_until(t_us);
    }

    /// The first half of a seek: restore the latest snapshot at or before `t_us` when going
    /// back or far forward (a near moment ahead is reached by running on). Returns the moment
    /// to replay to (at most what the run has reached); [`Playground::work_toward`] gets there
    /// in slices.
    pub fn rewind(&mut self, t_us: u64) -> u64 {
        let t_us = t_us.min(self.horizon_us.max(self.world.now_us));
        if t_us < self.world.now_us || self.world.now_us + self.snapshot_every_us < t_us {
            let i = self
                .snapshots
                .partition_point(|s| s.now_us <= t_us)
                .saturating_sub(1);
            self.world = self.snapshots[i].clone();
            self.catch_up();
        }
        t_us
    }

    /// Go to the state right after the `events`-th counted event (back or forward), then let
    /// the clock run on to `t_us` if that is later. A lesson's caption moment is such a pair:
    /// the run stops right after the caption's event, as when it was first reached.
    pub fn seek_events(&mut self, events: u64, t_us: u64) {
        let goal = self.rewind_events(events, t_us);
        while self.work_toward(goal, u32::MAX) != Slice::Reached {}
    }

    /// The first half of [`Playground::seek_events`]: restore a snapshot when the moment lies
    /// behind. Returns the goal to replay to.
    pub fn rewind_events(&mut self, events: u64, t_us: u64) -> Goal {
        let w = &self.world;
        if w.stats.events > events || (w.stats.events == events && w.now_us > t_us) {
            let i = self
                .snapshots
                .partition_point(|s| s.stats.events <= events && s.now_us <= t_us)
                .saturating_sub(1);
            self.world = self.snapshots[i].clone();
            self.catch_up();
        }
        Goal {
            events: Some(events),
            t_us,
            stop_on_violation: false,
        }
    }

    /// At most `max_events` events toward `goal`: right after its `events`-th event if it
    /// names one, then on to its moment (never past the end of the run). The page's long
    /// replays are made of these, a few milliseconds each.
    pub fn work_toward(&mut self, goal: Goal, max_events: u32) -> Slice {
        let mut budget = max_events;
        if let Some(events) = goal.events {
            while self.world.stats.events < events
                && self
                    .world
                    .next_event_time()
                    .is_some_and(|t| t <= self.end_us())
            {
                if budget == 0 {
                    return Slice::More;
                }
                budget -= 1;
                self.world.step();
                self.after_progress();
            }
            if self.world.now_us >= goal.t_us {
                return Slice::Reached;
            }
        }
        match self.advance_bounded(goal.t_us, budget) {
            (true, _) => Slice::Reached,
            (_, true) if goal.stop_on_violation => Slice::Violated,
            _ => Slice::More,
        }
    }

    /// A world restored from a snapshot queues the actions the document recorded after it.
    fn catch_up(&mut self) {
        let have = self.world.timeline_len();
        let more: Vec<_> = self
            .scenario
            .timeline
            .get(have..)
            .unwrap_or_default()
            .iter()
            .map(|t| self.scenario.compile_action(t))
            .collect();
        self.world.schedule(more);
    }

    /// Step back: to just before the latest event at or before now.
    pub fn step_back(&mut self) {
        let now = self.world.now_us;
        if now == 0 {
            return;
        }
        self.seek(now - 1);
    }

    /// Discard the future: actions recorded after now and snapshots beyond now; play goes on
    /// from here with new actions. Refused, changing nothing, when the document without them
    /// is not valid: a lesson whose captions name a node that a dropped action adds.
    pub fn take_over(&mut self) -> Result<(), ScenarioError> {
        let now_ms = self.world.now_us / 1000;
        let base_len = self.scenario.timeline.len();
        let mut trimmed = self.scenario.clone();
        trimmed.timeline.retain(|t| t.at_ms <= now_ms);
        if let Err(e) = trimmed.validate() {
            return Err(ScenarioError {
                field: e.field.clone(),
                message: crate::lang::Text::by_lang(|lang| {
                    crate::lang::tb!(
                        lang,
                        "taking over here would drop actions this document needs later ({e})",
                        e = e.words(lang)
                    )
                }),
            });
        }
        self.scenario = trimmed;
        let now = self.world.now_us;
        self.snapshots.retain(|s| s.now_us <= now);
        self.horizon_us = now;
        if self.scenario.timeline.len() != base_len {
            // The world's queue still holds the dropped actions: rebuild it from the document.
            let mut w = page_world(&self.scenario).expect("the document was valid");
            w.run_until(now);
            self.world = w;
            self.snapshots = vec![snapshot_of(&page_world(&self.scenario).expect("valid"))];
        }
        Ok(())
    }

    /// What the user did, recorded at the next millisecond and carried out at once.
    pub fn act(&mut self, action: Action) -> Result<(), ScenarioError> {
        if self.world.now_us < self.horizon_us {
            self.take_over()?;
        }
        let at_ms = self.world.now_us / 1000 + 1;
        if at_ms > crate::scenario::RUN_MS_MAX {
            // (The document would no longer be valid: no link, export or replay could carry it.)
            return Err(ScenarioError {
                field: "timeline".into(),
                message: crate::lang::both!("a run ends at 24 h: nothing can be done after it"),
            });
        }
        self.scenario.validate_action("action", &action)?;
        // A membership change that may not happen now is refused here, before it is recorded.
        let change = match action {
            Action::AddNode { node } => Some(crate::raft::ConfChange::add_learner(node - 1)),
            Action::RemoveNode { node } => Some(crate::raft::ConfChange::remove(node - 1)),
            _ => None,
        };
        if let Some(Err(why)) = change.map(|c| self.world.can_change(c)) {
            return Err(ScenarioError {
                field: "action".into(),
                message: crate::lang::Text::by_lang(|lang| why.reason_in(lang).to_string()),
            });
        }
        if self.scenario.timeline.len() >= crate::scenario::TIMELINE_MAX {
            return Err(ScenarioError {
                field: "timeline".into(),
                message: "too many actions in one run".into(),
            });
        }
        let t = crate::scenario::TimedAction { at_ms, action };
        self.world.schedule([self.scenario.compile_action(&t)]);
        self.scenario.timeline.push(t);
        self.advance_to(at_ms * 1000, false);
        Ok(())
    }

    /// Restart the same document from time 0.
    pub fn restart(&mut self) {
        *self = Playground::new(self.scenario.clone()).expect("the document was valid");
    }

    /// A fresh run of the same settings with another seed and no recorded actions beyond the
    /// scenario's own.
    pub fn with_seed(scenario: &Scenario, seed: u64) -> Result<Playground, ScenarioError> {
        let mut sc = scenario.clone();
        sc.seed = seed;
        Playground::new(sc)
    }

    /// The whole trace to this moment as JSONL. The page keeps only the latest lines; when
    /// some were let go, the run is replayed from its document with every line kept.
    pub fn full_trace_jsonl(&self) -> String {
        if self.world.trace.dropped() == 0 {
            return self.world.trace.to_jsonl();
        }
        let mut w = World::new(&self.scenario, true).expect("the document was valid");
        let target = self.world.trace.position();
        while w.trace.position() < target && w.step() {}
        debug_assert_eq!(w.trace.hash(), self.world.trace.hash());
        w.trace.to_jsonl()
    }

    /// The clients' whole history checked against a mutex with leases (see
    /// [`World::history_verdict`]); when the page let early operations go, the run is replayed
    /// to this very event to check all of them. Conflict positions count from the run's start.
    pub fn history_verdict(&self) -> Option<crate::check::history::Verdict> {
        if self.world.history.from() == 0 {
            return self.world.history_verdict();
        }
        let mut r = HistoryReplay::of_document(&self.scenario, self.world.stats.events)
            .expect("the document was valid");
        r.ops = Some(self.world.history.from() + self.world.history.ops.len());
        while !r.slice(u32::MAX) {}
        r.verdict()
    }

    /// The moments of the snapshots kept for seeking.
    pub fn snapshot_times(&self) -> Vec<u64> {
        self.snapshots.iter().map(|s| s.now_us).collect()
    }

    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }
}
