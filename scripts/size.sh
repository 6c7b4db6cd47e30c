#!/usr/bin/env bash
# Print the release bundle's sizes (raw and gzipped) and check the first-load budget.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
budget_kb=150
[ -d "$dist" ] || { echo "no $dist/: run 'make build' first" >&2; exit 1; }
printf '%-6s %10s %10s  %s\n' kind raw gzip file
total_gz=0
for f in "$dist"/*; do
  case "$f" in
    *.wasm) kind=wasm ;; *.js) kind=js ;; *.css) kind=css ;; *.html) kind=html ;; *) continue ;;
  esac
  raw=$(wc -c < "$f"); gz=$(gzip -9c "$f" | wc -c)
  printf '%-6s %10d %10d  %s\n' "$kind" "$raw" "$gz" "$(basename "$f")"
  [ "$kind" = html ] || total_gz=$((total_gz + gz))
done
printf 'first load (wasm+js+css) gzipped: %d bytes = %d KB; budget %d KB: %s\n' "$total_gz" $((total_gz / 1024)) "$budget_kb" \
  "$([ $((total_gz / 1024)) -le $budget_kb ] && echo within || echo OVER)"
