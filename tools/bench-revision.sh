#!/usr/bin/env bash
# Times the same audit, end to end through the CLI, on this checkout and on an older revision,
# alternating which goes first each round, so a speed-up is measured against the code it replaced
# on the same machine in the same session (these machines differ by up to 2x, and drift).
#
#   tools/bench-revision.sh REV [--rounds N] [--no-warm-up] [--time-limit S] [--demo | -- AUDIT ARGS...]
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
# --time-limit S stops a run after S seconds as Ctrl-C would (the audit keeps its finished
# questions); the run is reported as stopped with what it finished, the other revision is still
# timed, and a ratio involving a stopped run is printed as a bound (>= or <=). A run that fails
# on its own is reported as failed, and its ratios as unknown (?).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:?usage: tools/bench-revision.sh REV [--rounds N] [--demo | -- AUDIT ARGS...]}
shift
rounds=3
mode=audit
warm=yes
limit=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --demo) mode=demo; shift ;;
    --no-warm-up) warm=no; shift ;;
    --time-limit) limit=$2; shift 2 ;;
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

# One timed run: prints "wall-seconds cpu-seconds tokens done|stopped|failed".
run_one() {
  local dir=$1 label=$2
  local out="$work/$label"
  rm -rf "$out"
  local timing="$work/$label.time"
  local stop=()
  # Inside time(1), which ignores SIGINT itself while it waits.
  [ -n "$limit" ] && stop=(timeout --signal=INT --kill-after=120 "$limit")
  local status=0
  if [ "$mode" = demo ]; then
    (cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$timing" "${stop[@]}" node dist/cli.js compare --base-model media/demo/base --tuned-model media/demo/tuned \
      --data media/demo/data/arith-test.jsonl --probe sample:16 --probe routes:16 --probe search:16 \
      --select majority,confidence,global-route --global-routes 8 --repair --max-new-tokens 64 \
      --out "$out" >"$work/$label.log" 2>&1) || status=$?
  else
    (cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$timing" "${stop[@]}" node dist/cli.js audit "${args[@]}" --out "$out" >"$work/$label.log" 2>&1) || status=$?
  fi
  # A stopped or failed run still reports its time and what it finished. timeout(1) exits 124
  # (137 after the grace) when the limit stopped the run; any other failure is the run's own.
  local how=done
  if [ "$status" != 0 ]; then
    how=failed
    [ -n "$limit" ] && { [ "$status" = 124 ] || [ "$status" = 137 ]; } && how=stopped
  fi
  local tokens
  tokens=$( (find "$out" -name records.jsonl -exec cat {} + 2>/dev/null || true) | node -e '
    let n = 0;
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      const costs = [r.realized?.cost, ...Object.values(r.probes ?? {}).map((p) => p.cost), r.globalRoutes?.cost, r.repair?.cost];
      for (const c of costs) n += c?.tokens ?? 0;
    }
    console.log(n);')
  local wall user sys
  if [ -s "$timing" ]; then
    # time(1) puts "Command exited with non-zero status N" before the figures of a failed run.
    read -r wall user sys < <(tail -n 1 "$timing")
  else
    # Killed before time(1) could write (the --kill-after grace ran out): the limit is the wall time.
    wall=$limit user=0 sys=0
  fi
  echo "$wall $(echo "$user + $sys" | bc) $tokens $how"
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
    read -r seconds cpu tokens how < <(run_one "$dir" "$which-$round")
    note=""
    [ "$how" = stopped ] && note=", STOPPED by the time limit (see $work/$which-$round.log)"
    [ "$how" = failed ] && note=", FAILED (see $work/$which-$round.log)"
    echo "round $round $which ${seconds} s wall, ${cpu} s CPU, $tokens tokens$note (load $(cut -d' ' -f1 /proc/loadavg))"
    echo "$round $which $seconds $tokens $cpu $how" >>"$results"
  done
done
node -e '
  const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" "));
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const of = (w) => rows.filter((r) => r[1] === w);
  for (const w of ["old", "new"]) {
    const xs = of(w);
    const stopped = xs.filter((r) => r[5] !== "done").length;
    console.log(`${w}: median ${median(xs.map((r) => +r[2])).toFixed(1)} s wall, ${median(xs.map((r) => +r[4])).toFixed(1)} s CPU, ${median(xs.map((r) => r[3] / r[2])).toFixed(1)} tokens/s (wall ${xs.map((r) => (+r[2]).toFixed(1)).join(" ")} s; tokens ${[...new Set(xs.map((r) => r[3]))].join(",")})${stopped ? `; ${stopped} of ${xs.length} runs stopped or failed before the end` : ""}`);
  }
  // A stopped old run took at least its seconds (the ratio is a lower bound); a stopped new run, an
  // upper one. A failed run bounds nothing.
  const bound = (o, n) => (o[5] === "failed" || n[5] === "failed" || (o[5] === "stopped" && n[5] === "stopped") ? "?" : o[5] === "stopped" ? ">=" : n[5] === "stopped" ? "<=" : "");
  for (const [what, col] of [["wall", 2], ["CPU", 4]]) {
    const pairs = of("old").map((r) => [r, of("new").find((s) => s[0] === r[0])]);
    const ratios = pairs.map(([o, n]) => +o[col] / +n[col]);
    const marks = pairs.map(([o, n]) => bound(o, n));
    const all = marks.every((m) => m === marks[0]) ? marks[0] : "mixed ";
    console.log(`speed-up, ${what} (old seconds / new seconds): median ${all}${median(ratios).toFixed(2)}x, per round ${ratios.map((x, i) => marks[i] + x.toFixed(2)).join(" ")}`);
  }
' "$results"
