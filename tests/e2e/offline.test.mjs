// A second visit needs no network: the service worker (www/sw.js, written by scripts/sw.sh)
// precaches the build. A new build installs in the background, says so, and opens on the next
// load. The page asks for nothing but its own files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openApp, snap, DIST } from './helpers.mjs';

let srv, br, dir;
const gate = { down: false, hits: 0 };
before(async () => {
  // A copy of the build, so that the update test can serve a second one in its place.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raftlock-site-'));
  fs.cpSync(DIST, dir, { recursive: true });
  srv = await serve(dir, '/', { gate });
  br = await launch();
});
after(async () => { await br.close(); srv.server.close(); fs.rmSync(dir, { recursive: true, force: true }); });

const controlled = (page) => page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });

test('after the first visit the page, a built-in scenario, the hunt, the trace check and the history check work with the network off', async () => {
  const { page, errors } = await openApp(br.context, srv.url);
  await controlled(page);
  const version = await page.evaluate(async () => (await caches.keys()).find((k) => k.startsWith('raftlock-')));
  assert.ok(version, 'the build is precached');
  // The network off for the page, and the host gone for the worker's own requests too
  // (Playwright's offline mode does not reach a service worker's fetches).
  await br.context.setOffline(true);
  gate.down = true;
  try {
    await page.goto(`${srv.url}#scenario=ghost-lock`);
    await page.reload();
    await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && window.raftlock.loading() === null, null, { timeout: 30000 });
    assert.equal(await page.inputValue('#scenario'), 'ghost-lock', 'its file came from the cache');
    assert.equal((await snap(page)).now_us, 0);
    assert.equal(await page.evaluate(() => navigator.onLine), false);
    // Every built-in's file is there too, and the list of scenarios tells their stories.
    const names = await page.evaluate(() => [...document.querySelectorAll('#scenario option')].map((o) => o.value).filter(Boolean));
    // Every built-in: one file each in scenarios/ (the page's list holds them all).
    assert.equal(names.length, fs.readdirSync(path.join(DIST, 'scenarios')).filter((f) => f.endsWith('.json')).length);
    assert.ok(names.length >= 26);
    for (const name of names) {
      await page.evaluate((n) => { location.hash = `#scenario=${n}`; }, name);
      await page.waitForFunction((n) => document.querySelector('#scenario').value === n && window.raftlock.loading() === null, name);
    }
    await page.click('#all-scenarios');
    await page.waitForFunction((n) => document.querySelectorAll('#scenario-list li small').length === n, names.length);
    assert.equal(await page.locator('#scenario-list .failed').count(), 0);
    await page.click('#close-list');
    await page.evaluate(() => { location.hash = '#scenario=ghost-lock'; });
    await page.waitForFunction(() => document.querySelector('#scenario').value === 'ghost-lock');
    // The interface's Russian (a file of its own) comes from the cache too.
    await page.selectOption('#lang', 'ru');
    await page.waitForFunction(() => window.raftlock.lang() === 'ru');
    assert.match(await page.locator('#play').innerText(), /Пуск/);
    await page.selectOption('#lang', 'en');
    await page.waitForFunction(() => window.raftlock.lang() === 'en');
    // A built-in scenario plays.
    await page.evaluate(() => window.raftlock.runTo(3_000_000));
    assert.ok((await snap(page)).events > 0);
    // A share link opened offline works: its scenario is in the link.
    await page.click('#share');
    const link = await page.inputValue('#share-url');
    assert.match(link, /#v1\./);
    await page.goto('about:blank');
    await page.goto(link);
    await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && !window.raftlock.job().busy, null, { timeout: 30000 });
    assert.equal((await snap(page)).now_us, 3_000_000, 'at the moment the link holds');
    // The hunt's worker and its wasm come from the cache too.
    await page.goto(`${srv.url}#scenario=playground`);
    await page.waitForFunction(() => window.raftlock && document.querySelector('#hunt-start'), null, { timeout: 30000 });
    await page.uncheck('#switch-no_check_quorum');
    await page.click('#hunt-start');
    await page.waitForFunction(() => /^Found/.test(document.querySelector('#hunt-status')?.textContent || ''), null, { timeout: 60000 });
    // A trace opened offline is checked by the same worker.
    await page.evaluate(() => window.raftlock.runTo(3_000_000));
    const text = await page.evaluate(() => window.raftlock.traceJsonl());
    await page.setInputFiles('#open-trace', { name: 't.jsonl', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await page.waitForFunction(() => window.raftlock.trace()?.check === 'done', null, { timeout: 30000 });
    assert.equal(typeof (await page.evaluate(() => window.raftlock.trace())).ok, 'boolean');
    // And the run's clients' history.
    await page.click('#close-trace');
    await page.evaluate(() => window.raftlock.checkHistory());
    await page.waitForSelector('#history-verdict', { timeout: 30000 });
    assert.match(await page.textContent('#history-verdict'), /At 3\.000 s/);
  } finally {
    await br.context.setOffline(false);
    gate.down = false;
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a new build installs in the background, is announced, and opens on the next load', async () => {
  const { page } = await openApp(br.context, srv.url);
  await controlled(page);
  const marker = () => page.evaluate(() => document.querySelector('meta[name="raftlock-build"]')?.content ?? null);
  assert.equal(await marker(), null);
  // The second build: another version in sw.js, and a page that says which build it is.
  const sw = path.join(dir, 'sw.js');
  fs.writeFileSync(sw, fs.readFileSync(sw, 'utf8').replace(/const VERSION = "(\w+)"/, 'const VERSION = "$1-second"'));
  const index = path.join(dir, 'index.html');
  fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('<head>', '<head><meta name="raftlock-build" content="second">'));
  // The next load is still the first build (served at once from the cache), and says a new one is ready.
  await page.reload();
  await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster'), null, { timeout: 30000 });
  assert.equal(await marker(), null, 'the open page is not swapped under the user');
  await page.waitForSelector('#update-notice', { timeout: 30000 });
  assert.match(await page.textContent('#update-notice'), /A new version of raftlock is ready: it opens when you reload the page \(close its other tabs first\)\./);
  // The load after that is the second build (through the old worker's stand-in page, which loads
  // the app again once the new worker controls it). Should it not come, say what the page was.
  await page.reload();
  await page.waitForFunction(() => document.querySelector('meta[name="raftlock-build"]') && window.raftlock && document.querySelector('svg.cluster'), null, { timeout: 30000 })
    .catch(async (e) => {
      const seen = await page.evaluate(async () => {
        const r = await navigator.serviceWorker.getRegistration();
        return { html: document.documentElement.outerHTML.slice(0, 400), controller: navigator.serviceWorker.controller?.state ?? null,
          active: r?.active?.state ?? null, waiting: r?.waiting?.state ?? null, caches: await caches.keys() };
      }).catch((x) => String(x));
      throw new Error(`${e.message}; the page: ${JSON.stringify(seen)}`);
    });
  assert.equal(await marker(), 'second');
  assert.equal(await page.locator('#update-notice').count(), 0);
  await page.close();
});

test('the page asks for nothing but its own files', async () => {
  const page = await br.context.newPage();
  const asked = [];
  page.on('request', (r) => asked.push(r.url()));
  await page.goto(`${srv.url}#scenario=ghost-lock`);
  await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && window.raftlock.loading() === null, null, { timeout: 30000 });
  await page.evaluate(() => window.raftlock.runTo(5_000_000));
  const origin = new URL(srv.url).origin;
  const foreign = asked.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.ok(asked.length > 0);
  await page.close();
});
