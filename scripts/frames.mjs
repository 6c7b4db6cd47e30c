// Our work per played frame, for comparing two builds (a developer's measurement; not a test):
//   node scripts/frames.mjs [DIST] [RUNS]
// The benchmark's busy lesson (7 nodes, 10 clients on 10 keys, no compaction) run to a 10k-entry
// log, at 1366×2600 so the lesson, the lock view, the log and the space-time diagram are all on
// screen; then, RUNS times, 600 frames at 1× and at 5× after 60 of warm-up. Prints our work per
// frame (advance + view + DOM patch, from `window.raftlock.frameWork()`) p50 / p99, the
// browser's frames over 20 ms, and (first run) the DOM writes per frame by panel. To compare
// builds, copy each build's dist/ aside and run this on each, alternated, in the same hour.
// THROTTLE=4 plays under CDP's CPU throttle (Emulation.setCPUThrottlingRate, as `make bench`'s
// slower laptop) at 1× only; HEIGHT=768 plays on a 1366×768 screen (the page scrolled to the top);
// TRACE=file.json records a performance trace of the first run (chrome://tracing's format;
// TRACE_CATS=… its categories); HIDE='css selector' hides those elements (a panel's share);
// STYLE='css' adds a style sheet (to try a CSS change on a built dist/ before building it).
import { openBuild, quantile as q } from '../tests/e2e/helpers.mjs';

const throttle = Number(process.env.THROTTLE || 1);
const height = Number(process.env.HEIGHT || 2600);
const { page, runs, close } = await openBuild(1366, 2600);
try {
  const clients = Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, repeat: true, start_ms: 300 + 7 * i,
    script: [{ acquire: { key: `k${i}`, lease_ms: 2000 } }, { release: { key: `k${i}` } }, { sleep: { ms: 5 } }] }));
  await page.evaluate((d) => window.raftlock.loadScenario(d), JSON.stringify({ version: 1, seed: 3, nodes: 7, raft: { snapshot_every: 0 }, clients, until_ms: 3600000,
    lesson: { title: 'A busy cluster', captions: [{ at_ms: 1, text: 'Ten clients take turns on ten keys.', focus: ['leader', 'key:k1'] }] } }));
  for (let t = 2e6; t < 3e8; t += 2e6) {
    await page.evaluate((t) => window.raftlock.runTo(t), t);
    if ((await page.evaluate(() => window.raftlock.snapshot())).nodes[0].last_index >= 10000) break;
  }
  if (height !== 2600) {
    await page.setViewportSize({ width: 1366, height });
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  if (process.env.HIDE) await page.addStyleTag({ content: `${process.env.HIDE} { display: none !important; }` });
  if (process.env.STYLE) await page.addStyleTag({ content: process.env.STYLE });
  const cdp = await page.context().newCDPSession(page);
  if (throttle !== 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  const panels = ['#lesson', '#locks-panel', '#log-panel', '#spacetime-panel', '.cluster-panel'];
  await page.evaluate((panels) => {
    window.__writes = {};
    for (const sel of panels) {
      const el = document.querySelector(sel);
      if (!el) continue;
      new MutationObserver((ms) => {
        for (const m of ms) window.__writes[sel] = (window.__writes[sel] || 0) + (m.type === 'childList' ? m.addedNodes.length + m.removedNodes.length : 1);
      }).observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
    }
  }, panels);
  const play = (stop, n) => page.evaluate(([stop, n]) => new Promise((resolve) => {
    window.raftlock.setSpeed(stop);
    window.raftlock.play(true);
    const d = []; let last = null; let warm = 60;
    const tick = (ts) => {
      if (warm > 0 && --warm === 0) { window.raftlock.frameWork(); window.__writes = {}; }
      else if (warm === 0 && last !== null) d.push(ts - last);
      last = ts;
      if (d.length < n) requestAnimationFrame(tick);
      else { window.raftlock.play(false); const fw = window.raftlock.frameWork(); resolve({ d, w: fw.map((x) => x[2]), a: fw.map((x) => x[0]), v: fw.map((x) => x[1]), writes: window.__writes }); }
    };
    requestAnimationFrame(tick);
  }), [stop, n]);
  const traced = async (r, f) => {
    if (r !== 0 || !process.env.TRACE) return f();
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    await cdp.send('Tracing.start', { categories: process.env.TRACE_CATS || 'devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink,cc', transferMode: 'ReportEvents' });
    const out = await f();
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
    (await import('node:fs')).writeFileSync(process.env.TRACE, JSON.stringify({ traceEvents: events }));
    return out;
  };
  for (let r = 0; r < runs; r++) {
    for (const [stop, label] of throttle !== 1 ? [[6, `1× (CPU ${throttle}× slower)`]] : [[6, '1×'], [8, '5×']]) {
      const { d, w, a, v, writes } = await traced(r, () => play(stop, 600));
      const over = d.filter((x) => x > 20).length;
      console.log(`${label} our work p50 / p99 ${q(w, 0.5).toFixed(1)} / ${q(w, 0.99).toFixed(1)} ms (advance ${q(a, 0.5).toFixed(1)} / ${q(a, 0.99).toFixed(1)}, view + patch ${q(v, 0.5).toFixed(1)} / ${q(v, 0.99).toFixed(1)}); frames over 20 ms ${over} of ${d.length} (${(100 * over / d.length).toFixed(0)}%); frame p50 / p99 ${q(d, 0.5).toFixed(1)} / ${q(d, 0.99).toFixed(1)} ms`);
      if (r === 0) console.log('   DOM writes per frame:', Object.entries(writes).map(([k, v]) => `${k} ${(v / d.length).toFixed(0)}`).join(', '));
    }
  }
} finally {
  await close();
}
