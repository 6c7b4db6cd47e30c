#!/usr/bin/env bash
# Print the release bundle's sizes (raw and gzipped) and what the first frame needs against its
# budget (index.html, the app's JS and wasm, the CSS: not the page's Web Worker and its module, fetched
# when a hunt or a trace check starts, nor the service worker).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
budget_kb=220
[ -d "$dist" ] || { echo "no $dist/: run 'make build' first" >&2; exit 1; }
printf '%-6s %10s %10s  %s\n' kind raw gzip file
total_gz=0
for f in "$dist"/*; do
  case "$f" in
    *.wasm) kind=wasm ;; *.js) kind=js ;; *.css) kind=css ;; *.html) kind=html ;; *) continue ;;
  esac
  raw=$(wc -c < "$f"); gz=$(gzip -9c "$f" | wc -c)
  printf '%-6s %10d %10d  %s\n' "$kind" "$raw" "$gz" "$(basename "$f")"
  case "$(basename "$f")" in worker.js|raftlock-worker*|sw.js) ;; *) total_gz=$((total_gz + gz)) ;; esac
done
printf 'first frame (html+js+wasm+css) gzipped: %d bytes = %d KB; budget %d KB: %s\n' "$total_gz" $((total_gz / 1024)) "$budget_kb" \
  "$([ $((total_gz / 1024)) -le $budget_kb ] && echo within || echo OVER)"
if [ -f "$dist/ru.json" ]; then
  ru_gz=$(gzip -9c "$dist/ru.json" | wc -c)
  printf 'a Russian page also fetches ru.json (the interface'"'"'s Russian), gzipped: %d bytes = %d KB\n' "$ru_gz" $((ru_gz / 1024))
fi
