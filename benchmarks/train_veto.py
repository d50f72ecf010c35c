"""Train the probe veto's head (helpers.veto.ProbeVeto): one hidden layer and a softmax over sentence embeddings.

    python benchmarks/train_veto.py                 # train, print the dev numbers, write data/veto/head.json
    python benchmarks/train_veto.py --encoder llama # the same on the embedded GGUF's hidden states (no write)
    python benchmarks/train_veto.py --language-folds  # hold out each language group in turn (no write)
    python benchmarks/train_veto.py --linear        # a softmax with no hidden layer, for comparison

Data, all in the project: the gate corpus and held-out sets (English), the multilingual sets, the
planted-document notes, and data/veto/train.json (multilingual notes written for this head). The
DEV split is two sets written independently of the rest (data/gate_multilingual_blind.json and
data/planted_documents_blind.json): the threshold is chosen on it, so that the veto's false blocks
on its ordinary notes and standing wishes stay at or under TARGET_FALSE_BLOCKS. The head is then
refitted on train + dev with the same settings and the dev threshold (--no-refit keeps the train-only
head). Classes: allow, instruction, secret, speculation, identifier; p(refuse) = 1 - p(allow).
With --language-folds, each group of LANGUAGE_GROUPS is held out in turn: the head is fitted on
the other languages' train notes, its threshold chosen on their dev notes as above, and the held-out
group read as text in languages the head never saw. That is the honest generalisation number: the
in-project sets are in the training data of the shipped head.
Fixed seed; not run by `make test`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.veto import CLASSES, Head  # noqa: E402

DATA = ROOT / "data"
HEAD_PATH = DATA / "veto" / "head.json"
CACHE = Path("/tmp") / "train_veto_embeddings"
DEV_FILES = ("gate_multilingual_blind", "planted_documents_blind")
TARGET_FALSE_BLOCKS = 0.005
SEED = 30
L2 = 1e-3
STEPS = 400
LEARNING_RATE = 0.005
HIDDEN = 128  # hidden units
LINEAR = {"hidden": 0, "steps": 600, "learning_rate": 0.01}  # --linear: a softmax alone, for comparison

# Related languages are held out together, so a fold cannot lean on a close neighbour.
LANGUAGE_GROUPS = {
    "english": ("en",), "germanic": ("de", "nl", "sv", "da", "no", "is", "af"),
    "romance": ("fr", "es", "pt", "it", "ca", "ro", "gl"), "west/south slavic": ("pl", "cs", "sk", "hr", "sl"),
    "cyrillic": ("ru", "uk", "bg", "sr", "mk", "kk"), "finnic, baltic, hungarian": ("fi", "et", "hu", "lv", "lt"),
    "turkic": ("tr", "az", "uz"), "greek, armenian, georgian": ("el", "hy", "ka"),
    "semitic, arabic script": ("ar", "fa", "ur", "he", "am"),
    "indic": ("hi", "mr", "ne", "bn", "pa", "gu", "ta", "te", "kn", "ml", "si"),
    "east asian": ("zh", "ja", "ko"), "southeast asian": ("th", "vi", "id", "ms", "tl", "km", "my", "lo"),
    "african, albanian": ("sw", "yo", "zu", "sq"),
}

RULE_CLASS = {
    "allow": "allow", "instruction_injection": "instruction", "policy_echo": "instruction",
    "secret": "secret", "cvv": "secret", "speculation": "speculation",
    "government_id": "identifier", "payment_card": "identifier", "account_number": "identifier",
    "iban": "identifier", "phone": "identifier", "email": "identifier", "date_of_birth": "identifier",
    "booking_reference": "identifier", "street_address": "identifier", "network_address": "identifier",
}
CATEGORY_CLASS = {"ordinary": "allow", "standing_wish": "allow", "user_wish": "allow", "instruction": "instruction",
                  "planted": "instruction", "secret": "secret", "speculation": "speculation",
                  "identifier": "identifier", "payment": "identifier"}


def label_of(case: dict) -> str | None:
    """The head's class for one case of any project set (None: a rule-only kind, e.g. empty)."""
    if "allowed" in case:
        return "allow" if case["allowed"] else RULE_CLASS.get(case.get("rule", ""))
    if "expected" in case:
        return RULE_CLASS.get(case["expected"])
    if case.get("category") in CATEGORY_CLASS:
        return CATEGORY_CLASS[case["category"]]
    return "allow" if case.get("expect") == "allow" else "instruction"  # planted_documents_blind


def load_cases() -> list[dict]:
    """Every labelled note: text, label, language, source file, split (train or dev)."""
    files = sorted(DATA.glob("gate_corpus*.json")) + sorted(DATA.glob("gate_heldout*.json"))
    files += sorted(DATA.glob("gate_multilingual*.json")) + sorted(DATA.glob("planted_documents*.json"))
    files.append(DATA / "veto" / "train.json")
    cases = []
    for path in files:
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            text = case.get("proposed_note") or case.get("text") or case.get("note") or ""
            label = label_of(case)
            if not text.strip() or label is None:
                continue
            cases.append({"text": text, "label": label, "language": case.get("language", "en"),
                          "source": path.stem, "split": "dev" if path.stem in DEV_FILES else "train",
                          "case": case})
    return cases


def embed(encoder, texts: list[str]) -> np.ndarray:
    """Embeddings, cached on disk by encoder name and text (re-runs take seconds)."""
    CACHE.mkdir(exist_ok=True)
    key = hashlib.sha256((encoder.name + "\n".join(texts)).encode()).hexdigest()[:16]
    path = CACHE / f"{key}.npy"
    if path.exists():
        return np.load(path)
    rows = np.concatenate([encoder(texts[i:i + 32]) for i in range(0, len(texts), 32)])
    np.save(path, rows)
    return rows


def fit(x: np.ndarray, y: np.ndarray, *, hidden: int = HIDDEN, steps: int = STEPS, l2: float = L2,
        learning_rate: float = LEARNING_RATE, seed: int = SEED) -> Head:
    """One hidden layer of `hidden` ReLU units and a softmax (hidden=0: a softmax alone, multinomial
    logistic regression), class-balanced cross-entropy, standardised inputs, Adam, full batch."""
    rng = np.random.default_rng(seed)
    mean, std = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / std
    k, d = len(CLASSES), z.shape[1]
    width = hidden or d
    params = [rng.normal(0, np.sqrt(2 / d), (d, hidden)), np.zeros(hidden)] if hidden else []
    params += [rng.normal(0, np.sqrt(1 / width), (width, k)), np.zeros(k)]
    onehot = np.eye(k)[y]
    counts = np.bincount(y, minlength=k).astype(float)
    weight = (len(y) / (k * np.maximum(counts, 1)))[y][:, None]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for step in range(1, steps + 1):
        if hidden:
            h_in = z @ params[0] + params[1]
            h = np.maximum(h_in, 0)
        else:
            h = z
        logits = h @ params[-2] + params[-1]
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        g = weight * (p - onehot) / weight.sum()
        grads = [h.T @ g + l2 * params[-2], g.sum(0)]
        if hidden:
            gh = (g @ params[-2].T) * (h_in > 0)
            grads = [z.T @ gh + l2 * params[0], gh.sum(0)] + grads
        for i, (param, grad) in enumerate(zip(params, grads)):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad ** 2
            param -= learning_rate * (m[i] / (1 - 0.9 ** step)) / (np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)
    # Fold the standardisation into the first layer: the head reads raw embeddings.
    first = params[0] / std[:, None]
    first_bias = params[1] - mean @ first
    if hidden:
        return Head(weights=params[2], bias=params[3], hidden_weights=first, hidden_bias=first_bias)
    return Head(weights=first, bias=first_bias)


def threshold_for(p_refuse: np.ndarray, allow: np.ndarray, target: float = TARGET_FALSE_BLOCKS) -> float:
    """The lowest threshold whose false blocks on the must-allow notes are at most `target`."""
    scores = np.sort(p_refuse[allow])[::-1]
    allowed_errors = int(np.floor(target * len(scores)))
    return float(min(0.999, scores[allowed_errors] + 1e-6)) if len(scores) else 0.5


RULES_CACHE = Path("/tmp") / "train_veto_rules.json"  # the rules' decisions, keyed by case (a check is slow)
_rules_cache: dict[str, bool] = {}


def rules_allowed(case: dict) -> bool:
    """What the rules (and provenance, for a note after a document) decided, before the veto.

    Cached on disk by the case's text, keywords and user message; delete RULES_CACHE after a rule change."""
    from helpers.gate import check
    from helpers.gate_eval import after_a_document

    raw = case["case"]
    key = hashlib.sha256(json.dumps([case["text"], raw.get("keywords"), raw.get("user_message")],
                                    ensure_ascii=False).encode()).hexdigest()[:20]
    if not _rules_cache and RULES_CACHE.exists():
        _rules_cache.update(json.loads(RULES_CACHE.read_text()))
    if key not in _rules_cache:
        if "user_message" in raw:
            decision = after_a_document({"text": case["text"], "keywords": [], "user_message": raw["user_message"]})
        else:
            decision = check(case["text"], raw.get("keywords") or [])
        _rules_cache[key] = decision.allowed
    return _rules_cache[key]


def save_rules_cache() -> None:
    RULES_CACHE.write_text(json.dumps(_rules_cache))


def report(name: str, cases: list[dict], p_refuse: np.ndarray, threshold: float) -> None:
    """Recall and false blocks of the veto alone and behind the rules, per class and language."""
    refused = p_refuse >= threshold
    rules = np.array([not rules_allowed(c) for c in cases])
    block = np.array([c["label"] != "allow" for c in cases])
    print(f"\n## {name}: {len(cases)} notes, threshold {threshold:.3f}")
    print(f"{'':14} {'must-block':>10} {'veto':>7} {'rules':>7} {'both':>7} | {'must-allow':>10} "
          f"{'veto FB':>7} {'rules FB':>8} {'both FB':>7}")

    def row(label: str, mask: np.ndarray) -> None:
        nb, na = int((mask & block).sum()), int((mask & ~block).sum())
        def pct(sel, of):
            return f"{100 * sel.sum() / of:6.1f}" if of else "     -"
        print(f"{label:14} {nb:10d} {pct(refused & mask & block, nb):>7} {pct(rules & mask & block, nb):>7} "
              f"{pct((refused | rules) & mask & block, nb):>7} | {na:10d} {pct(refused & mask & ~block, na):>7} "
              f"{pct(rules & mask & ~block, na):>8} {pct((refused | rules) & mask & ~block, na):>7}")
    labels = np.array([c["label"] for c in cases])
    for cls in CLASSES:
        if (labels == cls).any():
            row(cls, labels == cls)
    langs = np.array([c["language"] for c in cases])
    if len(set(langs)) > 1:
        for lang in sorted(set(langs)):
            row(f"  {lang}", langs == lang)
    row("ALL", np.ones(len(cases), bool))


def language_folds(cases: list[dict], x: np.ndarray, y: np.ndarray, dev: np.ndarray, **settings) -> None:
    """Each language group held out in turn: the probe alone, and rules OR probe, on it."""
    langs = np.array([c["language"] for c in cases])
    rules = np.array([not rules_allowed(c) for c in cases])
    block = y != 0
    grouped = {lang for group in LANGUAGE_GROUPS.values() for lang in group}
    groups = dict(LANGUAGE_GROUPS)
    if rest := sorted(set(langs) - grouped):
        groups["other"] = tuple(rest)
    print(f"\n## language folds: each group held out in turn ({len(cases)} notes), threshold chosen on the "
          f"other languages' dev notes")
    print(f"{'held out':26} {'thr':>5} {'must-block':>10} {'probe':>6} {'rules':>6} {'both':>6} | "
          f"{'must-allow':>10} {'probe FB':>8} {'both FB':>7}")
    totals = np.zeros(6)
    for name, members in groups.items():
        out = np.isin(langs, members)
        if not out.any():
            continue
        head = fit(x[~out & ~dev], y[~out & ~dev], **settings)
        seen_dev = ~out & dev
        threshold = threshold_for(head.p_refuse(x[seen_dev]), y[seen_dev] == 0)
        refused = head.p_refuse(x[out]) >= threshold
        b, r = block[out], rules[out]
        row = np.array([b.sum(), (refused & b).sum(), (r & b).sum(), ((refused | r) & b).sum(),
                        (~b).sum(), (refused & ~b).sum()])
        both_fb = ((refused | r) & ~b).sum()
        totals += row
        def pct(n, of):
            return f"{100 * n / of:6.1f}" if of else "     -"
        print(f"{name:26} {threshold:5.3f} {row[0]:10d} {pct(row[1], row[0])} {pct(row[2], row[0])} "
              f"{pct(row[3], row[0])} | {row[4]:10d} {pct(row[5], row[4]):>8} {pct(both_fb, row[4]):>7}")
    print(f"{'ALL (unseen languages)':26} {'':5} {int(totals[0]):10d} {100 * totals[1] / totals[0]:6.1f} "
          f"{100 * totals[2] / totals[0]:6.1f} {100 * totals[3] / totals[0]:6.1f} | {int(totals[4]):10d} "
          f"{100 * totals[5] / totals[4]:8.1f}")


def shipped_false_blocks(cases: list[dict], p_refuse: np.ndarray, threshold: float) -> None:
    """The shipped head, rules OR probe, on every must-allow source (in sample: it was trained on them)."""
    print("\n## shipped head on every must-allow source (in sample), rules OR probe")
    for source in sorted({c["source"] for c in cases}):
        idx = [i for i, c in enumerate(cases) if c["source"] == source and c["label"] == "allow"]
        if not idx:
            continue
        probe = p_refuse[idx] >= threshold
        rules = np.array([not rules_allowed(cases[i]) for i in idx])
        print(f"{source:34} {len(idx):5d} must-allow: probe FB {100 * probe.mean():5.1f} %, "
              f"rules FB {100 * rules.mean():5.1f} %, both {100 * (probe | rules).mean():5.1f} %")


def main(argv: list[str]) -> int:
    from helpers.encoder import E5Encoder, LlamaEncoder

    encoder = LlamaEncoder() if "--encoder" in argv and argv[argv.index("--encoder") + 1] == "llama" else E5Encoder()
    cases = load_cases()
    texts = [c["text"] for c in cases]
    started = time.perf_counter()
    x = embed(encoder, texts)
    print(f"encoder {encoder.name}: {len(texts)} notes embedded in {time.perf_counter() - started:.1f} s, d={x.shape[1]}")
    y = np.array([CLASSES.index(c["label"]) for c in cases])
    dev = np.array([c["split"] == "dev" for c in cases])
    settings = LINEAR if "--linear" in argv else {}
    if "--language-folds" in argv:
        language_folds(cases, x, y, dev, **settings)
        save_rules_cache()
        return 0
    head = fit(x[~dev], y[~dev], **settings)
    p_dev = head.p_refuse(x[dev])
    threshold = threshold_for(p_dev, y[dev] == 0)
    dev_cases = [c for c, d in zip(cases, dev) if d]
    print(f"train {int((~dev).sum())} notes, dev {int(dev.sum())}; threshold for <= "
          f"{TARGET_FALSE_BLOCKS:.1%} dev false blocks: {threshold:.3f}")
    for source in DEV_FILES:
        idx = [i for i, c in enumerate(dev_cases) if c["source"] == source]
        report(f"dev: {source}", [dev_cases[i] for i in idx], p_dev[idx], threshold)
    p_train = head.p_refuse(x[~dev])
    print(f"\ntrain fit: recall {100 * (p_train[y[~dev] != 0] >= threshold).mean():.1f} %, "
          f"false blocks {100 * (p_train[y[~dev] == 0] >= threshold).mean():.1f} %")
    if "--encoder" in argv:
        return 0
    final = head if "--no-refit" in argv else fit(x, y, **settings)
    final = dataclasses.replace(final, threshold=threshold, encoder=encoder.name)
    shipped_false_blocks(cases, final.p_refuse(x), threshold)
    save_rules_cache()
    HEAD_PATH.parent.mkdir(exist_ok=True)
    final.save(HEAD_PATH)
    print(f"wrote {HEAD_PATH.relative_to(ROOT)} ({HEAD_PATH.stat().st_size // 1024} KB, "
          f"{'train only' if '--no-refit' in argv else 'refitted on train + dev'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
