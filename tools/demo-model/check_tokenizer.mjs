// Checks the written tokenizer with the libraries the engine uses (@huggingface/tokenizers and
// @huggingface/jinja): for every case, the chat template renders the expected prompt, the prompt
// and the answer encode to the ids the Python recipe trains on, and decoding gives the text back.
// Usage: node check_tokenizer.mjs <model dir> <cases.json>   (cases: [{user, assistant, prompt_ids, answer_ids}])
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { Template } from '@huggingface/jinja';

const [dir, casesPath] = process.argv.slice(2);
const tokenizerJson = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'));
const tokenizer = new Tokenizer(tokenizerJson, config);
const template = new Template(config.chat_template);
const cases = JSON.parse(readFileSync(casesPath, 'utf8'));
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
let bad = 0;
for (const c of cases) {
  const prompt = template.render({
    messages: [{ role: 'user', content: c.user }], add_generation_prompt: true,
    bos_token: config.bos_token, eos_token: config.eos_token,
  });
  const promptIds = tokenizer.encode(prompt, { add_special_tokens: false }).ids;
  const answerIds = tokenizer.encode(c.assistant, { add_special_tokens: false }).ids;
  const problems = [];
  if (!same(promptIds, c.prompt_ids)) problems.push(`prompt ids differ: ${JSON.stringify(promptIds)}`);
  if (!same(answerIds, c.answer_ids)) problems.push(`answer ids differ: ${JSON.stringify(answerIds)}`);
  if (tokenizer.decode(answerIds, { skip_special_tokens: true }) !== c.assistant) problems.push('answer does not round-trip');
  const userIds = tokenizer.encode(c.user, { add_special_tokens: false }).ids;
  if (tokenizer.decode(userIds, { skip_special_tokens: true }) !== c.user) problems.push('question does not round-trip');
  if (userIds.includes(tokenizerJson.model.vocab[tokenizerJson.model.unk_token])) problems.push('unknown token');
  if (tokenizer.encode('x', { add_special_tokens: true }).ids.length !== 1) problems.push('post-processor adds tokens');
  if (problems.length > 0) {
    bad++;
    if (bad <= 5) console.error(JSON.stringify(c.user), problems.join('; '));
  }
}
console.log(JSON.stringify({ cases: cases.length, mismatches: bad }));
process.exit(bad === 0 ? 0 : 1);
