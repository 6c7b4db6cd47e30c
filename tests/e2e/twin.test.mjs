// The safe twin: each "Break it" lesson on a projector shows its run and its twin (the same
// document and seed with the safeguard on) side by side; at the lesson's last caption the
// lesson's expected violation is red on its half and every invariant is green on the twin's.
// The twin comes back from a share link and in the embed player, and stacks on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openApp, shot, snap, lessonToEnd } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const BREAK_IT = fs.readdirSync(path.join(ROOT, 'scenarios'))
  .map((f) => JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios', f), 'utf8')))
  .filter((d) => d.lesson?.title?.en?.startsWith('Break it'));

async function open(page, name) {
  await page.evaluate((n) => { location.hash = `#scenario=${n}`; }, name);
  await page.waitForFunction((n) => window.raftlock.snapshot().now_us === 0 && document.querySelector('#scenario').value === n && window.raftlock.loading() === null, name);
}

const toEnd = (page) => lessonToEnd(page);

/// Whether a selector's box is whole on the screen, below the bar.
const onScreen = (page, sel) => page.evaluate((s) => {
  const el = document.querySelector(s);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  const bar = document.querySelector('header.bar')?.getBoundingClientRect().bottom ?? 0;
  return r.width > 0 && r.top >= bar - 1 && r.left >= 0 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
}, sel);

test('every Break-it lesson ends with its violation red on its own half and every invariant green on its twin, at 1366×768 presenter', async () => {
  assert.equal(BREAK_IT.length, 12, 'the twelve Break-it lessons');
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.evaluate(() => window.raftlock.presenter(true));
  for (const doc of BREAK_IT) {
    const name = doc.name;
    await open(page, name);
    await page.waitForSelector('#half-twin');
    await toEnd(page);
    const [run, twin] = await page.evaluate(() => [window.raftlock.snapshot(), window.raftlock.twin()]);
    assert.ok(twin, `${name}: the twin is there`);
    assert.equal(twin.now_us, run.now_us, `${name}: the twin is at the same true time`);
    const expected = doc.lesson.checks.filter((c) => c.expect === 'violated').map((c) => c.invariant);
    for (const inv of expected) {
      assert.equal(run.invariants.find((i) => i.name === inv)?.ok, false, `${name}: ${inv} is red in the run`);
    }
    assert.deepEqual(twin.invariants.filter((i) => !i.ok).map((i) => i.name), [], `${name}: every invariant is green on the twin`);
    // On the page: red on the run's half, green on the twin's, both halves, their labels and the
    // outcomes for each side on one screen.
    await page.waitForSelector('#half-run .verdict.bad');
    await page.waitForSelector('#half-twin .verdict.ok');
    assert.match(await page.locator('#half-run .label').textContent(), / off$/, `${name}: the run's half says its safeguard is off`);
    assert.match(await page.locator('#half-twin .label').textContent(), / on$/, `${name}: the twin's half says it is on`);
    for (const sel of ['#half-run', '#half-twin', '#caption', '#checks', '#twin-checks']) {
      assert.ok(await onScreen(page, sel), `${name}: ${sel} is on the screen`);
    }
    assert.equal(await page.locator('#twin-checks li.pending').count(), 0, `${name}: the twin's outcomes are met`);
    const l = await page.evaluate(() => window.raftlock.lesson());
    assert.ok(l.facts.some((f) => f.what.startsWith('on the safe twin:')), `${name}: the last caption checks the twin`);
    assert.ok(l.facts.every((f) => f.ok), `${name}: ${JSON.stringify(l.facts)}`);
    if (['gc-pause-no-fencing', 'break-token-counter', 'break-no-check-quorum'].includes(name)) {
      console.log('screenshot', await shot(page, `twin-${name}`));
    }
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('the twin moves with the run: Back, a seek and a share link rebuild it at the same moment', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, 'break-token-counter');
  await toEnd(page);
  await page.click('#lesson-back');
  const last = (await page.evaluate(() => window.raftlock.lesson())).count;
  await page.waitForFunction((p) => window.raftlock.lesson().pos === p, last - 1);
  assert.equal((await page.evaluate(() => window.raftlock.twin())).now_us, (await snap(page)).now_us);
  await page.evaluate(() => window.raftlock.seek(3_120_000));
  await page.waitForFunction(() => window.raftlock.twin()?.now_us === 3_120_000);
  // The twin is rebuilt from the link, not carried in it.
  await page.click('#share');
  const link = await page.locator('#share-url').inputValue();
  const other = await openApp(browser.context, link);
  await other.page.waitForFunction(() => window.raftlock.snapshot().now_us === 3_120_000 && window.raftlock.twin()?.now_us === 3_120_000 && !window.raftlock.job().busy);
  const [a, b] = await other.page.evaluate(() => [window.raftlock.twin(), window.raftlock.snapshot()]);
  assert.equal(b.trace_hash, (await snap(page)).trace_hash, 'the link gives the same run');
  assert.equal(a.trace_hash, (await page.evaluate(() => window.raftlock.twin())).trace_hash, 'and the same twin');
  assert.deepEqual([...errors, ...other.errors], []);
  await other.page.close();
  await page.close();
});

test('on a phone the halves stack and the page says so; the embed player shows both', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, 'gc-pause-no-fencing');
  await page.waitForSelector('#half-twin');
  const [run, twin] = await page.evaluate(() => ['#half-run', '#half-twin'].map((s) => document.querySelector(s).getBoundingClientRect().toJSON()));
  assert.ok(twin.top >= run.bottom - 1, 'the twin is below the run');
  assert.ok(await page.locator('#twin-note').isVisible(), 'the page says the halves are stacked');
  assert.ok(run.right <= 391 && twin.right <= 391, 'both fit the width');
  await page.setViewportSize({ width: 1366, height: 768 });
  assert.ok(!(await page.locator('#twin-note').isVisible()), 'side by side, no note');
  await page.goto(`${url}#embed/scenario=break-token-counter`);
  await page.setViewportSize({ width: 800, height: 500 });
  await page.waitForFunction(() => window.raftlock && document.querySelector('#half-twin svg.cluster') && window.raftlock.loading() === null);
  assert.ok(await page.evaluate(() => window.raftlock.twin() !== null));
  assert.ok(await onScreen(page, '#half-twin'), 'the twin fits the player');
  assert.deepEqual(errors, []);
  await page.close();
});
