#!/usr/bin/env bash
# Times the same audit, end to end through the CLI, on this checkout and on an older revision,
# alternating which goes first each round, so a speed-up is measured against the code it replaced
# on the same machine in the same session (these machines differ by up to 2x, and drift).
#
#   tools/bench-revision.sh REV [--rounds N] [--no-warm-up] [--demo | -- AUDIT ARGS...]
#
# --demo times `npm run demo`'s compare (the bundled demo pair, 300 questions). Otherwise the audit
# is `reach-audit audit` with AUDIT ARGS (default: the random Qwen2.5-0.5B-shaped model written by
# `reach-audit bench --random-qwen-0.5b`, 8 GSM8K sample questions, sample/routes/search:16, 64
# new tokens). Each revision runs with its own defaults (batch sizes), as a user would get them.
# Prints wall and CPU seconds per round and revision, generated tokens (from the run's records), the
# median tokens/s of each and the per-round ratios (CPU seconds move less than wall time when other
# processes share the machine). REV is checked out once into <tmp>/reach-audit-rev-REV
# (npm ci + build); the graph cache is shared, and warmed by an untimed first audit of each
# (--no-warm-up when both revisions' graphs for the model are already cached).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:?usage: tools/bench-revision.sh REV [--rounds N] [--demo | -- AUDIT ARGS...]}
shift
rounds=3
mode=audit
warm=yes
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --demo) mode=demo; shift ;;
    --no-warm-up) warm=no; shift ;;
    --) shift; args=("$@"); break ;;
    *) echo "bench-revision: unknown option $1" >&2; exit 2 ;;
  esac
done

sha=$(git -C "$here" rev-parse --short "$rev")
old="${TMPDIR:-/tmp}/reach-audit-rev-$sha"
if [ ! -f "$old/dist/cli.js" ]; then
  rm -rf "$old"
  git -C "$here" worktree add --detach "$old" "$sha" >/dev/null
  (cd "$old" && npm ci --no-audit --no-fund >/dev/null && node esbuild.js >/dev/null)
fi
(cd "$here" && node esbuild.js >/dev/null)

if [ "$mode" = audit ] && [ ${#args[@]} -eq 0 ]; then
  model="${TMPDIR:-/tmp}/reach-audit-qwen05b-random"
  [ -f "$model/model.safetensors" ] || node "$here/dist/cli.js" bench --random-qwen-0.5b --runs 1 --decode-tokens 1 >/dev/null
  args=(--model "$model" --data "$here/test/fixtures/benchmarks/gsm8k-test-sample.jsonl" --limit 8
        --probe sample:16 --probe routes:16 --probe search:16 --max-new-tokens 64)
fi

# Run folders and logs are kept (the runs' numbers are part of the comparison).
work=$(mktemp -d "${TMPDIR:-/tmp}/reach-audit-bench-revision-XXXXXX")

# One timed run: prints "wall-seconds cpu-seconds tokens".
run_one() {
  local dir=$1 label=$2
  local out="$work/$label"
  rm -rf "$out"
  local timing="$work/$label.time"
  if [ "$mode" = demo ]; then
    (cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$timing" node dist/cli.js compare --base-model media/demo/base --tuned-model media/demo/tuned \
      --data media/demo/data/arith-test.jsonl --probe sample:16 --probe routes:16 --probe search:16 \
      --select majority,confidence,global-route --global-routes 8 --repair --max-new-tokens 64 \
      --out "$out" >"$work/$label.log" 2>&1)
  else
    (cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$timing" node dist/cli.js audit "${args[@]}" --out "$out" >"$work/$label.log" 2>&1)
  fi
  local tokens
  tokens=$(find "$out" -name records.jsonl -exec cat {} + | node -e '
    let n = 0;
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      const costs = [r.realized?.cost, ...Object.values(r.probes ?? {}).map((p) => p.cost), r.globalRoutes?.cost, r.repair?.cost];
      for (const c of costs) n += c?.tokens ?? 0;
    }
    console.log(n);')
  read -r wall user sys <"$timing"
  echo "$wall $(echo "$user + $sys" | bc) $tokens"
}

echo "revision $sha ($old) vs this checkout ($(git -C "$here" rev-parse --short HEAD)$(git -C "$here" diff --quiet || echo ', modified'))"
echo "mode $mode; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); runs and logs in $work"
if [ "$mode" = audit ] && [ "$warm" = yes ]; then
  echo "warm-up (graph caches, untimed)"
  run_one "$old" warm-old >/dev/null
  run_one "$here" warm-new >/dev/null
fi
results="$work/results"
: >"$results"
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for which in $order; do
    dir=$old; [ "$which" = new ] && dir=$here
    read -r seconds cpu tokens < <(run_one "$dir" "$which-$round")
    echo "round $round $which ${seconds} s wall, ${cpu} s CPU, $tokens tokens (load $(cut -d' ' -f1 /proc/loadavg))"
    echo "$round $which $seconds $tokens $cpu" >>"$results"
  done
done
node -e '
  const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" "));
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const of = (w) => rows.filter((r) => r[1] === w);
  for (const w of ["old", "new"]) {
    const xs = of(w);
    console.log(`${w}: median ${median(xs.map((r) => +r[2])).toFixed(1)} s wall, ${median(xs.map((r) => +r[4])).toFixed(1)} s CPU, ${median(xs.map((r) => r[3] / r[2])).toFixed(1)} tokens/s (wall ${xs.map((r) => (+r[2]).toFixed(1)).join(" ")} s; tokens ${[...new Set(xs.map((r) => r[3]))].join(",")})`);
  }
  for (const [what, col] of [["wall", 2], ["CPU", 4]]) {
    const ratios = of("old").map((r) => +r[col] / +of("new").find((s) => s[0] === r[0])[col]);
    console.log(`speed-up, ${what} (old seconds / new seconds): median ${median(ratios).toFixed(2)}x, per round ${ratios.map((x) => x.toFixed(2)).join(" ")}`);
  }
' "$results"
