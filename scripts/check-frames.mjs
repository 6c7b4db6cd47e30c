// The page while it checks the clients' history of a long run (a developer's measurement; not a
// test):   node scripts/check-frames.mjs [DIST] [RUNS]
// The benchmark's history workload (7 nodes, 16 clients on 4 keys, 1 s leases) run to 10 min,
// then, RUNS times, *Check the clients' history* while the run plays at 1×. Prints how long the
// verdict took, our work per played frame meanwhile (advance + view + DOM patch, from
// `window.raftlock.frameWork()`) p50 / p99, and the browser's frames over 20 ms. To compare
// builds, copy each build's dist/ aside and run this on each, alternated, in the same hour.
import { openBuild, quantile as q } from '../tests/e2e/helpers.mjs';

const { page, runs, close } = await openBuild(1366, 768);
try {
  const clients = Array.from({ length: 16 }, (_, i) => ({ name: `c${i}`, repeat: true, start_ms: 500 + 37 * i,
    script: [{ acquire: { key: `k${i % 4}`, lease_ms: 1000 } }, { work: { key: `k${i % 4}`, ms: 100 } },
      { release: { key: `k${i % 4}` } }, { sleep: { ms: 200 } }] }));
  await page.evaluate((d) => window.raftlock.loadScenario(d), JSON.stringify({ version: 1, name: 'busy-day', seed: 1, nodes: 7, clients, until_ms: 3_600_000 }));
  await page.evaluate(() => window.raftlock.runTo(600_000_000));
  for (let r = 0; r < runs; r++) {
    const out = await page.evaluate(() => new Promise((resolve) => {
      window.raftlock.setSpeed(6);
      window.raftlock.play(true);
      window.raftlock.frameWork();
      const t0 = performance.now();
      window.raftlock.checkHistory();
      const d = []; let last = null;
      const tick = (ts) => {
        if (last !== null) d.push(ts - last);
        last = ts;
        if (window.raftlock.job().jobs.length > 0 && performance.now() - t0 < 120_000) { requestAnimationFrame(tick); return; }
        const ms = performance.now() - t0;
        window.raftlock.play(false);
        const w = window.raftlock.frameWork().map((x) => x[2]);
        // (The verdict is drawn by the next frame.)
        requestAnimationFrame(() => resolve({ ms, d, w, verdict: document.querySelector('#history-verdict')?.textContent || '' }));
      };
      requestAnimationFrame(tick);
    }));
    console.log(`verdict after ${(out.ms / 1000).toFixed(2)} s (${/linearizable/.test(out.verdict) ? 'linearizable' : out.verdict.slice(0, 60)}); ` +
      `our work p50 / p99 ${q(out.w, 0.5).toFixed(1)} / ${q(out.w, 0.99).toFixed(1)} ms; frames over 20 ms ${out.d.filter((x) => x > 20).length} of ${out.d.length}`);
    await page.evaluate(() => window.raftlock.seek(600_000_000));
  }
} finally {
  await close();
}
