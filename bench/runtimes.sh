#!/usr/bin/env bash
# npm run bench:runtimes: bench:dns and bench:kube on every Node.js release of the runtime matrix
# (the system Node, then .ci/node-runtime.sh's releases), one after the other on this machine, so
# the rows are comparable (docs/performance.md, "Per Node.js release"). Prints each run's summary.
#   DNS_SECONDS (default 5), DNS_ROUNDS (1), DNS_SERVERS (bind,knot,hw-thread), KUBE_ARGS (default "--changes 300 --runtime dist")
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/node-runtime.sh
[ -f dist/.build.json ] || npm run -s build
out=$(mktemp -d)
for v in system $NODE_LIGHT $NODE_FULL; do
  path=$PATH
  [ "$v" = system ] || path="$(node_bin "$v"):$PATH"
  echo "=== Node $(PATH=$path node --version)"
  PATH=$path node --import tsx bench/dns/bench.ts "${DNS_SECONDS:-5}" "${DNS_ROUNDS:-1}" --servers "${DNS_SERVERS:-bind,knot,hw-thread}" >"$out/dns-$v.log" 2>&1 || { cat "$out/dns-$v.log"; exit 1; }
  sed -n '/^== median/,$p' "$out/dns-$v.log"
  # shellcheck disable=SC2086
  PATH=$path node --import tsx bench/kube/bench.ts ${KUBE_ARGS:---changes 300 --runtime dist} >"$out/kube-$v.log" 2>&1 || { cat "$out/kube-$v.log"; exit 1; }
  tail -n 12 "$out/kube-$v.log"
done
rm -rf "$out"
