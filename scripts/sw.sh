#!/bin/sh
# Trunk post-build hook: write sw.js (the service worker) into the build from www/sw.js, with
# the build's files to precache and a version that is the hash of their contents.
# Release builds only (including `make serve`, which serves one): a development build
# (`trunk serve` without --release) gets a worker that removes itself and the caches.
set -eu
dir="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
src="${TRUNK_SOURCE_DIR:-.}"
if [ "${TRUNK_PROFILE:-debug}" != "release" ]; then
  # A development build caches nothing; a worker a release build left at this address (the
  # same port) is replaced by this one, which clears the caches and unregisters itself.
  cat > "$dir/sw.js" <<'JS'
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil((async () => {
  for (const k of await caches.keys()) if (k.startsWith("raftlock-")) await caches.delete(k);
  await self.registration.unregister();
})()));
JS
  exit 0
fi
cd "$dir"
files=$(find . -type f ! -name sw.js | sed 's|^\./||' | LC_ALL=C sort)
version=$(for f in $files; do sha256sum "$f"; done | sha256sum | cut -c1-16)
list=$(for f in $files; do printf '"./%s", ' "$f"; done | sed 's/, $//')
sed -e "s|__VERSION__|$version|" -e "s|__FILES__|[$list]|" "$src/www/sw.js" > sw.js
