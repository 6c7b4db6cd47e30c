// The counterexample hunt off the main thread. The page posts
//   {module: "./raftlock-hunt.js", wasm: "./raftlock-hunt_bg.wasm", switches: "a,b", from, runs, slice}
// and this worker loads the hunt's own wasm module (src/hunt.rs: the core's hunt, no Yew),
// runs the hunt in slices, and posts progress:
//   {type: "progress", done, events, runs} ... then
//   {type: "shrinking", seed, invariant} and {type: "found", ...} | {type: "none", done, events}
//   | {type: "error", message}.
let mod = null;

self.onmessage = async (e) => {
  const { module, wasm, switches, from, runs, slice } = e.data;
  try {
    if (!mod) {
      mod = await import(module);
      await mod.default({ module_or_path: wasm });
    }
    let done = 0;
    let events = 0;
    while (done < runs) {
      const n = Math.min(slice, runs - done);
      const b = JSON.parse(mod.hunt_batch(switches, from + done, n));
      if (b.error) throw new Error(b.error);
      done += b.runs;
      events += b.events;
      self.postMessage({ type: "progress", done, events, runs });
      if (b.failed) {
        const [seed, invariant] = b.failed;
        self.postMessage({ type: "shrinking", seed, invariant, done, events });
        const f = JSON.parse(mod.hunt_shrink(switches, seed));
        if (f.error) throw new Error(f.error);
        self.postMessage({ type: "found", done, events, ...f });
        return;
      }
    }
    self.postMessage({ type: "none", done, events });
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });
  }
};
