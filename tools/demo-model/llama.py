"""A Llama decoder in plain torch with Hugging Face semantics and parameter names.

Matches transformers' LlamaForCausalLM: RMSNorm x * rsqrt(mean(x^2) + eps) * w, rotary
embeddings applied with rotate_half to the first/second halves of each head, grouped-query
attention (query head h reads key/value head h // (heads / kv_heads)), causal softmax attention
scaled by 1/sqrt(head_dim), SwiGLU MLP down(silu(gate(x)) * up(x)), no biases. The state dict
keys are the HF tensor names, so export is a rename-free write.

Generation runs a batch of sequences, each with its own prompt (left-padded, masked), its own
route (block indices in order; every route position is its own block application with its own
KV cache, docs/design/probes.md) and decoding (greedy, or sampling at a temperature).
"""
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    def __init__(self, vocab_size, hidden_size=128, intermediate_size=384, num_hidden_layers=8,
                 num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, rope_theta=10000.0,
                 max_position_embeddings=512):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = hidden_size // num_attention_heads
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        self.max_position_embeddings = max_position_embeddings

    def hf_json(self, bos_id, eos_id):
        return {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "hidden_act": "silu",
            "max_position_embeddings": self.max_position_embeddings,
            "rms_norm_eps": self.rms_norm_eps,
            "rope_theta": self.rope_theta,
            "rope_scaling": None,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "mlp_bias": False,
            "pretraining_tp": 1,
            "tie_word_embeddings": False,
            "bos_token_id": bos_id,
            "eos_token_id": eos_id,
            "pad_token_id": eos_id,
            "initializer_range": 0.02,
            "use_cache": True,
            "torch_dtype": "bfloat16",
            "transformers_version": "4.46.0",
        }


class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.h, self.kvh, self.hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        self.q_proj = nn.Linear(c.hidden_size, self.h * self.hd, bias=False)
        self.k_proj = nn.Linear(c.hidden_size, self.kvh * self.hd, bias=False)
        self.v_proj = nn.Linear(c.hidden_size, self.kvh * self.hd, bias=False)
        self.o_proj = nn.Linear(self.h * self.hd, c.hidden_size, bias=False)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Inner(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)
        self.layers = nn.ModuleList([Block(c) for _ in range(c.num_hidden_layers)])
        self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps)


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = Inner(c)
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        inv_freq = 1.0 / (c.rope_theta ** (torch.arange(0, c.head_dim, 2, dtype=torch.int64).float() / c.head_dim))
        freqs = torch.outer(torch.arange(c.max_position_embeddings).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
        for layer in self.model.layers:  # smaller residual writes keep the deep stack stable early on
            nn.init.normal_(layer.self_attn.o_proj.weight, std=0.02 / math.sqrt(2 * c.num_hidden_layers))
            nn.init.normal_(layer.mlp.down_proj.weight, std=0.02 / math.sqrt(2 * c.num_hidden_layers))

    # one block application; k_cache/v_cache: [B_all, kvh, S, hd] of this route position, rows `rows`
    def block(self, layer, x, pos, bias, k_cache=None, v_cache=None, rows=None, t0=0):
        blk = self.model.layers[layer]
        a = blk.self_attn
        b, t, _ = x.shape
        hx = blk.input_layernorm(x)
        q = a.q_proj(hx).view(b, t, a.h, a.hd).transpose(1, 2)
        k = a.k_proj(hx).view(b, t, a.kvh, a.hd).transpose(1, 2)
        v = a.v_proj(hx).view(b, t, a.kvh, a.hd).transpose(1, 2)
        cos, sin = self.cos[pos].unsqueeze(1), self.sin[pos].unsqueeze(1)  # [b,1,t,hd]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if k_cache is not None:
            if rows is None:
                k_cache[:, :, t0:t0 + t] = k
                v_cache[:, :, t0:t0 + t] = v
                k, v = k_cache[:, :, :t0 + t], v_cache[:, :, :t0 + t]
            else:
                k_cache[rows, :, t0:t0 + t] = k
                v_cache[rows, :, t0:t0 + t] = v
                k, v = k_cache[rows, :, :t0 + t], v_cache[rows, :, :t0 + t]
        # grouped-query attention: query head h reads kv head h // rep (HF repeat_kv); the rep
        # query heads of a group are stacked against their shared keys instead of copying the keys
        rep = a.h // a.kvh
        S = k.shape[2]
        qg = q.reshape(b, a.kvh, rep * t, a.hd)
        if bias.dim() == 4 and rep > 1:
            bias = bias.unsqueeze(2).expand(bias.shape[0], 1, rep, t, S).reshape(bias.shape[0], 1, rep * t, S)
        elif rep > 1:
            bias = bias.repeat(rep, 1)
        scores = torch.matmul(qg, k.transpose(-1, -2)) / math.sqrt(a.hd) + bias
        attn = torch.matmul(scores.softmax(-1), v).reshape(b, a.h, t, a.hd).transpose(1, 2).reshape(b, t, a.h * a.hd)
        h = x + a.o_proj(attn)
        return h + blk.mlp(blk.post_attention_layernorm(h))

    def forward(self, ids):
        """Training forward on right-padded ids [B,T] (causal, so padding never reaches real tokens)."""
        b, t = ids.shape
        x = self.model.embed_tokens(ids)
        pos = torch.arange(t).unsqueeze(0).expand(b, t)
        bias = torch.full((t, t), float("-inf")).triu(1)
        for i in range(self.config.num_hidden_layers):
            x = self.block(i, x, pos, bias)
        return self.lm_head(self.model.norm(x))


@torch.no_grad()
def generate(model, prompts, routes=None, max_new=64, temperature=0.0, seed=0, eos_id=2, chunk=512):
    """Generate for each prompt (list of ids) with its route (list of block indices, default
    identity). Returns a list of generated id lists (eos included when produced)."""
    out = []
    for s in range(0, len(prompts), chunk):
        rts = None if routes is None else routes[s:s + chunk]
        out.extend(_generate_chunk(model, prompts[s:s + chunk], rts, max_new, temperature, seed + s, eos_id))
    return out


def _plan(rt):
    """Per route position: the blocks it applies and to which rows (None: every row, one block)."""
    plan = []
    for j in range(rt.shape[1]):
        col = rt[:, j]
        uniq = sorted(set(col.tolist()))
        if len(uniq) == 1 and uniq[0] >= 0:
            plan.append([(uniq[0], None)])
        else:
            plan.append([(b, (col == b).nonzero().squeeze(1)) for b in uniq if b >= 0])
    return plan


def _generate_chunk(model, prompts, routes, max_new, temperature, seed, eos_id):
    c = model.config
    L = c.num_hidden_layers
    n = len(prompts)
    if routes is None:
        routes = [list(range(L))] * n
    R = max(len(r) for r in routes)
    rt = torch.full((n, R), -1, dtype=torch.long)
    for i, r in enumerate(routes):
        rt[i, :len(r)] = torch.tensor(r)
    plan = _plan(rt)
    plen = [len(p) for p in prompts]
    P = max(plen)
    S = P + max_new
    pad = torch.tensor([P - l for l in plen])
    ids = torch.zeros((n, P), dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, P - len(p):] = torch.tensor(p)
    kc = [torch.zeros((n, c.num_key_value_heads, S, c.head_dim)) for _ in range(R)]
    vc = [torch.zeros((n, c.num_key_value_heads, S, c.head_dim)) for _ in range(R)]
    keypad = torch.arange(S).unsqueeze(0) < pad.unsqueeze(1)  # [n,S] True where padding
    gen = torch.Generator().manual_seed(seed)
    out = torch.full((n, max_new), -1, dtype=torch.long)
    alive = torch.arange(n)  # original row of each row still decoding

    def run(x, t0, t):
        pos = (torch.arange(t0, t0 + t).unsqueeze(0) - pad.unsqueeze(1)).clamp(min=0)
        causal = torch.arange(t0 + t).unsqueeze(0) > torch.arange(t0, t0 + t).unsqueeze(1)  # [t, t0+t]
        # padding keys are hidden from every query but their own position (a padding query that
        # saw no key at all would turn into NaN, and NaN * 0 still poisons the value product)
        own = torch.arange(t0 + t).unsqueeze(0) == torch.arange(t0, t0 + t).unsqueeze(1)
        masked = causal.unsqueeze(0) | (keypad[:, None, :t0 + t] & ~own.unsqueeze(0))
        bias = torch.zeros(masked.shape).masked_fill(masked, float("-inf")).unsqueeze(1)  # [n,1,t,t0+t]
        for j in range(R):
            for blk, rows in plan[j]:
                if rows is None:
                    x = model.block(blk, x, pos, bias, kc[j], vc[j], None, t0)
                else:
                    x[rows] = model.block(blk, x[rows], pos[rows], bias[rows], kc[j], vc[j], rows, t0)
        return model.lm_head(model.model.norm(x[:, -1]))

    logits = run(model.model.embed_tokens(ids), 0, P)
    for step in range(max_new):
        if temperature == 0.0:
            nxt = logits.argmax(-1)
        else:
            probs = torch.softmax(logits / temperature, -1)
            nxt = torch.multinomial(probs, 1, generator=gen).squeeze(1)
        out[alive, step] = nxt
        fin = nxt == eos_id
        if bool(fin.all()) or step == max_new - 1:
            break
        if bool(fin.any()):  # drop finished rows so the rest decode in a smaller batch
            keep = (~fin).nonzero().squeeze(1)
            alive, nxt, pad, keypad, rt = alive[keep], nxt[keep], pad[keep], keypad[keep], rt[keep]
            kc = [k[keep] for k in kc]
            vc = [v[keep] for v in vc]
            plan = _plan(rt)
        logits = run(model.model.embed_tokens(nxt.unsqueeze(1)), P + step, 1)
    result = []
    for i in range(n):
        row = out[i].tolist()
        result.append(row[:row.index(-1)] if -1 in row else row)
    return result


# ---------------------------------------------------------------- random layer routes

def random_route(L, rng, max_edits=4):
    """A random valid route (docs/design/probes.md): 1..max_edits edits, each skipping or repeating
    one block, at most one of them a contiguous skip/repeat of 2-4 blocks; each block at most
    twice; length within [round(2L/3), round(5L/4)]; never the identity."""
    lo, hi = round(2 * L / 3), round(5 * L / 4)
    ident = list(range(L))
    while True:
        route = list(ident)
        used_span = False
        for _ in range(rng.randint(1, max_edits)):
            for _attempt in range(20):
                span = 1
                if not used_span and rng.random() < 0.3:
                    span = rng.randint(2, 4)
                cand = list(route)
                if len(cand) < span:
                    continue
                i = rng.randrange(0, len(cand) - span + 1)
                if rng.random() < 0.5:
                    cand = cand[:i] + cand[i + span:]
                else:
                    cand = cand[:i + span] + cand[i:i + span] + cand[i + span:]
                if not (lo <= len(cand) <= hi) or any(cand.count(b) > 2 for b in cand):
                    continue
                route = cand
                used_span = used_span or span > 1
                break
        if route != ident:
            return route


def routes_for(L, seed, qid, n):
    rng = random.Random(f"{seed}|{qid}|routes")
    seen, out = set(), []
    while len(out) < n:
        r = random_route(L, rng)
        if tuple(r) not in seen:
            seen.add(tuple(r))
            out.append(r)
    return out
