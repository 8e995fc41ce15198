#!/usr/bin/env bash
# Peak memory of an audit with long token budgets on the Qwen2.5-0.5B shape (random weights, which
# never stop early, so every sequence holds its whole budget), with and without a small --kv-memory.
# Three measured runs, one after the other, of the same audit:
#   weights   1 new token, no budget: the weights and runtime alone
#   off       --kv-memory off: --max-batch alone decides (all the sequences at once)
#   budget    --kv-memory $BUDGET
# then prints each run's peak RSS (/usr/bin/time -v) and wall time, whether the off and budget runs
# wrote the same records.jsonl and summary.json, and how far each peak is above the weights run's
# and that run's peak + the budget. With DEFAULT=1 it also runs the audit under the default budget
# (no flag) and compares its records.
# Usage (after npm run build), on a quiet machine:
#   [QUESTIONS=2 SAMPLES=15 NEW_TOKENS=800 BUDGET=96MiB THREADS=… DEFAULT=1 KEEP=1] bash tools/kv-memory-peak.sh
# The defaults run 2 questions × (deployment + 15 samples) = 32 sequences of up to 98 prompt + 800
# new tokens (1024 cache slots, 24 MiB of KV each: 768 MiB all at once, 4 at once under 96 MiB).
# Time: a smoke run (QUESTIONS=1 SAMPLES=3 NEW_TOKENS=40 BUDGET=8MiB DEFAULT=1) took 2m45s on a
# loaded 2-core machine; the defaults do about 40× its decode steps (see the closing note of issue 42).
set -euo pipefail
cd "$(dirname "$0")/.."
QUESTIONS=${QUESTIONS:-2}
SAMPLES=${SAMPLES:-15}
NEW_TOKENS=${NEW_TOKENS:-800}
BUDGET=${BUDGET:-96MiB}
THREADS=${THREADS:-$(node -p 'require("os").availableParallelism()')}
MODEL=${MODEL:-${TMPDIR:-/tmp}/reach-audit-qwen05b-random}
CLI=(node dist/cli.js)
WORK=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "runs kept in $WORK" >&2 || rm -rf "$WORK"' EXIT
[ -f dist/cli.js ] || { echo "dist/cli.js is missing: run npm run build first" >&2; exit 2; }

# Not measured: write the random model once (the bench's own writer), and build its graphs, whose
# building alone raises a process's peak; the measured runs load them from the cache.
if [ ! -f "$MODEL/.complete" ]; then
  echo "writing the random 0.5B-shape model to $MODEL (once, about 1 GB)" >&2
  "${CLI[@]}" bench --random-qwen-0.5b --random-dir "$MODEL" --runs 1 --prompt-tokens 4 --decode-tokens 2 --batch 1 --threads "$THREADS" > /dev/null
fi
COMMON=(--model "$MODEL" --data media/demo/data/arith-test.jsonl --select majority,confidence --threads "$THREADS")
FLAGS=("${COMMON[@]}" --limit "$QUESTIONS" --probe "sample:$SAMPLES")
"${CLI[@]}" audit "${COMMON[@]}" --limit 1 --probe sample:1 --max-new-tokens 2 --out "$WORK/warm-up" > /dev/null 2> "$WORK/warm-up.err" || { cat "$WORK/warm-up.err" >&2; exit 1; }

measure() { # name, extra audit flags…
  local name=$1; shift
  /usr/bin/time -v "${CLI[@]}" audit "${FLAGS[@]}" --out "$WORK/$name" "$@" > /dev/null 2> "$WORK/$name.err" || { tail -20 "$WORK/$name.err" >&2; exit 1; }
  local kb wall
  kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/$name.err")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/$name.err")
  echo "$name $kb $wall"
}

{
  measure weights --max-new-tokens 1 --kv-memory off
  measure off --max-new-tokens "$NEW_TOKENS" --kv-memory off
  measure budget --max-new-tokens "$NEW_TOKENS" --kv-memory "$BUDGET"
  [ -z "${DEFAULT:-}" ] || measure default --max-new-tokens "$NEW_TOKENS"
} > "$WORK/peaks"

grep -h 'KV memory' "$WORK/budget.err" "$WORK"/default.err 2>/dev/null || true
same() { # run: whether its records and summary are byte for byte the off run's
  for f in records.jsonl summary.json; do cmp -s "$WORK/off/$f" "$WORK/$1/$f" || { echo "no ($f differs)"; return; }; done
  echo yes
}
echo "model $MODEL: $QUESTIONS questions × (deployment + sample:$SAMPLES), $NEW_TOKENS new tokens, $THREADS threads"
node -e '
  const fs = require("fs");
  const [work] = process.argv.slice(1);
  const rows = fs.readFileSync(`${work}/peaks`, "utf8").trim().split("\n").map((l) => l.split(" "));
  const mib = (kb) => (kb / 1024).toFixed(0);
  const base = Number(rows[0][1]);
  for (const [name, kb, wall] of rows) {
    const over = Number(kb) - base;
    const plan = JSON.parse(fs.readFileSync(`${work}/${name}/manifest.json`, "utf8")).engine.kvMemory;
    const budget = plan ? `; budget ${mib(plan.budgetBytes / 1024)} MiB (${plan.atOnce} at once), peak - (weights run + budget): ${mib(over - plan.budgetBytes / 1024)} MiB` : "";
    console.log(`${name.padEnd(8)} peak ${mib(kb).padStart(6)} MiB  wall ${wall.padStart(8)}  above the weights run: ${mib(over)} MiB${budget}`);
  }
' "$WORK"
echo "records and summary identical, budget vs off: $(same budget)"
[ -z "${DEFAULT:-}" ] || echo "records and summary identical, default vs off: $(same default)"
