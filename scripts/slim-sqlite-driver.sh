#!/bin/sh
# Keeps in the better-sqlite3 package only what it loads at run time: its JavaScript (lib/),
# package.json, LICENSE and the compiled driver (build/Release/better_sqlite3.node). The SQLite and
# C++ sources and the compiler's objects (about 25 MB) are build files. The Dockerfile runs it on
# the production dependencies; test/scripts/slim-sqlite-driver.test.ts runs it on a copy.
set -eu
driver="${1:-node_modules/better-sqlite3}"
if [ ! -f "$driver/build/Release/better_sqlite3.node" ]; then
  echo "slim-sqlite-driver: no compiled driver at $driver/build/Release/better_sqlite3.node" >&2
  exit 1
fi
kept="$(mktemp -d)"
mv "$driver/build/Release/better_sqlite3.node" "$kept/"
find "$driver" -mindepth 1 -maxdepth 1 ! -name lib ! -name package.json ! -name LICENSE -exec rm -rf {} +
mkdir -p "$driver/build/Release"
mv "$kept/better_sqlite3.node" "$driver/build/Release/"
rmdir "$kept"
