// The player a course page embeds: `#embed/…` in an <iframe> of 800×500, driven by the host
// page through postMessage, telling the host what happens (model::embed). The host is served
// from another origin (another port), as a course page would be.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openApp, shot } from './helpers.mjs';

let app, host, br, dir;
before(async () => {
  app = await serve();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raftlock-host-'));
  host = await serve(dir);
  br = await launch();
});
after(async () => { await br.close(); app.server.close(); host.server.close(); fs.rmSync(dir, { recursive: true, force: true }); });

/// A course page with the player at `frag`: it records what the player tells it in `window.got`.
async function course(frag, name = 'course.html') {
  fs.writeFileSync(path.join(dir, name), `<!doctype html><html><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="data:,"></head>
<body style="margin:0"><script>
  window.got = [];
  addEventListener('message', (e) => { if (e.source === document.getElementById('player').contentWindow) got.push(e.data); });
  window.send = (m) => document.getElementById('player').contentWindow.postMessage(m, '*');
</script>
<iframe id="player" src="${app.url}#${frag}" width="800" height="500" style="border:0"></iframe></body></html>`);
  const page = await br.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.setViewportSize({ width: 820, height: 520 });
  await page.goto(host.url + name);
  const frame = await (await page.waitForSelector('#player')).contentFrame();
  await frame.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster'), null, { timeout: 30000 });
  return { page, frame, errors };
}
const got = (page, type) => page.evaluate((t) => got.filter((m) => m.type === t), type);
const waitGot = (page, pred, arg) => page.waitForFunction(pred, arg, { timeout: 20000 });

test('the player fits an 800×500 iframe: caption, Back/Next, play, the cluster and the panel the caption names', async () => {
  const { page, frame, errors } = await course('embed/scenario=gc-pause');
  let asked = 0;
  for (let i = 0; i < 7; i++) {
    // Everything the player shows is inside the iframe, with nothing to scroll.
    const fit = await frame.evaluate(() => ({
      scroll: document.scrollingElement.scrollHeight,
      parts: ['#lesson', '#caption', '#lesson-next', '#lesson-back', '#play', '#open-full', 'svg.cluster', '.embed-stage .side > *']
        .map((s) => { const r = document.querySelector(s)?.getBoundingClientRect(); return [s, r && r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= 800 && r.bottom <= 500]; }),
      full: document.querySelectorAll('#log-panel, #switches-panel, #events-panel').length,
    }));
    assert.ok(fit.scroll <= 501, `step ${i}: the player scrolls (${fit.scroll} px)`);
    for (const [s, ok] of fit.parts) assert.ok(ok, `step ${i}: ${s} is not in view`);
    assert.equal(fit.full, 0, 'the whole page\'s panels are not in the player');
    if (i === 0) assert.deepEqual(await frame.evaluate(() => [...document.querySelectorAll('.embed-stage .side > section')].map((s) => s.id)), ['locks-panel'], 'no focus: the lock view');
    if (i === 3) await shot(page, 'embed-player');
    await frame.click('#lesson-next');
    if (await frame.evaluate(() => window.raftlock.lesson().question?.state === 'asking')) {
      // A question open: the lesson and the cluster side by side, the cluster as tall as the
      // player allows, every choice in view and nothing to scroll.
      const q = await frame.evaluate(() => {
        const r = (e) => e.getBoundingClientRect();
        const lesson = document.querySelector('#lesson');
        return {
          cluster: r(document.querySelector('svg.cluster')).height,
          lesson: [lesson.scrollHeight, lesson.clientHeight],
          choices: [...document.querySelectorAll('.question button[id^=choice-]')].map((b) => r(b).bottom <= 500 && r(b).right <= 800),
          scroll: document.scrollingElement.scrollHeight,
        };
      });
      assert.ok(q.cluster >= 300, `step ${i}: the cluster is ${q.cluster} px high while the question is open`);
      assert.ok(q.lesson[0] <= q.lesson[1] + 1, `step ${i}: the lesson scrolls (${q.lesson})`);
      assert.ok(q.choices.length >= 2 && q.choices.every(Boolean), `step ${i}: a choice is cut off`);
      assert.ok(q.scroll <= 501, `step ${i}: the player scrolls (${q.scroll} px)`);
      if (i === 3) await shot(page, 'embed-question');
      asked++;
      await frame.click('#choice-1');
    }
    await frame.waitForFunction((p) => window.raftlock.lesson().pos > p && !window.raftlock.job().busy, i, { timeout: 20000 });
  }
  assert.equal(asked, 3, "gc-pause's three questions were open on the way");
  // The last caption names the storage: the storage is the panel beside the cluster.
  assert.deepEqual(await frame.evaluate(() => [...document.querySelectorAll('.embed-stage .side > section')].map((s) => s.id)), ['storage-panel']);
  // Open in full: the whole page, at this run and moment, in a new tab.
  const full = frame.locator('#open-full');
  assert.equal(await full.getAttribute('target'), '_blank');
  const href = await full.getAttribute('href');
  assert.match(href, /#v1\./);
  assert.doesNotMatch(href, /embed/);
  const whole = await openApp(br.context, href);
  assert.ok(await whole.page.locator('#log-panel').count() > 0);
  assert.equal((await whole.page.evaluate(() => window.raftlock.snapshot())).now_us, await frame.evaluate(() => window.raftlock.snapshot().now_us));
  await whole.page.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a host page drives the player by postMessage and hears its moments, checks and answers', async () => {
  const { page, frame, errors } = await course('embed/scenario=gc-pause');
  await waitGot(page, () => got.some((m) => m.type === 'raftlock:ready'));
  const [ready] = await got(page, 'raftlock:ready');
  assert.equal(ready.scenario, 'gc-pause');
  assert.equal(ready.captions, 7);
  // Next: the host hears the moment, with the caption the player shows.
  await page.evaluate(() => send({ type: 'raftlock:next' }));
  await waitGot(page, () => got.some((m) => m.type === 'raftlock:moment' && m.pos === 1));
  const moment = (await got(page, 'raftlock:moment')).find((m) => m.pos === 1);
  assert.equal(moment.caption, await frame.textContent('#caption'));
  // Seek, play, pause.
  await page.evaluate(() => send({ type: 'raftlock:seek', ms: 2000 }));
  await frame.waitForFunction(() => window.raftlock.snapshot().now_us === 2_000_000 && !window.raftlock.job().busy);
  await page.evaluate(() => send({ type: 'raftlock:play' }));
  await frame.waitForFunction(() => window.raftlock.snapshot().now_us > 2_000_000);
  await page.evaluate(() => send({ type: 'raftlock:pause' }));
  await frame.waitForFunction(() => document.querySelector('#play').getAttribute('aria-pressed') === 'false');
  // Stray and malformed messages: strays are ignored, ours get an error, and the run stays.
  const before = await frame.evaluate(() => window.raftlock.snapshot().trace_hash);
  await page.evaluate(() => { send('hello'); send({ foo: 1 }); send({ type: 'other:thing' }); send([1, 2]); send(null); });
  await page.evaluate(() => { send({ type: 'raftlock:seek', ms: 'soon' }); send({ type: 'raftlock:load', scenario: '{broken' }); send({ type: 'raftlock:fly' }); });
  await waitGot(page, () => got.filter((m) => m.type === "raftlock:error").length === 3);
  const errs = (await got(page, 'raftlock:error')).map((m) => m.message);
  assert.match(errs[0], /raftlock:seek needs "ms"/);
  assert.match(errs[1], /refused/);
  assert.match(errs[2], /does not know the message "raftlock:fly"/);
  assert.equal(await frame.evaluate(() => window.raftlock.snapshot().trace_hash), before, 'bad messages change nothing');
  // Only the embedding page speaks to the player: a message the player's own window posts is
  // ignored (no answer, nothing done).
  await frame.evaluate(() => window.postMessage({ type: 'raftlock:seek', ms: 100 }, '*'));
  await page.evaluate(() => send({ type: 'raftlock:fly-too' }));
  await waitGot(page, () => got.filter((m) => m.type === 'raftlock:error').length === 4);
  assert.equal(await frame.evaluate(() => window.raftlock.snapshot().trace_hash), before, 'a message from elsewhere is ignored');
  // Back to the start and through the lesson: a student's answer and the outcomes reach the host.
  await page.evaluate(() => send({ type: 'raftlock:load', builtin: 'gc-pause' }));
  await waitGot(page, () => got.filter((m) => m.type === 'raftlock:ready').length === 2);
  for (let i = 0; i < 7; i++) {
    await frame.click('#lesson-next');
    if (await frame.evaluate(() => window.raftlock.lesson().question?.state === 'asking')) await frame.click('#choice-1');
    await frame.waitForFunction((p) => window.raftlock.lesson().pos > p && !window.raftlock.job().busy, i, { timeout: 20000 });
  }
  await waitGot(page, () => got.some((m) => m.type === 'raftlock:moment' && m.pos === 7));
  const answers = await got(page, 'raftlock:answer');
  assert.deepEqual(answers.map((a) => a.caption), [4, 6, 7]);
  assert.ok(answers.every((a) => a.choice === 1 && typeof a.right === 'boolean'));
  const checks = await got(page, 'raftlock:check');
  assert.ok(checks.some((c) => c.check === 'the storage rejects a write by A'), JSON.stringify(checks));
  // A document sent by the host plays in the player.
  await page.evaluate(() => send({ type: 'raftlock:load', scenario: { version: 1, name: 'host-made', seed: 7, nodes: 3, until_ms: 4000 } }));
  await waitGot(page, () => got.some((m) => m.type === 'raftlock:ready' && m.scenario === 'host-made'));
  assert.equal(await frame.evaluate(() => location.hash.startsWith('#embed')), true, 'still the player');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Embed on the whole page copies an iframe of the player at this moment', async () => {
  const { page, errors } = await openApp(br.context, `${app.url}#scenario=ghost-lock`);
  // The page on its own (no embedding page) takes no messages.
  // (Messages arrive in order: when the marker posted after it arrives, the page has had it.)
  await page.evaluate(() => new Promise((resolve) => {
    addEventListener('message', function f(e) { if (e.data === 'marker') { removeEventListener('message', f); resolve(); } });
    postMessage({ type: 'raftlock:load', builtin: 'gc-pause' }, '*');
    postMessage('marker', '*');
  }));
  assert.equal(await page.inputValue('#scenario'), 'ghost-lock');
  await page.evaluate(() => window.raftlock.runTo(1_500_000));
  await page.click('#copy-embed');
  const code = await page.inputValue('#embed-code');
  assert.match(code, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/#embed\/v1\.[\w-]+\.1500000" width="800" height="500" style="border:0;max-width:100%" title="raftlock: [^"]+" loading="lazy"><\/iframe>$/);
  const src = code.match(/src="([^"]+)"/)[1];
  const { frame } = await course(src.split('#')[1], 'copied.html');
  const s = await frame.evaluate(() => window.raftlock.snapshot());
  assert.equal(s.now_us, 1_500_000);
  assert.ok(await frame.locator('.page.embed').count() === 1);
  assert.deepEqual(errors, []);
  await page.close();
});
