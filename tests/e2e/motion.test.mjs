// What the browser moves by itself (src/model/motion.rs) shows what snapshot() says: the lock view's countdown bars
// after a pause, a step, a clock set to another rate and a jump, and while playing; the messages in flight.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openApp, snap } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const LEASE_MS = 4000;
// Three nodes, one client holding k on a 4 s lease; no lesson.
const scenario = JSON.stringify({
  version: 1, seed: 11, nodes: 3, until_ms: 60000,
  clients: [{ name: 'A', script: [{ acquire: { key: 'k', lease_ms: LEASE_MS } }, { sleep: { ms: 50000 } }] }],
});

// Read in one task: the bars as drawn (their width over their track's) and the run's time and countdowns.
const read = (page) => page.evaluate(() => {
  const s = window.raftlock.snapshot();
  const bars = [...document.querySelectorAll('#locks-panel table.lockview tbody tr')].find((tr) => tr.querySelector('th')?.textContent === 'k');
  const drawn = bars ? [...bars.querySelectorAll('td')].map((td) => {
    const bar = td.querySelector('.bar span');
    const track = td.querySelector('.bar');
    return bar && track ? bar.getBoundingClientRect().width / track.getBoundingClientRect().width : null;
  }) : [];
  return { now: s.now_us, nodes: s.nodes.map((n) => n.leases.find((l) => l.key === 'k')?.remaining_local_us ?? null), drawn };
});

// Each node's bar is its countdown's fraction left, within `slack` (a share of the whole bar).
function assertBars(r, slack, what) {
  assert.equal(r.drawn.length, r.nodes.length, `${what}: a bar per node (${JSON.stringify(r)})`);
  r.nodes.forEach((left, i) => {
    const want = left === null ? 0 : Math.min(1, Math.max(0, left / (LEASE_MS * 1000)));
    assert.ok(Math.abs(r.drawn[i] - want) <= slack, `${what}: n${i + 1} drawn ${r.drawn[i].toFixed(4)}, snapshot ${want.toFixed(4)} at ${r.now} µs`);
  });
}

test('the countdown a reader sees is the snapshot after a pause, a step, a clock change and a jump', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), scenario), null);
  await page.evaluate(() => window.raftlock.runTo(1_500_000));
  await page.waitForFunction(() => !window.raftlock.job().busy);
  const exact = 0.005; // half a percent of the bar: a pixel or so
  let r = await read(page);
  assert.ok(r.nodes.every((x) => x !== null && x > 0), `every node counts down: ${JSON.stringify(r)}`);
  assertBars(r, exact, 'after a seek');

  // Playing at ×1 the browser moves the bars between two draws of the lock view.
  await page.evaluate(() => { window.raftlock.setSpeed(6); window.raftlock.play(true); });
  await page.waitForFunction((t) => window.raftlock.snapshot().now_us > t + 300_000, r.now);
  const before = await read(page);
  await page.waitForFunction((t) => window.raftlock.snapshot().now_us > t + 200_000, before.now);
  assert.ok((await read(page)).drawn[0] < before.drawn[0], 'the bar shrinks while playing');

  await page.evaluate(() => window.raftlock.play(false));
  assertBars(await read(page), exact, 'after a pause');

  await page.evaluate(() => window.raftlock.step());
  assertBars(await read(page), exact, 'after a step');

  assert.equal(await page.evaluate(() => window.raftlock.act(JSON.stringify({ do: 'set_rate', node: 2, rate_ppm: 2_000_000 }))), null);
  assertBars(await read(page), exact, 'after n2 runs at ×2');
  const t = (await read(page)).now;
  await page.evaluate((t) => window.raftlock.runTo(t + 400_000), t);
  await page.waitForFunction(() => !window.raftlock.job().busy);
  r = await read(page);
  assertBars(r, exact, '0.4 s later');
  assert.ok(r.drawn[1] < r.drawn[0] - 0.05, `n2's countdown runs twice as fast: ${r.drawn}`);

  assert.equal(await page.evaluate(() => window.raftlock.act(JSON.stringify({ do: 'jump', node: 3, ms: 1000 }))), null);
  r = await read(page);
  assertBars(r, exact, 'after n3 jumps 1 s ahead');
  assert.ok(r.drawn[2] < r.drawn[0] - 0.2, `n3's countdown lost a second: ${r.drawn}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the messages drawn are the messages in flight, each moved on from where the run has it', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), scenario), null);
  const drawn = () => page.evaluate(() => {
    const msgs = [...document.querySelectorAll('#cluster g.msgs g.msg:not(.landed)')].map((g) => {
      const v = (name) => parseFloat(g.style.getPropertyValue(name));
      const m = new DOMMatrixReadOnly(getComputedStyle(g).transform);
      return { start: [v('--xa'), v('--ya')], end: [v('--xb'), v('--yb')], at: [m.e, m.f] };
    });
    return { inFlight: window.raftlock.snapshot().in_flight, msgs };
  });
  const near = (a, b) => Math.abs(a[0] - b[0]) < 0.5 && Math.abs(a[1] - b[1]) < 0.5;
  let seen = 0;
  for (let t = 1_000_000; t < 1_400_000 && seen < 3; t += 7_000) {
    await page.evaluate((t) => window.raftlock.runTo(t), t);
    const r = await drawn();
    assert.equal(r.msgs.length, r.inFlight, `every message in flight is drawn, and only those, at ${t} µs`);
    for (const m of r.msgs) assert.ok(near(m.at, m.start), `paused, a message stands where the run has it: ${JSON.stringify(m)}`);
    if (r.msgs.length > 0) seen++;
  }
  assert.ok(seen >= 3, `messages were in flight at three moments: ${seen}`);
  // Played at ×1/100, the browser moves each message on toward its end.
  await page.evaluate(() => { window.raftlock.setSpeed(0); window.raftlock.play(true); });
  await page.waitForFunction(() => document.querySelectorAll('#cluster g.msgs g.msg:not(.landed)').length > 0);
  // A message seen over five frames (about 1 ms of the run): it keeps its style and moves on.
  const watch = () => page.evaluate(() => new Promise((resolve) => {
    const g = document.querySelector('#cluster g.msgs g.msg:not(.landed)');
    if (!g) { resolve(null); return; }
    const at = () => { const m = new DOMMatrixReadOnly(getComputedStyle(g).transform); return [m.e, m.f]; };
    const first = at(); const style = g.getAttribute('style');
    let frames = 0;
    const tick = () => {
      if (++frames < 5) { requestAnimationFrame(tick); return; }
      const v = (name) => parseFloat(g.style.getPropertyValue(name));
      resolve({ first, then: at(), end: [v('--xb'), v('--yb')], same: style === g.getAttribute('style') && !g.classList.contains('landed') });
    };
    requestAnimationFrame(tick);
  }));
  const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  let moved = 0;
  for (let i = 0; i < 20 && moved < 2; i++) {
    const m = await watch();
    if (!m?.same) continue;
    assert.ok(dist(m.then, m.end) < dist(m.first, m.end), `a message moves toward its end: ${JSON.stringify(m)}`);
    moved++;
  }
  await page.evaluate(() => window.raftlock.play(false));
  assert.equal(moved, 2, 'two messages were seen moving on');
  assert.deepEqual(errors, []);
  await page.close();
});
