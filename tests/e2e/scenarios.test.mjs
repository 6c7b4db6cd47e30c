// Built-in scenarios, lessons and share links in the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, openApp, openTools, shot, snap, runToEnd, checkHistory, DIST } from './helpers.mjs';

const ROOT = path.resolve(DIST, '..');
const golden = Object.fromEntries(fs.readFileSync(path.join(ROOT, 'tests/golden/builtin-hashes.txt'), 'utf8')
  .trim().split('\n').map((l) => l.split(' ')));
let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

// Most tests below use the tools (files, switches, Raft settings): in a lesson they sit behind Tools.
async function openAt(context, u) {
  const r = await openApp(context, u);
  await openTools(r.page);
  return r;
}

// The scenario document a click on Share link puts in the link (`#v1.<deflated JSON>.<moment>`).
async function sharedDoc(page) {
  await page.click('#share');
  const link = await page.locator('#share-url').inputValue();
  return JSON.parse(zlib.inflateRawSync(Buffer.from(link.split('#v1.')[1].split('.')[0], 'base64url')).toString());
}

test('every built-in scenario plays its lesson in the page, its checks pass, and its trace hash equals the native one', async () => {
  for (const [name, hash] of Object.entries(golden)) {
    const { page, errors } = await openAt(browser.context, `${url}#scenario=${name}`);
    const doc = await page.evaluate(() => window.raftlock.snapshot());
    assert.ok(doc.nodes.length >= 3, name);
    const steps = await page.locator('#lesson-next').count();
    if (steps) {
      // Step through every caption with Next; Back restores the earlier moment exactly.
      let guard = 0;
      // A question is answered (the first choice) as a student would, then the moment plays.
      while (guard++ < 40) {
        if (await page.locator('#question button.choice').count()) await page.click('#choice-0');
        else if (await page.locator('#lesson-next').isEnabled()) await page.click('#lesson-next');
        else break;
      }
      const done = await page.evaluate(() => window.raftlock.lesson());
      assert.equal(done.pos, done.count, `${name}: Next and the answers reach the last caption`);
      if (name === 'gc-pause') {
        const end = (await snap(page)).trace_hash;
        const before = await page.locator('#caption').innerText();
        await page.click('#lesson-back');
        assert.notEqual(await page.locator('#caption').innerText(), before);
        await page.click('#lesson-next');
        assert.equal((await snap(page)).trace_hash, end, 'Back then Next gives the same state');
        console.log('screenshot', await shot(page, 'lesson-gc-pause'));
      }
    }
    const until = JSON.parse(await page.evaluate(() => JSON.stringify(window.raftlock.snapshot()))).now_us;
    assert.ok(until >= 0);
    await runToEnd(page);
    const s = await snap(page);
    assert.equal(s.trace_hash, hash, `${name}: the browser's trace hash equals the native one`);
    const pending = await page.locator('#checks li.pending').count();
    assert.equal(pending, 0, `${name}: every expected outcome is reached`);
    if (name === 'log-compaction') {
      // Compacted entries show as "snap" cells; n3's row starts after the snapshot it installed.
      await page.locator('#log-panel').scrollIntoViewIfNeeded();
      await page.click('#log-panel button:has-text("Follow the end")');
      await page.evaluate(() => window.raftlock.seek(6_171_000)); // just after n3 installed it (6.170 s)
      await page.waitForFunction(() => /installs the leader's snapshot at index 48/.test(document.querySelector('ol.events').textContent));
      assert.equal(await page.locator('#log-panel tr:nth-child(3) td.compacted').count(), 8, "n3's row: 41 to 48 are in its snapshot");
      assert.ok(await page.locator('#log-panel tr:nth-child(1) td.entry').count() > 8, "n1's log still holds 41 to 48 for followers");
      console.log('screenshot', await shot(page, 'log-compaction'));
      await runToEnd(page);
    }
    assert.deepEqual(errors, [], name);
    await page.close();
  }
});

test('a shared link opens in a fresh browser at the same moment of the same run', async () => {
  const { page, errors } = await openAt(browser.context, url);
  await page.evaluate(() => window.raftlock.runTo(1_200_000));
  await page.evaluate(() => window.raftlock.act('{"do":"isolate","node":2}'));
  await page.evaluate(() => window.raftlock.runTo(2_500_000));
  await page.locator('#rate-3').fill('6');   // ×2
  await page.evaluate(() => window.raftlock.runTo(3_300_000));
  await page.click('#share');
  const link = await page.locator('#share-url').inputValue();
  assert.match(link, /#v1\./);
  assert.ok(link.length < 2000, `link length ${link.length}`);
  const here = await snap(page);
  await page.close();
  const fresh = await launch();
  try {
    const { page: p2, errors: e2 } = await openAt(fresh.context, link);
    await p2.waitForFunction((t) => window.raftlock.snapshot().now_us === t, here.now_us);
    const there = await snap(p2);
    assert.equal(there.trace_hash, here.trace_hash, 'the same run');
    assert.equal(there.now_us, here.now_us, 'at the same moment');
    assert.equal(there.nodes[2].rate_ppm, 2000000, 'with the drift the user set');
    console.log('screenshot', await shot(p2, 'shared-link'));
    assert.deepEqual(e2, []);
  } finally {
    await fresh.close();
  }
  assert.deepEqual(errors, []);
});

test('a garbled or wrong-version link shows a message and the default scenario', async () => {
  for (const [frag, msg] of [['#v1.eJzzSM3JyVcozy_KSQEAGgQEXQ.0', /could not be opened/], ['#v7.abc.0', /format v7/], ['#v1.%%%', /could not be opened/]]) {
    const { page, errors } = await openAt(browser.context, url + frag);
    assert.match(await page.locator('#error').innerText(), msg);
    const s = await snap(page);
    assert.equal(s.nodes.length, 5, 'the default scenario is there');
    assert.deepEqual(errors, []);
    if (frag.startsWith('#v7')) console.log('screenshot', await shot(page, 'bad-link'));
    await page.close();
  }
  // A link pasted into an open page is refused the same way, and the current run stays.
  const { page } = await openAt(browser.context, `${url}#scenario=three-clients`);
  await page.evaluate(() => window.raftlock.runTo(2_000_000));
  const before = await snap(page);
  await page.evaluate(() => { location.hash = '#v1.garbage.0'; });
  await page.waitForSelector('#error');
  assert.equal((await snap(page)).trace_hash, before.trace_hash);
  await page.close();
});

test('export the scenario and the trace as files, and import a scenario file (a bad one is refused)', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=gc-pause`);
  await page.evaluate(() => window.raftlock.runTo(6_000_000));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-scenario')]);
  assert.equal(dl.suggestedFilename(), 'gc-pause.json');
  const doc = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  assert.equal(doc.name, 'gc-pause');
  assert.equal(doc.version, 1);
  const [tr] = await Promise.all([page.waitForEvent('download'), page.click('#export-trace')]);
  const lines = fs.readFileSync(await tr.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.some((l) => l.ev === 'write' && l.accepted === false), 'the trace has the rejected write');
  assert.equal(fs.readFileSync(await tr.path(), 'utf8'), fs.readFileSync(path.join(ROOT, 'tests/golden/gc-pause.jsonl'), 'utf8'));
  // Import: a changed document replaces the run; a broken one is refused and the run stays.
  doc.nodes = 3; doc.name = 'mine';
  const tmp = fs.mkdtempSync('/tmp/raftlock-import-');
  fs.writeFileSync(path.join(tmp, 'mine.json'), JSON.stringify(doc));
  fs.writeFileSync(path.join(tmp, 'broken.json'), '{"version": 1, "nodes": 99');
  await page.setInputFiles('#import', path.join(tmp, 'mine.json'));
  await page.waitForFunction(() => window.raftlock.snapshot().nodes.length === 3);
  const before = await snap(page);
  await page.setInputFiles('#import', path.join(tmp, 'broken.json'));
  await page.waitForSelector('#error');
  assert.match(await page.locator('#error').innerText(), /refused/);
  assert.equal((await snap(page)).nodes.length, 3, 'the imported run stays');
  assert.equal((await snap(page)).trace_hash, before.trace_hash);
  fs.rmSync(tmp, { recursive: true, force: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a design switch turned on in the page breaks its invariant, pauses the run, and travels in the share link', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=late-expire`);
  await page.uncheck('#switch-expire_ignores_token');
  await page.evaluate(() => { window.raftlock.setSpeed(12); window.raftlock.play(true); });
  await page.waitForSelector('#violation', { timeout: 20000 });
  assert.match(await page.locator('#violation').innerText(), /expire deletes only on token match/);
  assert.match(await page.locator('#play').textContent(), /^\s*Play$/, 'the run paused at the violation');
  assert.equal(await page.locator('#inv-expire_deletes_only_on_token_match.broken').count(), 1);
  assert.ok(await page.locator('ol.events li.bad').count() > 0, 'the event is highlighted in the event log');
  console.log('screenshot', await shot(page, 'switch-violation'));
  const doc = await sharedDoc(page);
  assert.equal(doc.switches.expire_ignores_token, true, 'the link carries the switch');
  await page.check('#switch-expire_ignores_token');
  await page.evaluate(() => window.raftlock.runTo(1e12));
  assert.equal(await page.locator('ul.invariants li.broken').count(), 0, 'with the safeguard on, all green');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the scenario list page links every built-in scenario', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenarios`);
  await page.waitForSelector('#scenario-list');
  const cards = await page.locator('#scenario-list li').count();
  assert.equal(cards, Object.keys(golden).length, 'one card per built-in');
  // The eleven "break it" scenarios are listed under their own heading, and grouped in the menu.
  assert.equal(await page.locator('#scenario-list ul.cards').nth(1).locator('li.break').count(), 12);
  assert.equal(await page.locator('#scenario optgroup[label^="Break it"] option').count(), 12);
  // The stories come with the scenarios' files, fetched when the list opens.
  await page.waitForFunction((n) => document.querySelectorAll('#scenario-list li small').length === n, Object.keys(golden).length);
  assert.match(await page.locator('#scenario-list li').nth(2).innerText(), /A asks for k with a 30 s lease/);
  console.log('screenshot', await shot(page, 'scenario-list'));
  await page.click('#scenario-list a[href="#scenario=ghost-lock"]');
  await page.waitForSelector('#scenario-list', { state: 'detached' });
  await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'ghost-lock');
  assert.match(await page.locator('.lesson h2').innerText(), /ghost lock/i);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lesson is fetched as a file when chosen; a file that does not come is a message and the run stays', async () => {
  // No service worker: it would answer from its cache before page.route could.
  const b = await launch({ serviceWorkers: 'block' });
  try {
    const page = await b.context.newPage();
    const asked = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.route('**/scenarios/ghost-lock.json', (route) => route.fulfill({ status: 404, body: 'not found' }));
    await page.route('**/scenarios/late-expire.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"version": 1, "nodes": ' }));
    await page.goto(url);
    await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster'));
    assert.deepEqual(asked.filter((p) => p.includes('/scenarios/')), [], 'the first load fetches no lesson');
    await page.selectOption('#scenario', 'three-clients');
    await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'three-clients');
    assert.deepEqual(asked.filter((p) => p.includes('/scenarios/')), ['/scenarios/three-clients.json']);
    const before = await page.evaluate(() => window.raftlock.snapshot().trace_hash);
    await page.selectOption('#scenario', 'ghost-lock');
    await page.waitForSelector('#error');
    assert.match(await page.textContent('#error'), /The lesson "ghost-lock" could not be loaded: the host answered HTTP 404\./);
    assert.equal(await page.evaluate(() => window.raftlock.loading()), null);
    assert.equal(await page.inputValue('#scenario'), 'three-clients');
    assert.equal(await page.evaluate(() => window.raftlock.snapshot().trace_hash), before, 'the run stays');
    await page.route('**/scenarios/retried-grant.json', (route) => route.abort());
    await page.selectOption('#scenario', 'retried-grant');
    await page.waitForFunction(() => /The lesson "retried-grant" could not be loaded: the host could not be reached\./.test(document.querySelector('#error')?.textContent || ''));
    await page.selectOption('#scenario', 'late-expire');
    await page.waitForFunction(() => /The lesson "late-expire" could not be loaded: /.test(document.querySelector('#error')?.textContent || ''));
    assert.equal(await page.inputValue('#scenario'), 'three-clients');
    // Chosen again when its file is there: it opens.
    await page.unroute('**/scenarios/ghost-lock.json');
    await page.selectOption('#scenario', 'ghost-lock');
    await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'ghost-lock');
    assert.equal(await page.locator('#error').count(), 0);
  } finally {
    await b.close();
  }
});

test('side by side: the same seed and script with one switch flipped advance together on the stage, differences marked', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=gc-pause`);
  await page.click('#compare-storage_ignores_tokens');
  await page.waitForSelector('#half-twin');
  assert.match(await page.locator('#half-run .half-head').textContent(), /fencing on/);
  assert.match(await page.locator('#half-twin .half-head').textContent(), /fencing off/);
  await page.evaluate(() => window.raftlock.runTo(6_000_000));
  await page.waitForSelector('#half-twin .verdict.bad');
  assert.equal(await page.locator('#half-run .verdict.bad').count(), 0, 'the seed design stays green');
  assert.match(await page.locator('#half-twin .verdict').textContent(), /stale token/);
  assert.ok(await page.locator('#half-twin li.diff').count() > 0, 'differences are marked');
  assert.match(await page.locator('#half-run').textContent(), /A wrote k with token 2: rejected/);
  assert.match(await page.locator('#half-twin').textContent(), /A wrote k with token 2: accepted/);
  const twin = await page.evaluate(() => window.raftlock.twin());
  assert.equal(twin.now_us, (await snap(page)).now_us, 'the twin is at the same true time');
  await page.evaluate(() => window.raftlock.seek(1_000_000));
  await page.waitForFunction(() => !document.querySelector('#half-twin .verdict.bad'));
  assert.equal((await page.evaluate(() => window.raftlock.twin())).now_us, 1_000_000);
  console.log('screenshot', await shot(page, 'side-by-side'));
  await page.click('#hide-twin');
  await page.waitForSelector('#half-twin', { state: 'detached' });
  assert.equal(await page.evaluate(() => window.raftlock.twin()), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the clients\' history is checked: linearizable, or the pair that breaks it', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=three-clients`);
  await page.evaluate(() => window.raftlock.runTo(1e12));
  assert.match(await checkHistory(page), /linearizable as a mutex with leases \(46 holds/);
  await page.selectOption('#scenario', 'break-release-without-holder-check');
  await page.waitForFunction(() => window.raftlock.loading() === null && document.querySelector('#scenario').value === 'break-release-without-holder-check');
  await page.evaluate(() => window.raftlock.runTo(1e12)); // stops at the violation (3.006 s): A's release is not answered yet
  assert.match(await checkHistory(page), /linearizable/, 'an unanswered release counts as either outcome');
  await page.evaluate(() => window.raftlock.runTo(1e12)); // on to the end: now A has been told "released"
  assert.match(await checkHistory(page), /not linearizable as a mutex\. The shortest failing prefix ends at [0-9.]+ s: k: A's release, sent at [0-9.]+ s, succeeded though/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('loading a scenario through the handle resets the lesson position and the comparison', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=gc-pause`);
  await page.click('#lesson-next');
  await page.click('#compare-storage_ignores_tokens');
  assert.equal(await page.locator('.cluster-panel.twin').count(), 1);
  const doc = fs.readFileSync(path.join(ROOT, 'scenarios/late-expire.json'), 'utf8');
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), doc), null);
  await page.waitForSelector('.cluster-panel.twin', { state: 'detached' });
  assert.match(await page.locator('#lesson-step').innerText(), /step 1 of/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Raft settings in the page: a snapshot every 8 entries compacts the logs; a bad value is refused and the run stays', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=three-clients`);
  await page.evaluate(() => window.raftlock.runTo(3_000_000));
  const before = await snap(page);
  await page.fill('#raft-snapshot_every', '2');
  await page.locator('#raft-snapshot_every').dispatchEvent('change');
  await page.waitForSelector('#error');
  assert.match(await page.locator('#error').innerText(), /raft\.snapshot_every/);
  assert.equal((await snap(page)).trace_hash, before.trace_hash, 'the run is left as it was');
  await page.fill('#raft-max_batch', '');
  await page.locator('#raft-max_batch').dispatchEvent('change');
  await page.waitForFunction(() => /not a whole number/.test(document.querySelector('#error')?.innerText ?? ''));
  await page.fill('#raft-max_batch', '5000');
  await page.locator('#raft-max_batch').dispatchEvent('change');
  await page.waitForFunction(() => /raft\.max_batch/.test(document.querySelector('#error')?.innerText ?? ''));
  assert.equal((await snap(page)).trace_hash, before.trace_hash, 'still the same run');
  await page.fill('#raft-snapshot_every', '8');
  await page.locator('#raft-snapshot_every').dispatchEvent('change');
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 0);
  await runToEnd(page);
  await page.locator('#log-panel').scrollIntoViewIfNeeded();
  const last = (await snap(page)).nodes[0].last_index;
  await page.locator('#log-panel input[type=range]').fill(String(last - 24)); // scroll the log back a little
  await page.waitForFunction(() => document.querySelectorAll('#log-panel td.compacted').length > 0);
  console.log('screenshot', await shot(page, 'raft-settings'));
  const doc = await sharedDoc(page);
  assert.equal(doc.raft.snapshot_every, 8, 'the link carries the setting');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a Raft setting typed while the run plays keeps what is typed until it is committed', async () => {
  const { page, errors } = await openAt(browser.context, `${url}#scenario=three-clients`);
  const input = page.locator('#raft-snapshot_every');
  await input.scrollIntoViewIfNeeded();
  await page.evaluate(() => { window.raftlock.setSpeed(6); window.raftlock.play(true); });
  const t0 = (await snap(page)).now_us;
  await input.fill('');
  await input.pressSequentially('16', { delay: 120 });
  await page.waitForTimeout(300);
  assert.ok((await snap(page)).now_us > t0, 'frames were drawn while typing');
  assert.equal(await input.inputValue(), '16', 'the frames drawn meanwhile did not put the old value back');
  await input.blur();
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 0);
  assert.equal(await input.inputValue(), '16');
  const doc = await sharedDoc(page);
  assert.equal(doc.raft.snapshot_every, 16, 'the run restarted with the typed value');
  assert.deepEqual(errors, []);
  await page.close();
});
