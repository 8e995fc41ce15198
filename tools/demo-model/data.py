"""Synthetic benchmark and training data for the demo model pair.

Two question families, each written in a real benchmark format:
  * arithmetic word problems in GSM8K format ({id, question, answer}; the answer is a short
    worked solution, one equation per line, ending in "#### N"), two or three steps;
  * multiple-choice questions in ARC format ({id, question: {stem, choices}, answerKey}).

Every question comes from a template (A00..A11, C00..C07) with several phrasings. The
"number pattern" of a question is its template id plus the sorted multiset of numbers in its
text; the training data never contains a test question's pattern (nor a dev question's), which
test/unit/demo/dataDisjoint.test.ts checks against train-patterns.txt.
"""
import random
import re

NAMES = [("Ava", "she"), ("Ben", "he"), ("Cara", "she"), ("Dan", "he"), ("Eli", "he"),
         ("Fay", "she"), ("Gus", "he"), ("Hana", "she"), ("Ivan", "he"), ("Jade", "she"),
         ("Kai", "he"), ("Lena", "she"), ("Max", "he"), ("Nora", "she"), ("Omar", "he"),
         ("Pia", "she"), ("Raj", "he"), ("Sara", "she"), ("Tom", "he"), ("Uma", "she"),
         ("Vic", "he"), ("Wes", "he"), ("Yara", "she"), ("Zoe", "she")]
ITEMS = ["apples", "pencils", "stickers", "marbles", "books", "cookies", "shells", "stamps",
         "cards", "beads", "eggs", "coins", "buttons", "toys", "cups", "plums", "rocks", "pens"]
CONTAINERS = ["boxes", "bags", "jars", "crates", "baskets", "packs"]


def cap(s):
    return s[0].upper() + s[1:]


def pattern_of(template_id, text):
    """Template id + sorted numbers of the text: two questions with the same pattern are the
    same problem up to wording, so the pattern is what training must never share with a test."""
    nums = sorted(int(n) for n in re.findall(r"\d+", text))
    return template_id + ":" + ",".join(str(n) for n in nums)


# ---------------------------------------------------------------- arithmetic (GSM8K format)

def _people(rng):
    (n1, p1), (n2, _) = rng.sample(NAMES, 2)
    return n1, p1, n2


def a00(rng):  # a + b - c
    n, p, n2 = _people(rng)
    it = rng.choice(ITEMS)
    a, b = rng.randint(5, 39), rng.randint(2, 19)
    c = rng.randint(2, a + b - 1)
    q = rng.choice([
        f"{n} has {a} {it}, buys {b} more and gives {c} to {n2}. How many {it} does {n} have?",
        f"{n} had {a} {it}. {cap(p)} got {b} more, then gave away {c}. How many {it} are left?",
    ])
    return q, [(a, "+", b), ("_", "-", c)]


def a01(rng):  # a * b + c
    n, _, _ = _people(rng)
    it, box = rng.choice(ITEMS), rng.choice(CONTAINERS)
    a, b, c = rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 29)
    q = rng.choice([
        f"{n} has {a} {box} of {b} {it} and {c} loose {it}. How many {it} in all?",
        f"There are {a} {box} with {b} {it} each and {c} more {it}. How many {it} in total?",
    ])
    return q, [(a, "*", b), ("_", "+", c)]


def a02(rng):  # a * b - c
    n, p, _ = _people(rng)
    it = rng.choice(ITEMS)
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    c = rng.randint(1, a * b - 1)
    q = rng.choice([
        f"{n} buys {a} packs of {b} {it} and uses {c} of them. How many {it} are left?",
        f"A pack has {b} {it}. {n} buys {a} packs and loses {c} {it}. How many {it} are left?",
    ])
    return q, [(a, "*", b), ("_", "-", c)]


def a03(rng):  # a + b + c - d
    n, p, _ = _people(rng)
    it = rng.choice(ITEMS)
    a, b, c = rng.randint(5, 29), rng.randint(2, 19), rng.randint(2, 19)
    d = rng.randint(2, a + b + c - 1)
    q = rng.choice([
        f"{n} finds {a} {it}, then {b} more, then {c} more, and loses {d}. How many {it} are left?",
        f"On Monday {n} picks {a} {it}, on Tuesday {b} and on Friday {c}. {cap(p)} eats {d}. How many {it} are left?",
    ])
    return q, [(a, "+", b), ("_", "+", c), ("_", "-", d)]


def a04(rng):  # a * b * c
    it = rng.choice(ITEMS)
    a, b, c = rng.randint(2, 6), rng.randint(2, 6), rng.randint(2, 9)
    n, _, _ = _people(rng)
    q = rng.choice([
        f"{n} has {a} crates. Each crate has {b} boxes of {c} {it}. How many {it} are there?",
        f"A shop has {a} shelves with {b} bins each and {c} {it} in each bin. How many {it} are there?",
    ])
    return q, [(a, "*", b), ("_", "*", c)]


def a05(rng):  # a - b + c (money)
    n, p, _ = _people(rng)
    it = rng.choice(ITEMS)
    a = rng.randint(10, 49)
    b = rng.randint(2, a - 1)
    c = rng.randint(2, 29)
    q = rng.choice([
        f"{n} had {a} dollars, spent {b} on {it} and earned {c}. How many dollars does {n} have?",
        f"{n} has {a} dollars. {cap(p)} pays {b} dollars for {it} and gets {c} dollars. How many dollars now?",
    ])
    return q, [(a, "-", b), ("_", "+", c)]


def a06(rng):  # a * b + c - d
    n, p, n2 = _people(rng)
    it = rng.choice(ITEMS)
    a, b, c = rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 19)
    d = rng.randint(1, a * b + c - 1)
    q = rng.choice([
        f"{n} buys {a} bags of {b} {it}, gets {c} more from {n2} and gives away {d}. How many {it} now?",
        f"{n} has {a} bags with {b} {it} each. {n2} adds {c} {it} and {d} are lost. How many {it} now?",
    ])
    return q, [(a, "*", b), ("_", "+", c), ("_", "-", d)]


def a07(rng):  # (a + b) * c
    n, _, n2 = _people(rng)
    it = rng.choice(ITEMS)
    a, b, c = rng.randint(2, 15), rng.randint(2, 15), rng.randint(2, 4)
    q = rng.choice([
        f"{n} has {a} red {it} and {b} blue {it}. {n2} has {c} times as many. How many {it} does {n2} have?",
        f"A box holds {a} small and {b} large {it}. A crate holds {c} times as many. How many {it} are in the crate?",
    ])
    return q, [(a, "+", b), ("_", "*", c)]


def a08(rng):  # a - b - c
    n, _, n2 = _people(rng)
    it = rng.choice(ITEMS)
    a = rng.randint(20, 59)
    b = rng.randint(2, a // 2)
    c = rng.randint(1, a - b - 1)
    q = rng.choice([
        f"A jar has {a} {it}. {n} takes {b} and {n2} takes {c}. How many {it} are in the jar?",
        f"There are {a} {it}. {n} eats {b} and {n2} eats {c}. How many {it} remain?",
    ])
    return q, [(a, "-", b), ("_", "-", c)]


def a09(rng):  # a * b + c * d
    n, _, n2 = _people(rng)
    a, b, c, d = rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 9)
    q = rng.choice([
        f"{n} reads {a} pages a day for {b} days and {n2} reads {c} pages a day for {d} days. How many pages in all?",
        f"{n} walks {a} miles a day for {b} days. {n2} walks {c} miles a day for {d} days. How many miles in total?",
    ])
    return q, [(a, "*", b), (c, "*", d), ("_0", "+", "_1")]


def a10(rng):  # a * b - c + d
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    c = rng.randint(1, a * b - 1)
    d = rng.randint(2, 19)
    n, _, _ = _people(rng)
    q = rng.choice([
        f"A room has {a} rows of {b} chairs. {c} chairs break and {d} new chairs come. How many chairs are there?",
        f"{n} plants {a} rows of {b} trees. {c} trees die and {n} plants {d} more. How many trees are there?",
    ])
    return q, [(a, "*", b), ("_", "-", c), ("_", "+", d)]


def a11(rng):  # a / b + c
    n, _, _ = _people(rng)
    it = rng.choice(ITEMS)
    b, k, c = rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 19)
    a = b * k
    q = rng.choice([
        f"{n} shares {a} {it} equally among {b} friends. Each friend gets {c} more. How many {it} does each friend have?",
        f"{a} {it} are split equally into {b} bags. Then {c} {it} are added to each bag. How many {it} are in a bag?",
    ])
    return q, [(a, "/", b), ("_", "+", c)]


ARITH_TEMPLATES = {f"A{i:02d}": f for i, f in enumerate(
    [a00, a01, a02, a03, a04, a05, a06, a07, a08, a09, a10, a11])}


def _apply(x, op, y):
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    assert x % y == 0
    return x // y


def solve(steps):
    """Worked solution: one `x op y = z` line per step; `_` is the previous result, `_k` the
    result of step k."""
    results, lines = [], []
    for x, op, y in steps:
        def val(v):
            if v == "_":
                return results[-1]
            if isinstance(v, str):
                return results[int(v[1:])]
            return v
        xv, yv = val(x), val(y)
        z = _apply(xv, op, yv)
        assert z >= 0
        results.append(z)
        lines.append(f"{xv} {op} {yv} = {z}")
    lines.append(f"#### {results[-1]}")
    return "\n".join(lines), results[-1]


def arith_question(rng, tid):
    q, steps = ARITH_TEMPLATES[tid](rng)
    answer, gold = solve(steps)
    return {"question": q, "answer": answer}, gold


# ---------------------------------------------------------------- multiple choice (ARC format)

def _distinct(rng, correct, candidates, k=3):
    out = []
    cands = [c for c in candidates if c != correct and c >= 0]
    rng.shuffle(cands)
    for c in cands:
        if c not in out:
            out.append(c)
        if len(out) == k:
            break
    while len(out) < k:
        c = correct + rng.randint(-15, 15)
        if c != correct and c >= 0 and c not in out:
            out.append(c)
    return out


def c00(rng):
    nums = rng.sample(range(10, 100), 4)
    return rng.choice(["Which number is the greatest?", "Which of these numbers is the largest?"]), \
        max(nums), [n for n in nums if n != max(nums)]


def c01(rng):
    nums = rng.sample(range(10, 100), 4)
    return rng.choice(["Which number is the smallest?", "Which of these numbers is the least?"]), \
        min(nums), [n for n in nums if n != min(nums)]


def c02(rng):
    a, b = rng.randint(10, 59), rng.randint(10, 39)
    s = a + b
    return rng.choice([f"What is {a} + {b}?", f"What is the sum of {a} and {b}?"]), \
        s, _distinct(rng, s, [s + 1, s - 1, s + 10, s - 10, a * 1 + b + 2])


def c03(rng):
    a = rng.randint(30, 99)
    b = rng.randint(5, a - 5)
    s = a - b
    return rng.choice([f"What is {a} - {b}?", f"What is {b} less than {a}?"]), \
        s, _distinct(rng, s, [s + 1, s - 1, s + 10, s - 10, a + b])


def c04(rng):
    n, _, _ = _people(rng)
    it = rng.choice(ITEMS)
    a, b = rng.randint(5, 40), rng.randint(3, 30)
    s = a + b
    return rng.choice([f"{n} has {a} {it} and gets {b} more. How many {it} does {n} have now?",
                       f"A bag has {a} {it}. Someone puts in {b} more {it}. How many {it} are in the bag?"]), \
        s, _distinct(rng, s, [s + 1, s - 1, a - b if a > b else b - a, s + 10])


def c05(rng):
    even = 2 * rng.randint(5, 49)
    odds = rng.sample([2 * k + 1 for k in range(5, 49)], 3)
    return rng.choice(["Which of these numbers is even?", "Which number is an even number?"]), even, odds


def c06(rng):
    a, b = rng.randint(2, 9), rng.randint(2, 12)
    s = a * b
    return rng.choice([f"What is {a} times {b}?", f"What is {a} * {b}?"]), \
        s, _distinct(rng, s, [s + a, s - a, s + b, s - b, a + b])


def c07(rng):
    n = rng.randint(10, 98)
    return rng.choice([f"Which number comes just after {n}?", f"What number is one more than {n}?"]), \
        n + 1, [n - 1, n + 10, n + 2]


CHOICE_TEMPLATES = {f"C{i:02d}": f for i, f in enumerate([c00, c01, c02, c03, c04, c05, c06, c07])}
LABELS = ["A", "B", "C", "D"]


def choice_question(rng, tid, qid):
    stem, correct, wrong = CHOICE_TEMPLATES[tid](rng)
    opts = [correct] + list(wrong[:3])
    rng.shuffle(opts)
    key = LABELS[opts.index(correct)]
    return {"id": qid,
            "question": {"stem": stem, "choices": [{"label": l, "text": str(o)} for l, o in zip(LABELS, opts)]},
            "answerKey": key}


def choice_text(item):
    """Everything a choice question shows (stem and choice texts), for its number pattern."""
    return item["question"]["stem"] + " " + " ".join(c["text"] for c in item["question"]["choices"])


# ---------------------------------------------------------------- prompts (the deployment format)

def user_message(item):
    """The deployed prompt's one user message (TEAM.md; docs/design/probes.md, 'Deployment')."""
    if "answerKey" in item:
        lines = [item["question"]["stem"]] + [f"{c['label']}. {c['text']}" for c in item["question"]["choices"]]
        return "\n".join(lines)
    return item["question"]


def assistant_message(item):
    if "answerKey" in item:
        return "Answer: " + item["answerKey"]
    return item["answer"]


# ---------------------------------------------------------------- whole data sets

def build(seed, n_arith_test=300, n_choice_test=200, n_dev=150, n_arith_train=12000, n_choice_train=3000):
    """Test first, then dev (both without repeats), then training, which rejects every test and
    dev pattern (it may repeat its own: some templates have few number combinations)."""
    rng = random.Random(seed)
    taken = set()
    a_ids, c_ids = sorted(ARITH_TEMPLATES), sorted(CHOICE_TEMPLATES)

    def arith_set(n, prefix):
        out = []
        i = 0
        while len(out) < n:
            tid = a_ids[i % len(a_ids)] if prefix != "train" else rng.choice(a_ids)
            item, gold = arith_question(rng, tid)
            pat = pattern_of(tid, item["question"])
            if pat in taken:
                continue
            if prefix != "train":  # training may repeat its own patterns, never a test/dev one
                taken.add(pat)
            out.append(({"id": f"arith-{tid}-{len(out):04d}", **item} if prefix == "test" else
                        {"id": f"{prefix}-{tid}-{len(out):05d}", **item}, pat))
            i += 1
        return out

    def choice_set(n, prefix):
        out = []
        i = 0
        while len(out) < n:
            tid = c_ids[i % len(c_ids)] if prefix != "train" else rng.choice(c_ids)
            qid = (f"choice-{tid}-{len(out):04d}" if prefix == "test" else f"{prefix}-{tid}-{len(out):05d}")
            item = choice_question(rng, tid, qid)
            pat = pattern_of(tid, choice_text(item))
            if pat in taken:
                continue
            if prefix != "train":
                taken.add(pat)
            out.append((item, pat))
            i += 1
        return out

    arith_test = arith_set(n_arith_test, "test")
    choice_test = choice_set(n_choice_test, "test")
    arith_dev = arith_set(n_dev, "dev")
    arith_train = arith_set(n_arith_train, "train")
    choice_train = choice_set(n_choice_train, "train")
    return {
        "arith_test": [x for x, _ in arith_test],
        "choice_test": [x for x, _ in choice_test],
        "arith_dev": [x for x, _ in arith_dev],
        "arith_train": [x for x, _ in arith_train],
        "choice_train": [x for x, _ in choice_train],
        "train_patterns": sorted({p for _, p in arith_train + choice_train}),
    }


def gold_of(item):
    if "answerKey" in item:
        return item["answerKey"]
    return item["answer"].rsplit("####", 1)[1].strip()
