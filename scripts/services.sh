#!/usr/bin/env bash
# Start the services the tests use on loopback — PostgreSQL and Redis — installing them (and nginx, which
# the deployment test runs itself) from Debian's packages when they are missing. Prints the environment to use them (eval it):
#   eval "$(bash scripts/services.sh)"
# Idempotent: services already started by an earlier run are reused.  MASQUES_ALSO_INSTALL names more
# missing Debian packages to install in the same apt-get run (scripts/test.sh: the browser, Node.js).
set -euo pipefail
RUN=${MASQUES_SERVICES_DIR:-/tmp/masques-services}
PGPORT=${MASQUES_PGPORT:-54329}
REDISPORT=${MASQUES_REDISPORT:-63799}
log() { echo "services: $*" >&2; }

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
missing=()
[ -x "$(pg_bin)/initdb" ] || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/sbin/nginx ] || missing+=(nginx)  # the reverse proxy of the deployment test
read -r -a also <<<"${MASQUES_ALSO_INSTALL:-}"
missing+=("${also[@]}")
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    log "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root"; exit 1
  fi
  log "installing ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi
PGBIN=$(pg_bin)
mkdir -p "$RUN"

# PostgreSQL: a private cluster owned by the postgres user, trust auth, loopback only.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PGDATA="$RUN/pg"
if [ "$(id -u)" -eq 0 ]; then chown postgres "$RUN"; fi
if [ ! -f "$PGDATA/PG_VERSION" ]; then
  log "initialising PostgreSQL in $PGDATA"
  as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 >/dev/null
fi
if ! as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  log "starting PostgreSQL on 127.0.0.1:$PGPORT"
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w \
    -o "-p $PGPORT -k $RUN -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
fi

# Redis: no persistence, loopback only.
if ! redis-cli -h 127.0.0.1 -p "$REDISPORT" ping >/dev/null 2>&1; then
  log "starting Redis on 127.0.0.1:$REDISPORT"
  redis-server --port "$REDISPORT" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --dir "$RUN" --logfile "$RUN/redis.log" >&2
  for _ in $(seq 50); do redis-cli -h 127.0.0.1 -p "$REDISPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

echo "export MASQUES_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:$PGPORT/postgres"
echo "export MASQUES_TEST_REDIS_URL=redis://127.0.0.1:$REDISPORT/0"
echo "export MASQUES_TEST_NGINX=/usr/sbin/nginx"
