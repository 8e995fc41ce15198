"""Build the demo model pair and its benchmark: data -> base (SFT) -> tuned (expert iteration)
-> evaluation -> Hugging Face folders in media/demo/{base,tuned} and media/demo/manifest.json.

Run from the repository root:  /usr/bin/python3 tools/demo-model/build.py [--seed 20261202]
Every stage writes its result under tools/demo-model/out/ and is skipped when that result is
already there, so a crashed or stopped build resumes where it stopped (delete out/ to rebuild).
"""
import argparse
import hashlib
import json
import os
import random
import re
import shutil
import struct
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads stall on a busy 2-core box
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import data  # noqa: E402
import llama  # noqa: E402
import tok  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# where stage results, the shipped demo files and the committed records go (main() may redirect
# them, e.g. to check in scratch folders that two builds give the same bytes)
OUT = os.path.join(HERE, "out")
MEDIA = os.path.join(ROOT, "media", "demo")
RECORDS = HERE
T_START = time.time()


def log(*a):
    print(f"[{time.time() - T_START:7.1f}s]", *a, flush=True)


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- grading (GSM8K strict / choice)

_num = re.compile(r"-?\$?\d[\d,]*(?:\.\d+)?")


def _number(s):
    try:
        return float(s.replace(",", "").replace("$", ""))
    except ValueError:
        return None


def grade(item, text):
    if "answerKey" in item:
        m = re.search(r"Answer:\s*([A-D])\b", text)
        return bool(m) and m.group(1) == item["answerKey"]
    m = re.search(r"####\s*(" + _num.pattern + ")", text)
    if not m:
        return False
    return _number(m.group(1)) == _number(data.gold_of(item))


# ---------------------------------------------------------------- model helpers

def bf16_round(model):
    """The shipped weights are BF16: every evaluation sees exactly those values."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.bfloat16().float())


def clone_model(model):
    m = llama.Llama(model.config)
    m.load_state_dict(model.state_dict())
    return m


def run_generate(model, tk, items, max_new, temperature=0.0, seed=0, routes=None, chunk=256):
    model.eval()
    prompts = [tk.prompt_ids(data.user_message(it)) for it in items]
    outs = llama.generate(model, prompts, routes=routes, max_new=max_new, temperature=temperature, seed=seed,
                          eos_id=tk.eos_id, chunk=chunk)
    return outs, [tk.decode(o) for o in outs]


def accuracy(model, tk, items, max_new=64):
    _, texts = run_generate(model, tk, items, max_new)
    return sum(grade(it, t) for it, t in zip(items, texts)) / len(items)


def examples(tk, items):
    """(ids, first answer index) for chat-format SFT: the loss covers the answer and its eos
    (and, at PROMPT_WEIGHT, the question text, which speeds up learning to copy its numbers)."""
    out = []
    for it in items:
        p = tk.prompt_ids(data.user_message(it))
        a = tk.encode(data.assistant_message(it)) + [tk.eos_id]
        out.append((p + a, len(p)))
    return out


def drill_examples(tk, items, rng, per_seq=3, copies=2):
    """Worked solutions of training questions without their questions, several to a sequence:
    arithmetic practice at a third of the compute per equation (the slow part to learn)."""
    out = []
    for _ in range(copies):
        order = list(range(len(items)))
        rng.shuffle(order)
        for i in range(0, len(order) - per_seq + 1, per_seq):
            text = "\n".join(items[j]["answer"] for j in order[i:i + per_seq])
            out.append(([tk.bos_id] + tk.encode(text) + [tk.eos_id], 1))
    return out


def batches(exs, bs, rng):
    idx = list(range(len(exs)))
    rng.shuffle(idx)
    groups = [sorted(idx[i:i + bs * 8], key=lambda j: len(exs[j][0])) for i in range(0, len(idx), bs * 8)]
    bl = [g[i:i + bs] for g in groups for i in range(0, len(g), bs)]
    rng.shuffle(bl)
    return bl


PROMPT_WEIGHT = 0.3


def collate(exs, ids_list, pad_id, prompt_weight):
    T = max(len(exs[j][0]) for j in ids_list)
    x = torch.full((len(ids_list), T), pad_id, dtype=torch.long)
    y = torch.zeros((len(ids_list), T), dtype=torch.long)
    w = torch.zeros((len(ids_list), T))
    for r, j in enumerate(ids_list):
        ids, start = exs[j]
        x[r, :len(ids)] = torch.tensor(ids)
        y[r, :len(ids) - 1] = torch.tensor(ids[1:])
        w[r, 2:start - 1] = prompt_weight  # question text (after bos and <|user|>, before the answer)
        w[r, start - 1:len(ids) - 1] = 1.0
    return x, y, w


def train_steps(model, opt, exs, steps, bs, lr, warmup, rng, pad_id, step0=0, on_log=None, prompt_weight=0.0,
                lr_scale=lambda step: 1.0):
    model.train()
    it = iter(())
    losses = []
    for s in range(steps):
        try:
            b = next(it)
        except StopIteration:
            it = iter(batches(exs, bs, rng))
            b = next(it)
        x, y, w = collate(exs, b, pad_id, prompt_weight)
        cur = lr * min(1.0, (step0 + s + 1) / warmup) * lr_scale(step0 + s)
        for g in opt.param_groups:
            g["lr"] = cur
        logits = model(x)
        per = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1), reduction="none")
        loss = (per * w.view(-1)).sum() / w.view(-1).sum()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if on_log and (s + 1) % 20 == 0:
            on_log(step0 + s + 1, sum(losses[-20:]) / 20)
    model.eval()


def save(path, obj):
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)


# ---------------------------------------------------------------- export (HF folder, BF16 safetensors)

def write_safetensors(path, state):
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(state):
        t = state[name].detach().contiguous().to(torch.bfloat16)
        raw = t.view(torch.int16).numpy().tobytes()
        header[name] = {"dtype": "BF16", "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def export(model, tk, folder):
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    c = model.config
    tok.write_json(os.path.join(folder, "config.json"), c.hf_json(tk.bos_id, tk.eos_id))
    tok.write_json(os.path.join(folder, "generation_config.json"),
                   {"bos_token_id": tk.bos_id, "eos_token_id": tk.eos_id, "pad_token_id": tk.eos_id,
                    "do_sample": False, "max_new_tokens": 256, "transformers_version": "4.46.0"})
    tok.write_json(os.path.join(folder, "tokenizer.json"), tk.to_json())
    tok.write_json(os.path.join(folder, "tokenizer_config.json"), tk.config_json(c.max_position_embeddings))
    tok.write_json(os.path.join(folder, "special_tokens_map.json"),
                   {"bos_token": tok.BOS, "eos_token": tok.EOS, "unk_token": tok.UNK, "pad_token": tok.EOS,
                    "additional_special_tokens": ["<|system|>", "<|user|>", "<|assistant|>"]})
    write_safetensors(os.path.join(folder, "model.safetensors"), model.state_dict())


def load_exported(folder, tk, cfg):
    """Read back a written checkpoint (proves the file holds what we evaluate)."""
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        body = f.read()
    state = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        t = torch.frombuffer(bytearray(body[a:b]), dtype=torch.int16).view(torch.bfloat16)
        state[name] = t.float().reshape(meta["shape"])
    m = llama.Llama(cfg)
    m.load_state_dict(state)
    m.eval()
    return m


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_manifest():
    files = {}
    for sub in ["base", MID_FOLDER, "tuned", "data"]:
        d = os.path.join(MEDIA, sub)
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            files[f"{sub}/{name}"] = {"sha256": sha256(p), "bytes": os.path.getsize(p)}
    tok.write_json(os.path.join(MEDIA, "manifest.json"),
                   {"description": "sha256 of every shipped demo file (tools/demo-model/build.py writes it; "
                                   "test/unit/demo checks it)", "files": files})


# ---------------------------------------------------------------- stages

def stage_data(args):
    path = os.path.join(OUT, "data.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    d = data.build(args.seed, n_dev=args.dev)
    os.makedirs(os.path.join(MEDIA, "data"), exist_ok=True)
    write_jsonl(os.path.join(MEDIA, "data", "arith-test.jsonl"),
                [{"id": x["id"], "question": x["question"], "answer": x["answer"]} for x in d["arith_test"]])
    write_jsonl(os.path.join(MEDIA, "data", "choice-test.jsonl"), d["choice_test"])
    with open(os.path.join(RECORDS, "train-patterns.txt"), "w") as f:
        f.write("# number patterns (template id: sorted numbers) of every training question; "
                "written by build.py, checked by test/unit/demo\n")
        for p in d["train_patterns"]:
            f.write(p + "\n")
    write_jsonl(os.path.join(OUT, "train.jsonl"), d["arith_train"] + d["choice_train"])
    with open(path, "w") as f:
        json.dump(d, f)
    log("data:", {k: len(v) for k, v in d.items()})
    return d


def make_tokenizer(d):
    texts = [tok.CHAT_TEMPLATE]
    for k in ["arith_test", "choice_test", "arith_dev", "arith_train", "choice_train"]:
        for it in d[k]:
            texts += [data.user_message(it), data.assistant_message(it)]
    return tok.Tokenizer.build(texts)


def check_tokenizer(tk, d):
    folder = os.path.join(OUT, "tokenizer-check")
    os.makedirs(folder, exist_ok=True)
    tok.write_json(os.path.join(folder, "tokenizer.json"), tk.to_json())
    tok.write_json(os.path.join(folder, "tokenizer_config.json"), tk.config_json(512))
    cases = []
    for k in ["arith_test", "choice_test", "arith_dev", "arith_train", "choice_train"]:
        for it in d[k]:
            u, a = data.user_message(it), data.assistant_message(it)
            cases.append({"user": u, "assistant": a, "prompt_ids": tk.prompt_ids(u), "answer_ids": tk.encode(a)})
    with open(os.path.join(folder, "cases.json"), "w") as f:
        json.dump(cases, f)
    import subprocess
    r = subprocess.run(["node", os.path.join(HERE, "check_tokenizer.mjs"), folder, os.path.join(folder, "cases.json")],
                       cwd=ROOT, capture_output=True, text=True)
    log("tokenizer check (node, @huggingface/tokenizers + jinja):", r.stdout.strip(), r.stderr.strip()[:500])
    if r.returncode != 0:
        raise SystemExit("tokenizer check failed")


def stage_sft(args, tk, d, cfg):
    final = os.path.join(OUT, "base.pt")
    if os.path.exists(final):
        return torch.load(final)
    rng = random.Random(args.seed + 1)
    torch.manual_seed(args.seed)
    chat = examples(tk, d["arith_train"] + d["choice_train"])
    with_drill = chat + drill_examples(tk, d["arith_train"], random.Random(args.seed + 3))
    dev = d["arith_dev"]
    ck = os.path.join(OUT, "sft-last.pt")
    model = llama.Llama(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.01)
    step, history, t_used = 0, [], 0.0
    if os.path.exists(ck):
        st = torch.load(ck)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        step, history, t_used = st["step"], st["history"], st["t_used"]
        rng.setstate(st["rng"])
        log("sft: resumed at step", step)
    def lr_scale(at):
        # constant, then a linear cool-down to 10% over the last 45% of the step budget; counted in
        # steps, not seconds, so that a rebuild gives the same weights however busy the machine is
        frac = at / args.sft_steps
        return 1.0 if frac < 0.55 else max(0.1, 1.0 - 0.9 * (frac - 0.55) / 0.45)

    while step < args.sft_steps:
        t0 = time.time()
        exs = with_drill if step >= args.drill_from_step else chat
        n = min(args.eval_every, args.sft_steps - step)
        train_steps(model, opt, exs, n, args.bs, args.lr, 50, rng, tk.eos_id, step0=step,
                    on_log=lambda s, l: log(f"sft step {s} loss {l:.4f} lr x{lr_scale(s):.2f}"),
                    prompt_weight=PROMPT_WEIGHT, lr_scale=lr_scale)
        step += n
        snap = clone_model(model)
        bf16_round(snap)
        acc = accuracy(snap, tk, dev)
        t_used += time.time() - t0
        for h in history:  # keep weights only where they could become the base (in band, or the last)
            if not (args.base_lo <= h["dev_acc"] <= args.base_hi):
                h.pop("state", None)
        history.append({"step": step, "dev_acc": acc, "seconds": round(t_used, 1), "state": snap.state_dict()})
        log(f"sft step {step}: dev greedy acc {acc:.3f} (train time {t_used:.0f}s)")
        save(ck, {"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "history": history,
                  "t_used": t_used, "rng": rng.getstate()})
        if acc >= args.base_hi:
            break
    # base = the evaluated checkpoint whose dev accuracy is nearest the target (mediocre on purpose)
    inband = [h for h in history if args.base_lo <= h["dev_acc"] <= args.base_hi] or history[-1:]
    pick = min(inband, key=lambda h: abs(h["dev_acc"] - args.base_target))
    log(f"sft: base = step {pick['step']} (dev acc {pick['dev_acc']:.3f}); history",
        [(h["step"], round(h["dev_acc"], 3)) for h in history])
    res = {"state": pick["state"], "step": pick["step"], "dev_acc": pick["dev_acc"],
           "history": [{k: v for k, v in h.items() if k != "state"} for h in history], "seconds": t_used}
    save(final, res)
    return res


def stage_rft(args, tk, d, cfg, base):
    """Expert iteration (rejection-sampling fine-tuning): sample training questions at T=1,
    keep the samples the grader marks correct, fine-tune on them; repeat."""
    final = os.path.join(OUT, "tuned.pt")
    rng = random.Random(args.seed + 2)
    model = llama.Llama(cfg)
    best_state, best_acc, rounds, t_used = base["state"], base["dev_acc"], [], 0.0
    if os.path.exists(final):  # finished rounds are kept; more rounds continue from the best so far
        res = torch.load(final)
        if len(res["rounds"]) >= args.rft_rounds:
            return res
        best_state, best_acc, rounds, t_used = res["state"], res["dev_acc"], res["rounds"], res["seconds"]
        rng = random.Random(args.seed + 2 + len(rounds))
        log(f"rft: resumed after {len(rounds)} round(s), dev acc {best_acc:.3f}")
    model.load_state_dict(best_state)
    for r in range(len(rounds), args.rft_rounds):
        t0 = time.time()
        qs = rng.sample(d["arith_train"], args.rft_arith) + rng.sample(d["choice_train"], args.rft_choice)
        prompts = [tk.prompt_ids(data.user_message(q)) for q in qs]
        reps = [p for p in prompts for _ in range(args.rft_k)]
        outs = llama.generate(model, reps, max_new=64, temperature=1.0, seed=args.seed * 7 + r, eos_id=tk.eos_id,
                              chunk=1024)
        kept, seen = [], set()
        for i, o in enumerate(outs):
            q = qs[i // args.rft_k]
            if o and o[-1] == tk.eos_id and grade(q, tk.decode(o)):
                key = (i // args.rft_k, tuple(o))
                if key not in seen:
                    seen.add(key)
                    kept.append((prompts[i // args.rft_k] + o, len(prompts[i // args.rft_k])))
        solved = len({k[0] for k in seen})
        log(f"rft round {r}: {len(outs)} samples, {len(kept)} correct kept, {solved}/{len(qs)} questions solved")
        opt = torch.optim.AdamW(model.parameters(), lr=args.rft_lr, betas=(0.9, 0.95), weight_decay=0.01)
        hist = []
        for s in range(0, args.rft_steps if kept else 0, args.rft_eval_every):
            n = min(args.rft_eval_every, args.rft_steps - s)
            train_steps(model, opt, kept, n, args.bs, args.rft_lr, 10, rng, tk.eos_id, step0=s,
                        on_log=lambda s_, l: log(f"rft round {r} step {s_} loss {l:.4f}"))
            snap = clone_model(model)
            bf16_round(snap)
            acc = accuracy(snap, tk, d["arith_dev"])
            hist.append((s + n, acc))
            log(f"rft round {r} step {s + n}: dev greedy acc {acc:.3f}")
            if acc > best_acc:
                best_acc, best_state = acc, snap.state_dict()
        t_used += time.time() - t0
        rounds.append({"round": r, "questions": len(qs), "samples": len(outs), "kept": len(kept),
                       "solved": solved, "dev": hist})
        model.load_state_dict(best_state)  # next round samples from the best policy so far
        # the policy after each round, for the demo's training trajectory (MID_ROUND is shipped)
        save(os.path.join(OUT, f"rft-round{r + 1}.pt"), {"state": best_state, "dev_acc": best_acc, "round": r + 1})
        res = {"state": best_state, "dev_acc": best_acc, "rounds": rounds, "seconds": t_used}
        save(final, res)
    return res


def passk(n, c, k):
    if n - c < k:
        return 1.0
    p = 1.0
    for i in range(n - c + 1, n + 1):
        p *= 1.0 - k / i
    return 1.0 - p


def evaluate(args, tk, d, name, model, metrics, samples):
    arith, choice = d["arith_test"], d["choice_test"]
    t0 = time.time()
    outs, texts = run_generate(model, tk, arith, max_new=256)
    ok = [grade(it, t) for it, t in zip(arith, texts)]
    write_jsonl(os.path.join(OUT, f"torch-greedy-{name}.jsonl"),
                [{"id": it["id"], "correct": c, "text": t, "tokens": o} for it, t, o, c in zip(arith, texts, outs, ok)])
    _, ctexts = run_generate(model, tk, choice, max_new=256)
    cok = [grade(it, t) for it, t in zip(choice, ctexts)]
    m = {"arith_greedy_acc": sum(ok) / len(ok), "arith_n": len(ok), "choice_greedy_acc": sum(cok) / len(cok),
         "choice_n": len(cok)}
    log(f"eval {name}: greedy arith {m['arith_greedy_acc']:.3f}, choice {m['choice_greedy_acc']:.3f}")
    metrics[name] = m
    m["seconds"] = time.time() - t0
    n = samples
    if n == 0:
        return ok
    # pass@k from 16 samples at T=1.0 (unbiased estimator, Chen et al. 2021)
    reps = [it for it in arith for _ in range(n)]
    _, stexts = run_generate(model, tk, reps, max_new=96, temperature=1.0, seed=args.seed * 13 + len(name), chunk=1200)
    counts = [sum(grade(arith[i], stexts[i * n + j]) for j in range(n)) for i in range(len(arith))]
    m["pass_at"] = {str(k): sum(passk(n, c, k) for c in counts) / len(arith) for k in [1, 2, 4, 8, 16] if k <= n}
    m["greedy_fail_reached_by_sampling"] = sum(1 for c, o in zip(counts, ok) if c > 0 and not o)
    log(f"eval {name}: pass@k {m['pass_at']}")
    m["per_question"] = {it["id"]: {"greedy": o, "sample_correct": c} for it, o, c in zip(arith, ok, counts)}
    metrics[name] = m
    m["seconds"] = time.time() - t0
    return ok


REFERENCE_COUNT = 24

# The intermediate checkpoint shipped for the three-point training trajectory (base -> MID -> tuned):
# the best policy after this expert-iteration round (of --rft-rounds 3). Round 1, not 2: a rerun of
# expert iteration from the shipped base on another machine repeats round 1 exactly (the same
# samples kept, the same dev scores) and first drifts in round 2's sampling (tools/demo-model/README.md).
MID_ROUND = 1
MID_FOLDER = f"round{MID_ROUND}"


def stage_base_from(args, tk, d, folder):
    """Seed out/base.pt from an exported base folder instead of running SFT. The SFT's base is the
    BF16-rounded snapshot, so the exported file holds exactly its values; its dev accuracy is
    measured again the way the SFT measured it (expert iteration compares against it)."""
    final = os.path.join(OUT, "base.pt")
    if os.path.exists(final):
        return torch.load(final)
    cfg = llama.Config(len(tk.vocab), hidden_size=args.hidden, intermediate_size=args.ffn)
    m = load_exported(folder, tk, cfg)
    acc = accuracy(m, tk, d["arith_dev"])
    log(f"base from {folder}: dev greedy acc {acc:.3f}")
    res = {"state": m.state_dict(), "step": None, "dev_acc": acc, "history": [], "seconds": 0.0,
           "from": os.path.relpath(folder, ROOT)}
    save(final, res)
    return res


def write_reference_sample():
    """A committed slice of the torch greedy outputs (out/ is not shipped), for the unit test that
    runs the shipped checkpoints through the engine and compares token by token."""
    ref = {"description": "torch greedy outputs of build.py (BF16 weights, max_new_tokens 256) for the "
                          "first arith-test questions; test/unit/demo compares the engine to them",
           "max_new_tokens": 256}
    for name in ["base", "tuned"]:
        rows = read_jsonl(os.path.join(OUT, f"torch-greedy-{name}.jsonl"))[:REFERENCE_COUNT]
        ref[name] = [{"id": r["id"], "tokens": r["tokens"], "text": r["text"]} for r in rows]
    tok.write_json(os.path.join(RECORDS, "torch-greedy-reference.json"), ref)


def route_probe(args, tk, d, model, ok, metrics):
    """16 random layer routes per base failure, greedy; which failures some route reaches."""
    t0 = time.time()
    L = model.config.num_hidden_layers
    fails = [it for it, o in zip(d["arith_test"], ok) if not o]
    items, routes = [], []
    for it in fails:
        for r in llama.routes_for(L, args.seed, it["id"], args.routes):
            items.append(it)
            routes.append(r)
    _, texts = run_generate(model, tk, items, max_new=96, routes=routes, chunk=800)
    per, needed = {}, []
    for i, it in enumerate(fails):
        hits = [j for j in range(args.routes) if grade(it, texts[i * args.routes + j])]
        per[it["id"]] = {"hits": len(hits), "first": (hits[0] + 1) if hits else None,
                         "route": routes[i * args.routes + hits[0]] if hits else None}
        if hits:
            needed.append(hits[0] + 1)
    needed.sort()
    m = {"failures": len(fails), "reached": len(needed), "routes_per_question": args.routes,
         "routes_needed_median": needed[len(needed) // 2] if needed else None,
         "routes_needed_mean": sum(needed) / len(needed) if needed else None,
         "routes_needed_histogram": {str(k): needed.count(k) for k in sorted(set(needed))},
         "per_question": per, "seconds": time.time() - t0}
    metrics["base_routes"] = m
    log(f"routes: {m['reached']}/{m['failures']} base failures reached by one of {args.routes} random routes; "
        f"median routes needed {m['routes_needed_median']}")


def main():
    global OUT, MEDIA, RECORDS
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--ffn", type=int, default=256)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--sft-steps", type=int, default=1550,
                    help="SFT step budget; the learning-rate cool-down covers its last 45%%")
    ap.add_argument("--drill-from-step", type=int, default=900,
                    help="SFT step from which bare worked solutions are mixed in (the shipped run: 900)")
    ap.add_argument("--base-lo", type=float, default=0.40)
    ap.add_argument("--base-hi", type=float, default=0.62)
    ap.add_argument("--base-target", type=float, default=0.45)
    ap.add_argument("--dev", type=int, default=300, help="dev questions (checkpoint selection only)")
    ap.add_argument("--rft-rounds", type=int, default=3)
    ap.add_argument("--rft-arith", type=int, default=1600)
    ap.add_argument("--rft-choice", type=int, default=300)
    ap.add_argument("--rft-k", type=int, default=4)
    ap.add_argument("--rft-steps", type=int, default=100)
    ap.add_argument("--rft-lr", type=float, default=5e-4)
    ap.add_argument("--rft-eval-every", type=int, default=25)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--tuned-samples", type=int, default=16, help="samples per question for tuned's pass@k (0: skip)")
    ap.add_argument("--routes", type=int, default=16)
    ap.add_argument("--out", default=OUT, help="stage results (resumable); default tools/demo-model/out")
    ap.add_argument("--media", default=MEDIA, help="shipped demo files; default media/demo")
    ap.add_argument("--records", default=HERE,
                    help="metrics.json, train-patterns.txt, torch-greedy-reference.json; default tools/demo-model")
    ap.add_argument("--base-from", default=None,
                    help="take base from this exported folder (e.g. media/demo/base) instead of running SFT: "
                         "rebuilds the expert-iteration checkpoints (round1, tuned) in minutes; needs --until weights")
    ap.add_argument("--until", choices=["weights", "all"], default="all",
                    help="weights: stop once both checkpoints and the manifest are written (skips evaluation)")
    args = ap.parse_args()
    OUT, MEDIA, RECORDS = os.path.abspath(args.out), os.path.abspath(args.media), os.path.abspath(args.records)
    os.makedirs(RECORDS, exist_ok=True)
    torch.set_num_threads(args.threads)
    os.makedirs(OUT, exist_ok=True)
    log("build start", vars(args))
    d = stage_data(args)
    tk = make_tokenizer(d)
    check_tokenizer(tk, d)
    cfg = llama.Config(len(tk.vocab), hidden_size=args.hidden, intermediate_size=args.ffn)
    if args.base_from and args.until != "weights":
        raise SystemExit("--base-from rebuilds weights only (the evaluation records the SFT history): add --until weights")
    base = stage_base_from(args, tk, d, os.path.abspath(args.base_from)) if args.base_from else stage_sft(args, tk, d, cfg)
    bm = llama.Llama(cfg)
    bm.load_state_dict(base["state"])
    export(bm, tk, os.path.join(MEDIA, "base"))
    log("exported base")
    tuned = stage_rft(args, tk, d, cfg, base)
    tm = llama.Llama(cfg)
    tm.load_state_dict(tuned["state"])
    export(tm, tk, os.path.join(MEDIA, "tuned"))
    log("exported tuned")
    mid_path = os.path.join(OUT, f"rft-round{MID_ROUND}.pt")
    if not os.path.exists(mid_path):
        raise SystemExit(f"{mid_path} is missing (out/ was made by a build before intermediate checkpoints were kept): "
                         "delete out/tuned.pt and run again")
    mm = llama.Llama(cfg)
    mm.load_state_dict(torch.load(mid_path)["state"])
    export(mm, tk, os.path.join(MEDIA, MID_FOLDER))
    log(f"exported {MID_FOLDER} (after expert-iteration round {MID_ROUND})")
    write_manifest()
    if args.until == "weights":
        log("done (weights only)")
        return
    metrics = {"seed": args.seed, "args": vars(args), "sft": {k: v for k, v in base.items() if k != "state"},
               "rft": {k: v for k, v in tuned.items() if k != "state"}}
    bm = load_exported(os.path.join(MEDIA, "base"), tk, cfg)
    tm = load_exported(os.path.join(MEDIA, "tuned"), tk, cfg)
    ok = evaluate(args, tk, d, "base", bm, metrics, args.samples)
    evaluate(args, tk, d, "tuned", tm, metrics, args.tuned_samples)
    write_reference_sample()
    route_probe(args, tk, d, bm, ok, metrics)
    metrics["wall_seconds"] = time.time() - T_START
    tok.write_json(os.path.join(OUT, "metrics.json"), metrics)
    summary = {k: metrics[k] for k in ["seed", "wall_seconds"]}
    for name in ["base", "tuned"]:
        summary[name] = {k: v for k, v in metrics[name].items() if k != "per_question"}
    summary["base_routes"] = {k: v for k, v in metrics["base_routes"].items() if k != "per_question"}
    summary["sft"] = metrics["sft"]
    summary["rft"] = metrics["rft"]
    tok.write_json(os.path.join(RECORDS, "metrics.json"), summary)
    log("done", json.dumps(summary)[:2000])


if __name__ == "__main__":
    main()
