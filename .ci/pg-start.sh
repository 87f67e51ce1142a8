#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster on 127.0.0.1:$PGPORT with its data in $PGDIR, as the postgres user.
# Prints the URL of a fresh database. Used by .ci/run and by developers for the PostgreSQL tests.
set -euo pipefail
PGPORT=${PGPORT:-55432}
# fsync off for the test suite (its databases are throwaway); PG_FSYNC=on for benchmarks of durable commits.
PG_FSYNC=${PG_FSYNC:-off}
PGDIR=${PGDIR:-$(mktemp -d /tmp/afk-pg.XXXXXX)}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
chown postgres "$PGDIR" 2>/dev/null || true
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_pg "$BIN/initdb" -D "$PGDIR" -U postgres --auth=trust >/dev/null
if ! as_pg "$BIN/pg_ctl" -D "$PGDIR" -l "$PGDIR/log" -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGDIR -c max_connections=200 -c fsync=$PG_FSYNC" -w start >/dev/null; then
  echo "PostgreSQL did not start on port $PGPORT; its log:" >&2
  tail -n 20 "$PGDIR/log" >&2 || true
  exit 1
fi
echo "$PGDIR" > "${PGDIR_FILE:-/tmp/afk-pg-dir}"
echo "postgresql://postgres@127.0.0.1:$PGPORT/postgres"
