#!/usr/bin/env bash
# Runs a command with loopback as its only network (a new network namespace: `unshare -n`, lo up),
# so a test run that leans on a service of this machine (its PostgreSQL on 5432, NATS on 4222,
# Redis on 6379) or on anything off the machine fails instead of passing by luck. Needs root,
# unshare and ip; without them the command runs as it is, and says so.
#   scripts/ci/offline.sh npm test
set -euo pipefail
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null && unshare -n true 2>/dev/null; then
  echo "[offline] running in a loopback-only network namespace: $*"
  exec unshare -n -- sh -c 'ip link set lo up && exec "$@"' sh "$@"
fi
echo "[offline] no network namespace here (needs root, unshare and ip): running with the machine's network: $*"
exec "$@"
