"""Self-check of llama.generate: KV-cached batched decoding (left padding, routes, finished rows
dropped) must give exactly what a full forward pass per prompt gives. Run: /usr/bin/python3 check_generation.py"""
import os, sys, time
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(__file__))
import torch
torch.set_num_threads(2)
import llama
torch.manual_seed(0)
c = llama.Config(300)
m = llama.Llama(c)
m.eval()
print(sum(p.numel() for p in m.parameters()))
# generation with cache equals full forward argmax
prompts = [[1, 5, 6, 7, 8, 9], [1, 10, 11], [1, 12, 13, 14, 15]]
g = llama.generate(m, prompts, max_new=6, eos_id=-1)
for p, o in zip(prompts, g):
    ids = list(p)
    for _ in range(6):
        ids.append(int(m(torch.tensor([ids]))[0, -1].argmax()))
    assert o == ids[len(p):], (o, ids[len(p):])
r = [0, 1, 1, 2, 3, 5, 6, 7]
g = llama.generate(m, prompts, routes=[r, list(range(8)), [0, 2, 3, 4, 4, 5, 6, 7, 7]], max_new=4, eos_id=-1)
# reference for route: run full forward through route
def fwd_route(ids, route):
    t = len(ids)
    x = m.model.embed_tokens(torch.tensor([ids]))
    pos = torch.arange(t).unsqueeze(0)
    bias = torch.full((t, t), float("-inf")).triu(1)
    for b in route:
        x = m.block(b, x, pos, bias)
    return m.lm_head(m.model.norm(x))[0, -1]
for p, o, rr in zip(prompts, g, [r, list(range(8)), [0, 2, 3, 4, 4, 5, 6, 7, 7]]):
    ids = list(p)
    for _ in range(4):
        ids.append(int(fwd_route(ids, rr).argmax()))
    assert o == ids[len(p):], ('route', rr)
import random
rng = random.Random(0)
for _ in range(200):
    r = llama.random_route(8, rng)
    assert r != list(range(8)) and 5 <= len(r) <= 10 and all(r.count(b) <= 2 for b in r), r
# compaction: batch with finishing rows equals each prompt alone
prompts = [[1, 5, 6, 7, 8, 9], [1, 10, 11], [1, 12, 13, 14, 15], [1, 20, 21, 22]]
rts = [[0, 1, 1, 2, 3, 5, 6, 7], list(range(8)), [0, 2, 3, 4, 4, 5, 6, 7, 7], [0, 1, 2, 3, 4, 5, 6]]
for eos in [2, 91, 193]:
    g = llama.generate(m, prompts, routes=rts, max_new=10, eos_id=eos)
    one = [llama.generate(m, [p], routes=[r], max_new=10, eos_id=eos)[0] for p, r in zip(prompts, rts)]
    assert g == one, ('finished rows dropped', eos)
print('generation checks passed')
