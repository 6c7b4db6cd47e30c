// raftlock's service worker: the app works offline after the first visit, and a new version
// installs in the background and takes over on the next load.
//
// This is a template: `scripts/sw.sh` (a Trunk post-build hook) writes dist/sw.js from it with
// the build's files and a version that changes whenever any of them does, so the browser sees a
// new worker exactly when there is a new build. Nothing here talks to anything but this site.
const VERSION = "__VERSION__";
const FILES = __FILES__;
const CACHE = `raftlock-${VERSION}`;

// The stand-in page of an update: it loads the app again when the new worker controls it (or,
// if that was quick, already does), and after 5 s in any case.
const STAND_IN = `<!doctype html><meta charset="utf-8"><title>raftlock</title><script>
const again = () => location.reload();
const sw = navigator.serviceWorker;
sw.addEventListener("controllerchange", again);
sw.getRegistration().then((r) => { if (!r || !r.waiting || (sw.controller && sw.controller === r.active)) again(); });
setTimeout(again, 5000);
</script>`;

self.addEventListener("install", (e) => {
  // `reload`: the files come from the server, never from the HTTP cache of an older build.
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES.map((f) => new Request(f, { cache: "reload" })))));
});

self.addEventListener("activate", (e) => {
  e.waitUntil((async () => {
    for (const k of await caches.keys()) {
      if (k.startsWith("raftlock-") && k !== CACHE) await caches.delete(k);
    }
    // The first visit is served by this worker at once, so it works offline from then on.
    await self.clients.claim();
  })());
});

self.addEventListener("message", (e) => {
  if (e.data === "raftlock-skip-waiting") self.skipWaiting();
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET" || new URL(req.url).origin !== self.location.origin) return;
  if (req.mode === "navigate") {
    // Only the app's own page: other pages under this path (or a file opened directly) go to
    // the network as if there were no worker.
    const scope = new URL(self.registration.scope).pathname;
    const path = new URL(req.url).pathname;
    if (path !== scope && path !== `${scope}index.html`) return;
    e.respondWith((async () => {
      // A new version waits while this page is open; a reload when no other page of the app
      // is open (a tab, or a player embedded in a course page) is "the next load": the new
      // worker takes over, and a stand-in page loads the app again once it has. The new worker
      // can activate only after this answer (a worker with an event in progress keeps its
      // place), so the stand-in waits for it to take control (it claims every page) rather than
      // asking again at once, which could still reach this worker. Once it has, `waiting` is no
      // longer installed, so this happens once.
      const waiting = self.registration.waiting;
      if (waiting && waiting.state === "installed" && (await self.clients.matchAll({ type: "window" })).length <= 1) {
        waiting.postMessage("raftlock-skip-waiting");
        return new Response(STAND_IN, { headers: { "content-type": "text/html" } });
      }
      // The fragment never reaches the server: every page of the app is index.html.
      const cached = await caches.match("./index.html", { cacheName: CACHE });
      return cached || fetch(req);
    })());
    return;
  }
  e.respondWith(caches.match(req, { ignoreSearch: true }).then((r) => r || fetch(req)));
});
