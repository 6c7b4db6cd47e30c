// The page's Web Worker: heavy work off the main thread, from the second wasm module
// (src/worker.rs: the core without Yew and the views). The page starts one worker per job and
// posts {module: "./raftlock-worker.js", wasm: "./raftlock-worker_bg.wasm", job, ...}:
// - job "hunt", with switches: "a,b", from, runs, slice: runs the hunt in slices and posts
//     {type: "progress", done, events, runs} ... then
//     {type: "shrinking", seed, invariant} and {type: "found", ...} | {type: "none", done, events};
// - job "check-trace", with text: checks a trace against the seed's rules and posts
//     {type: "checked", json} (src/worker.rs, check_trace);
// - job "check-history", with doc (the run's document, JSON), target (events) and hash (the
//     run's trace hash there): replays the document to that event in slices, posting
//     {type: "progress", events} at most ten times a second, then {type: "history", json}: the
//     clients' history verdict (src/worker.rs, HistoryCheck), or an error if the replay is not
//     the run.
// Any failure posts {type: "error", message}. A message of another job is answered with an error.
let mod = null;

async function load(module, wasm) {
  if (!mod) {
    const m = await import(module);
    await m.default({ module_or_path: wasm });
    mod = m; // only once it is ready
  }
  return mod;
}

async function hunt(m, { switches, from, runs, slice }) {
  let done = 0;
  let events = 0;
  while (done < runs) {
    const n = Math.min(slice, runs - done);
    const b = JSON.parse(m.hunt_batch(switches, from + done, n));
    if (b.error) throw new Error(b.error);
    done += b.runs;
    events += b.events;
    self.postMessage({ type: "progress", done, events, runs });
    if (b.failed) {
      const [seed, invariant] = b.failed;
      self.postMessage({ type: "shrinking", seed, invariant, done, events });
      const f = JSON.parse(m.hunt_shrink(switches, seed));
      if (f.error) throw new Error(f.error);
      self.postMessage({ type: "found", done, events, ...f });
      return;
    }
  }
  self.postMessage({ type: "none", done, events });
}

function checkHistory(m, { doc, target, hash }) {
  const c = new m.HistoryCheck(doc, target);
  try {
    let told = performance.now();
    while (!c.slice(4096)) {
      const now = performance.now();
      if (now - told >= 100) {
        told = now;
        self.postMessage({ type: "progress", events: c.events() });
      }
    }
    self.postMessage({ type: "history", json: c.verdict(hash) });
  } finally {
    c.free();
  }
}

const JOBS = ["hunt", "check-trace", "check-history"];

self.onmessage = async (e) => {
  const d = e.data || {};
  try {
    if (!JOBS.includes(d.job)) throw new Error(`no such job: ${d.job}`);
    if (d.job === "check-trace" && typeof d.text !== "string") throw new Error("no trace to check");
    if (d.job === "check-history" && (typeof d.doc !== "string" || typeof d.hash !== "string" || !(d.target >= 0))) {
      throw new Error("no run to check");
    }
    const m = await load(d.module, d.wasm);
    if (d.job === "hunt") await hunt(m, d);
    else if (d.job === "check-trace") self.postMessage({ type: "checked", json: m.check_trace(d.text) });
    else checkHistory(m, d);
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });
  }
};
