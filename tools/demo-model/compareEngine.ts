/**
 * Runs the shipped demo checkpoints through our engine on the demo benchmarks (greedy, the
 * deployed prompt, max_new_tokens 256) and compares with the training script's own greedy
 * outputs (tools/demo-model/out/torch-greedy-<name>.jsonl, written by build.py).
 *
 * Usage (from the repository root, after `npx tsc -p .`):
 *   node out/tools/demo-model/compareEngine.js [base|tuned ...] [--limit N]
 * Prints, per checkpoint: token-exact agreement with torch, and the engine's accuracy graded by
 * the audit's grader (src/audit/answers/grade.ts) on arith-test and choice-test.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadModel } from '../../src/engine/index';
import { loadDataset, userMessage } from '../../src/audit/dataset/dataset';
import { grade } from '../../src/audit/answers/grade';

// Run from the repository root (also when bundled elsewhere with esbuild).
const ROOT = process.cwd();

interface TorchRow { id: string; tokens: number[]; text: string; correct: boolean }

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const limitAt = args.indexOf('--limit');
  const limit = limitAt >= 0 ? Number(args[limitAt + 1]) : Infinity;
  const names = args.filter((a, i) => !a.startsWith('--') && (limitAt < 0 || i !== limitAt + 1));
  const arith = loadDataset(path.join(ROOT, 'media/demo/data/arith-test.jsonl'));
  const choice = loadDataset(path.join(ROOT, 'media/demo/data/choice-test.jsonl'));
  for (const name of names.length > 0 ? names : ['base', 'tuned']) {
    const torchRows = new Map(
      readFileSync(path.join(ROOT, `tools/demo-model/out/torch-greedy-${name}.jsonl`), 'utf8')
        .split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as TorchRow).map((r) => [r.id, r]),
    );
    const model = await loadModel(path.join(ROOT, 'media/demo', name));
    const t0 = Date.now();
    const run = async (qs: typeof arith.questions) =>
      model.generate(qs.map((q) => ({
        promptIds: model.encodeChat([{ role: 'user', content: userMessage(q) }]),
        maxNewTokens: 256,
        decoding: { temperature: 0, topP: 1, seed: 0 },
      })));
    const aq = arith.questions.slice(0, limit);
    const out = await run(aq);
    let agree = 0;
    let correct = 0;
    let torchCorrect = 0;
    const differ: string[] = [];
    aq.forEach((q, i) => {
      const ref = torchRows.get(q.id);
      if (ref && JSON.stringify(ref.tokens) === JSON.stringify(out[i].tokens)) agree++;
      else differ.push(q.id);
      if (grade(out[i].text, q, { truncated: out[i].finishReason === 'length' }).correct) correct++;
      if (ref?.correct) torchCorrect++;
    });
    const cq = choice.questions.slice(0, limit);
    const cout = await run(cq);
    const ccorrect = cq.filter((q, i) => grade(cout[i].text, q).correct).length;
    await model.dispose();
    console.log(JSON.stringify({
      checkpoint: name,
      arith_n: aq.length,
      engine_equals_torch: agree,
      agreement: agree / aq.length,
      engine_arith_acc: correct / aq.length,
      torch_arith_acc: torchCorrect / aq.length,
      engine_choice_acc: ccorrect / cq.length,
      choice_n: cq.length,
      seconds: (Date.now() - t0) / 1000,
      differing_ids: differ.slice(0, 20),
    }));
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
