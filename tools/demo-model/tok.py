"""A word-level tokenizer in Hugging Face `tokenizer.json` form.

Spaces become the metaspace mark "▁" (normalizer), a regex splits the text into pieces (a word
or a single digit, each with an optional leading "▁"; "####"; one other character), and a piece
found in the vocabulary is one token (BPE with ignore_merges and no merges); any other piece
falls back to its characters. Digits are always single tokens so the model does arithmetic digit
by digit. The same rules are implemented here in Python (encode) and checked against
@huggingface/tokenizers by check_tokenizer.mjs on every text of the data.
"""
import json
import re

META = "\u2581"
SPLIT_REGEX = "\u2581?[A-Za-z]+|\u2581?[0-9]|\u2581?####|\u2581?[^A-Za-z0-9\u2581\n]|\u2581|\n"
_split = re.compile(SPLIT_REGEX)

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
SPECIALS = [UNK, BOS, EOS, "<|system|>", "<|user|>", "<|assistant|>"]

CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}{{ '<|system|>\\n' + message['content'] + '\\n' }}"
    "{% elif message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + '\\n' }}"
    "{% elif message['role'] == 'assistant' %}{{ '<|assistant|>\\n' + message['content'] + eos_token + '\\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}"
)


def render_prompt(user_text):
    """What CHAT_TEMPLATE renders for one user message with add_generation_prompt=True."""
    return f"{BOS}<|user|>\n{user_text}\n<|assistant|>\n"


def pieces(text):
    return _split.findall(text.replace(" ", META))


class Tokenizer:
    def __init__(self, vocab):
        self.vocab = vocab  # token -> id
        self.inv = {i: t for t, i in vocab.items()}
        self.bos_id, self.eos_id, self.unk_id = vocab[BOS], vocab[EOS], vocab[UNK]
        self.special_ids = {vocab[s] for s in SPECIALS}

    @staticmethod
    def build(texts):
        chars = [chr(c) for c in range(33, 127)] + [META, "\n"]
        base = chars + [META + c for c in chars if c not in (META, "\n") and not c.isalpha()]
        seen = set(SPECIALS) | set(base)
        words = []
        for t in texts:
            for p in pieces(t):
                if p not in seen:
                    seen.add(p)
                    words.append(p)
        tokens = SPECIALS + base + sorted(words)
        return Tokenizer({t: i for i, t in enumerate(tokens)})

    def encode_plain(self, text):
        ids = []
        for p in pieces(text):
            if p in self.vocab:
                ids.append(self.vocab[p])
            else:
                ids.extend(self.vocab.get(ch, self.unk_id) for ch in p)
        return ids

    def encode(self, text):
        """Split on special tokens first (as the added-token splitter does), then encode_plain."""
        ids = []
        pat = "(" + "|".join(re.escape(s) for s in SPECIALS) + ")"
        for part in re.split(pat, text):
            if not part:
                continue
            if part in SPECIALS:
                ids.append(self.vocab[part])
            else:
                ids.extend(self.encode_plain(part))
        return ids

    def decode(self, ids, skip_special=True):
        toks = [self.inv[i] for i in ids if not (skip_special and i in self.special_ids)]
        return "".join(toks).replace(META, " ")

    def prompt_ids(self, user_text):
        return self.encode(render_prompt(user_text))

    def to_json(self):
        added = [{"id": self.vocab[s], "content": s, "single_word": False, "lstrip": False, "rstrip": False,
                  "normalized": False, "special": True} for s in SPECIALS]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added,
            "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": META},
            "pre_tokenizer": {"type": "Split", "pattern": {"Regex": SPLIT_REGEX}, "behavior": "Isolated",
                              "invert": False},
            "post_processor": None,
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": META}, "content": " "},
                {"type": "Fuse"}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": UNK, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                      "ignore_merges": True, "vocab": self.vocab, "merges": []},
        }

    def config_json(self, max_len):
        added = {str(self.vocab[s]): {"content": s, "lstrip": False, "normalized": False, "rstrip": False,
                                      "single_word": False, "special": True} for s in SPECIALS}
        return {
            "added_tokens_decoder": added,
            "additional_special_tokens": ["<|system|>", "<|user|>", "<|assistant|>"],
            "bos_token": BOS,
            "eos_token": EOS,
            "unk_token": UNK,
            "pad_token": EOS,
            "add_bos_token": False,
            "add_eos_token": False,
            "clean_up_tokenization_spaces": False,
            "model_max_length": max_len,
            "tokenizer_class": "PreTrainedTokenizerFast",
            "chat_template": CHAT_TEMPLATE,
        }


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")
