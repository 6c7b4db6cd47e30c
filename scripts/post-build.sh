#!/bin/sh
# Trunk post-build hook (one script: Trunk runs a stage's hooks side by side, and the service
# worker's list must see every file): the interface's Russian as `ru.json`, then sw.js.
set -eu
dir="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
src="${TRUNK_SOURCE_DIR:-.}"
node "$src/scripts/ru-texts.mjs" "$dir" "$src"
sh "$src/scripts/sw.sh"
