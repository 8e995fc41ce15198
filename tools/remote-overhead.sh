#!/usr/bin/env bash
# Measures what serving the engine over HTTP costs an audit: the demo audit in-process vs through
# `reach-audit serve --http` on $SERVERS local servers with $SERVER_THREADS threads each (default
# 2 × 1, so both sides use 2 cores), in alternating rounds. Prints wall time and generations per
# second of each run and the overhead per generation.
# Usage: [SERVERS=2 SERVER_THREADS=1 CONCURRENCY=16] bash tools/remote-overhead.sh [ROUNDS] [LIMIT]
# (after npm run build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
LIMIT=${2:-24}
CLI="node dist/cli.js"
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
FLAGS=(--model media/demo/base --data media/demo/data/arith-test.jsonl --limit "$LIMIT" --probe sample:8 --probe routes:8 --probe search:8 --repair --max-new-tokens 64)
urls=()
SERVERS=${SERVERS:-2}
for i in $(seq 1 "$SERVERS"); do
  $CLI serve --http 127.0.0.1:0 --model media/demo/base --threads "${SERVER_THREADS:-1}" > "$WORK/server$i.out" 2> "$WORK/server$i.err" &
done
for i in $(seq 1 "$SERVERS"); do
  for _ in $(seq 1 120); do grep -q listening "$WORK/server$i.out" 2>/dev/null && break; sleep 0.5; done
  urls+=(--base-url "$(sed -E 's/.*"listening":"([^"]+)".*/\1/' "$WORK/server$i.out")")
done
for r in $(seq 1 "$ROUNDS"); do
  for mode in local remote; do
    out="$WORK/$mode-$r"
    extra=(--threads 2); [ "$mode" = remote ] && extra=(--backend openai "${urls[@]}" --concurrency "${CONCURRENCY:-16}")
    start=$(date +%s%N)
    $CLI audit "${FLAGS[@]}" "${extra[@]}" --out "$out" > /dev/null 2> "$out.err"
    end=$(date +%s%N)
    # Generations: the sum of the "(N gen)" counts of the stage timings line.
    gens=$(grep -o '([0-9]* gen)' "$out.err" | grep -o '[0-9]*' | awk '{ s += $1 } END { print s }')
    echo "$r $mode $(( (end - start) / 1000000 )) $gens"
  done
done | node -e '
  const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => l.split(" "));
  const by = { local: [], remote: [] };
  let gens = 0;
  for (const [round, mode, ms, g] of rows) {
    const s = Number(ms) / 1000;
    gens = Number(g);
    by[mode].push(s);
    console.log(`round ${round} ${mode.padEnd(6)} ${s.toFixed(1).padStart(6)} s  ${g} generations  ${(g / s).toFixed(2)} gen/s`);
  }
  const median = (a) => { const b = [...a].sort((x, y) => x - y); const n = b.length; return n % 2 ? b[(n - 1) / 2] : (b[n / 2 - 1] + b[n / 2]) / 2; };
  const l = median(by.local), r = median(by.remote);
  console.log(`median: local ${l.toFixed(1)} s, remote ${r.toFixed(1)} s (${gens} generations): overhead ${(1000 * (r - l) / gens).toFixed(1)} ms per generation (${(r / l).toFixed(2)}x)`);
'
