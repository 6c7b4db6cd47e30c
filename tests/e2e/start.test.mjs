// The start screen: the bare address says what this is and where to begin; it leads to the first
// lesson, to free play, and back to the lesson a reader left. A deep link skips it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, shot } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const LESSONS = fs.readdirSync(path.join(ROOT, 'scenarios')).filter((f) => f !== 'playground.json').length;

async function bare(width = 1366, height = 768) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.setViewportSize({ width, height });
  await page.goto(url);
  await page.waitForSelector('#start-screen');
  return { page, errors };
}

test('the bare address opens on the start screen: the first lesson, numbered cards, free play', async () => {
  const { page, errors } = await bare();
  assert.match(await page.locator('#start-screen .lead').innerText(), /replicate a lock service with leases and fencing tokens/);
  assert.equal(await page.locator('#start-screen ol.start-cards > li').count(), LESSONS, 'one card per lesson');
  const first = await page.locator('#start-screen ol.start-cards > li').first().innerText();
  assert.match(first, /^1\.\s*GC pause and fencing tokens/);
  assert.match(first, /\d+ steps · \d+ s of run/);
  assert.ok(await page.locator('#start-screen li.break').count() >= 11, 'Break-it lessons are marked');
  assert.equal(await page.locator('#start-continue').count(), 0, 'nothing to continue yet');
  console.log('screenshot', await shot(page, 'start-1366'));
  await page.setViewportSize({ width: 390, height: 844 });
  const box = await page.locator('#start-first').boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, 'the first lesson is in reach on a phone');
  assert.equal(await page.locator('#phone-bar').count(), 0, "the phone's bar waits under the start screen");
  console.log('screenshot', await shot(page, 'start-phone'));
  await page.setViewportSize({ width: 1366, height: 768 });
  // Free play: the start screen goes, the playground stays.
  await page.click('#start-free');
  await page.waitForSelector('#start-screen', { state: 'detached' });
  assert.equal(await page.evaluate(() => window.raftlock.lesson()), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Start the first lesson opens it; a returning reader is offered the lesson they left', async () => {
  const { page, errors } = await bare();
  await page.click('#start-first');
  await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'gc-pause' && window.raftlock.lesson());
  assert.match(await page.evaluate(() => location.hash), /scenario=gc-pause/);
  for (let pos = 0; pos < 2; pos++) {
    await page.evaluate(() => window.raftlock.lessonNext());
    await page.waitForFunction((p) => window.raftlock.lesson().pos === p + 1 && !window.raftlock.job().busy, pos);
  }
  // The next visit to the bare address offers it back.
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('#start-continue');
  assert.match(await page.locator('#start-continue').innerText(), /Continue: GC pause and fencing tokens \(you reached step 3\)/);
  await page.click('#start-continue');
  await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'gc-pause' && window.raftlock.lesson());
  // A card opens its own lesson.
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('#start-screen');
  await page.locator('#start-screen ol.start-cards > li').nth(1).locator('a').click();
  await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'late-expire');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a deep link and a share link skip the start screen', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${url}#scenario=ghost-lock`);
  await page.waitForFunction(() => window.raftlock && window.raftlock.loading() === null && document.querySelector('#scenario').value === 'ghost-lock');
  assert.equal(await page.locator('#start-screen').count(), 0);
  await page.click('#share');
  const link = await page.locator('#share-url').inputValue();
  const other = await browser.context.newPage();
  await other.goto(link);
  await other.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && window.raftlock.loading() === null);
  assert.equal(await other.locator('#start-screen').count(), 0);
  await other.close();
  await page.close();
});

test('a lesson link whose moment is past its end opens the lesson at its end, and says so in one unit', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${url}#scenario=ghost-lock`);
  await page.waitForFunction(() => window.raftlock && window.raftlock.loading() === null && window.raftlock.lesson());
  await page.click('#share');
  const link = await page.locator('#share-url').inputValue();
  await page.evaluate(() => window.raftlock.runTo(1e12));
  await page.waitForFunction(() => !window.raftlock.job().busy);
  const end = (await page.evaluate(() => window.raftlock.snapshot())).now_us;
  await page.close();
  // The same link with a moment 5 s past the run's end (a hand-edited or an older link).
  const past = link.replace(/\.\d+$/, `.${end + 5_000_000}`);
  const other = await browser.context.newPage();
  await other.goto(past);
  await other.waitForFunction((e) => window.raftlock && window.raftlock.loading() === null && window.raftlock.snapshot().now_us === e && !window.raftlock.job().busy, end);
  const l = await other.evaluate(() => window.raftlock.lesson());
  assert.equal(l.pos, l.count, 'the lesson is at its last step');
  const msg = await other.locator('#error').innerText();
  assert.match(msg, /^This link's moment, \d+\.\d{3} s, is past the end of its \d+ s run: it is opened at its end\./);
  assert.doesNotMatch(msg, /µs| ms\b/);
  // A broken link pasted into the open tab keeps the run, and says so.
  await other.evaluate((l) => { location.hash = l.split('#')[1].slice(0, 40); }, link);
  await other.waitForFunction(() => /The run you had is kept\./.test(document.querySelector('#error')?.innerText ?? ''));
  assert.equal((await other.evaluate(() => window.raftlock.snapshot())).now_us, end);
  assert.equal(await other.locator('#scenario').inputValue(), 'ghost-lock');
  await other.close();
});

test('files are opened with buttons in our words, not raw "Choose File" inputs', async () => {
  const { openApp, openTools } = await import('./helpers.mjs');
  const { page, errors } = await openApp(browser.context, url);
  await openTools(page);
  for (const [id, words] of [['#import', /^Import a scenario…$/], ['#open-trace', /^Open a trace…$/]]) {
    const label = page.locator(`label:has(${id})`);
    assert.match((await label.innerText()).trim(), words);
    assert.equal(await page.locator(id).evaluate((el) => getComputedStyle(el).opacity), '0', `${id} is not drawn`);
    // The keyboard reaches it, and the label shows where focus is.
    await page.focus(id);
    assert.notEqual(await label.evaluate((el) => getComputedStyle(el).outlineStyle), 'none');
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a disabled control says why, on the page and in its accessible description', async () => {
  const { openApp } = await import('./helpers.mjs');
  const { page, errors } = await openApp(browser.context, url);
  // Free play before any election: no leader to isolate.
  assert.equal(await page.evaluate(() => window.raftlock.snapshot().leader ?? null), null);
  assert.ok(await page.locator('#isolate-leader').isDisabled());
  const why = await page.locator('#isolate-leader').evaluate((b) => document.getElementById(b.getAttribute('aria-describedby'))?.textContent);
  assert.match(why, /No node leads yet/);
  assert.ok(await page.locator('#presets-why').isVisible());
  // Once a leader is elected the reason goes, and the button works.
  await page.evaluate(() => window.raftlock.runTo(1_000_000));
  await page.waitForFunction(() => window.raftlock.snapshot().leader !== null && !document.querySelector('#isolate-leader').disabled);
  assert.equal(await page.locator('#presets-why').count(), 0);
  assert.equal(await page.locator('#isolate-leader').getAttribute('aria-describedby'), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link is cut and healed by keyboard alone, and the cluster says what is cut', async () => {
  const { openApp } = await import('./helpers.mjs');
  const { page, errors } = await openApp(browser.context, url);
  // Tab until the link n1 → n2 has the focus.
  await page.evaluate(() => document.activeElement?.blur());
  let reached = false;
  for (let i = 0; i < 300 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'link-1-2');
  }
  assert.ok(reached, 'Tab reaches the link n1 → n2');
  assert.equal(await page.locator('#link-1-2').getAttribute('aria-label'), 'cut n1 → n2');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#link-1-2')?.classList.contains('cut'));
  assert.equal(await page.locator('#link-1-2').getAttribute('aria-label'), 'heal n1 → n2');
  assert.match(await page.locator('#cluster-title').textContent(), /Cut: n1 → n2\./);
  assert.equal(await page.locator('#link-2-1.cut').count(), 0, 'one direction only');
  await page.focus('#link-1-2');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => !document.querySelector('#link-1-2')?.classList.contains('cut'));
  assert.match(await page.locator('#cluster-title').textContent(), /Every link is up\./);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Share and Embed say what they copied, over the page, and the bar keeps its place', async () => {
  const { openApp } = await import('./helpers.mjs');
  const { page, errors } = await openApp(browser.context, url);
  const barBefore = await page.locator('.scenario-bar').boundingBox();
  await page.click('#share');
  await page.waitForSelector('#share-copied');
  assert.match(await page.locator('#share-copied').innerText(), /✓ Link copied/);
  assert.match(await page.locator('#share-url').inputValue(), /#v1\./);
  assert.equal(await page.locator('#share-copied').evaluate((e) => getComputedStyle(e).position), 'absolute');
  assert.deepEqual(await page.locator('.scenario-bar').boundingBox(), barBefore, 'no field pushed into the bar');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#share-copied', { state: 'detached' });
  await page.click('#copy-embed');
  await page.waitForSelector('#embed-copied');
  assert.match(await page.locator('#embed-copied').innerText(), /✓ Embed code copied/);
  await page.click('#embed-copied .close');
  await page.waitForSelector('#embed-copied', { state: 'detached' });
  assert.deepEqual(errors, []);
  await page.close();
});
