#!/usr/bin/env bash
# Stop the cluster started by pg-start.sh and remove its data.
set -u
PGDIR=${PGDIR:-$(cat /tmp/afk-pg-dir 2>/dev/null)}
[ -n "$PGDIR" ] || exit 0
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$BIN/pg_ctl" -D "$PGDIR" -m fast stop >/dev/null 2>&1; else "$BIN/pg_ctl" -D "$PGDIR" -m fast stop >/dev/null 2>&1; fi
rm -rf "$PGDIR"
