"""A tiny neural parser trained through the batch API, in numpy only.

Run from anywhere (a few seconds on the toy treebank)::

    python docs/examples/neural_batch.py [SPEC] [TRAIN] [DEV] [--epochs N] [--batch B]

SPEC is a packaged spec name (``arc-eager``, the default) or a spec file; TRAIN and DEV
default to the toy treebank next to this script.

What it shows: a compiled system's :class:`~tsdsl.kernels.batch.StateBatch` steps B sentences
at once; each step reads the configurations through array views (the three tokens at the
open end of every list, from ``lists()``, and their leftmost and rightmost dependents, from
``heads()``: no spec-specific feature), scores every (action, label) pair with a one-hidden-layer
MLP over word and UPOS embeddings, and learns from the dynamic oracle's labeled costs
(``costs()``, shape [B, A, L]): the loss is minus the log of the probability mass the model
puts on the optimal legal outputs, those of least cost (``best_outputs()``: never an illegal
output; where no output costs 0, a training tree the spec cannot build, they are the outputs
that lose least, and the epoch line counts those steps).  From the second epoch on the parser
follows its own prediction (exploration, as Goldberg & Nivre 2012 train with a dynamic oracle),
so it learns from its own mistakes.  Dev UAS/LAS are measured by parsing through the same API
without gold trees; the words the spec attaches at the end (Covington's ``attach headless to
root``) get the root label, the commonest label of root arcs in training, as a trained tsdsl
parser gives them (``labels(finished=True, root_label=...)``).

Arcs that a spec builds ``unlabeled`` (arc-eager-nm-2013's REDUCE) keep label -1 and count as
wrong in LAS: a trained tsdsl parser gives them the label it noted for the arc, which this
example does not learn.

Single-head specs with an oracle block and a fixed action set work.  The others are refused
at the start: capacity-inf specs (easy-first: an action per position, their number growing
with the sentence), as this MLP scores a fixed set of outputs from the ends of the lists and
such a spec needs a score per position (``tsdsl train`` does that); multihead specs (dag);
specs without an oracle block.  A spec whose oracle's least-cost actions can lead into a dead
end (arc-eager-tree-constrained, arc-eager-unshift: their first oracles are lower bounds) stops with a
message when one is reached.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from tsdsl.kernels import compile_system
from tsdsl.treebank.conllu import read_conllu

HERE = Path(__file__).resolve().parent
NONE, UNKNOWN, ROOT = 0, 1, 2  # reserved rows of both embedding tables
PER_LIST = 3
"""Tokens read at the open end of every list, each with its leftmost and rightmost dependent
(from ``heads()``).  Three, not two: a control-parameter spec keeps the stack and the next word
in one list (arc-hybrid's O ends s1 s0 b0, and its RIGHT-ARC attaches s0 to s1), so two tokens
there miss a head its actions choose; and the dependents say whether a token is complete
before an action takes it out of the lists.  On 300 English sentences (LinES, 200 dev) dev UAS
went from 52.5 (arc-hybrid), 50.9 (arc-standard) and 68.9 (arc-eager) with two tokens and no
dependents to 72.3, 64.3 and 72.0, for about 2.5 times the time per step."""


class Vocab:
    """Word and UPOS ids from the training file (reserved: none, unknown, root)."""

    def __init__(self, sentences):
        self.words = {w: k + 3 for k, w in enumerate(sorted({w.lower() for s in sentences for w in s.forms}))}
        self.tags = {t: k + 3 for k, t in enumerate(sorted({t for s in sentences for t in s.upos}))}
        self.labels = sorted({l for s in sentences for l in s.deprels})
        self.label_id = {l: k for k, l in enumerate(self.labels)}

    def tokens(self, sentences, max_len: int) -> np.ndarray:
        """int64 [B, 2, max_len]: word and tag ids per token slot (slot 0 the root)."""
        out = np.full((len(sentences), 2, max_len), NONE, dtype=np.int64)
        for b, s in enumerate(sentences):
            out[b, :, 0] = ROOT
            out[b, 0, 1:s.n + 1] = [self.words.get(w.lower(), UNKNOWN) for w in s.forms]
            out[b, 1, 1:s.n + 1] = [self.tags.get(t, UNKNOWN) for t in s.upos]
        return out


class MLP:
    """Embeddings -> ReLU layer -> one score per (action, label), trained with Adam."""

    def __init__(self, n_words, n_tags, n_slots, n_out, rng, dim_w=24, dim_t=12, hidden=96):
        self.p = {
            "Ew": rng.normal(0, 0.1, (n_words, dim_w)), "Et": rng.normal(0, 0.1, (n_tags, dim_t)),
            "W1": rng.normal(0, (2 / (n_slots * (dim_w + dim_t))) ** 0.5, (n_slots * (dim_w + dim_t), hidden)),
            "b1": np.zeros(hidden), "W2": rng.normal(0, 0.01, (hidden, n_out)), "b2": np.zeros(n_out),
        }
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.t = 0

    def forward(self, wid, tid):
        x = np.concatenate([self.p["Ew"][wid], self.p["Et"][tid]], axis=2).reshape(len(wid), -1)
        h = np.maximum(x @ self.p["W1"] + self.p["b1"], 0)
        return h @ self.p["W2"] + self.p["b2"], (wid, tid, x, h)

    def backward(self, cache, dscores, lr=2e-3):
        wid, tid, x, h = cache
        g = {"W2": h.T @ dscores, "b2": dscores.sum(0)}
        dh = (dscores @ self.p["W2"].T) * (h > 0)
        g["W1"], g["b1"] = x.T @ dh, dh.sum(0)
        dx = (dh @ self.p["W1"].T).reshape(len(wid), wid.shape[1], -1)
        dim_w = self.p["Ew"].shape[1]
        g["Ew"], g["Et"] = np.zeros_like(self.p["Ew"]), np.zeros_like(self.p["Et"])
        np.add.at(g["Ew"], wid, dx[:, :, :dim_w])
        np.add.at(g["Et"], tid, dx[:, :, dim_w:])
        self.t += 1
        for k, gk in g.items():  # Adam
            self.m[k] = 0.9 * self.m[k] + 0.1 * gk
            self.v[k] = 0.999 * self.v[k] + 0.001 * gk * gk
            mh, vh = self.m[k] / (1 - 0.9 ** self.t), self.v[k] / (1 - 0.999 ** self.t)
            self.p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)


def slot_tokens(batch) -> np.ndarray:
    """int [B, n_slots(...)]: the PER_LIST tokens at the open end of every list, then their
    leftmost and then their rightmost dependents (CoNLL-U numbering; -1: none)."""
    lists, lengths = batch.lists()
    B = len(lengths)
    picks = []
    for k, end in enumerate(batch.open_ends):
        for i in range(PER_LIST):
            if end == "L":  # a buffer: read from its front
                at = np.full(B, i)
            else:  # a stack: its top is the last token
                at = lengths[:, k] - 1 - i
            ok = (at >= 0) & (at < lengths[:, k])
            picks.append(np.where(ok, lists[np.arange(B), k, np.clip(at, 0, None)], -1))
    pos = np.stack(picks, axis=1)  # token slots, -1: none
    kids = (batch.heads()[:, None, :] == pos[:, :, None]) & (pos[:, :, None] >= 0)  # [B, slots, max_len]
    has = kids.any(axis=2)
    first = np.where(has, kids.argmax(axis=2), -1)  # leftmost dependent
    last = np.where(has, kids.shape[2] - 1 - kids[:, :, ::-1].argmax(axis=2), -1)  # rightmost
    return np.concatenate([pos, first, last], axis=1)


def slot_features(batch, toks):
    """Word and tag ids of the tokens of :func:`slot_tokens`: [B, n_slots(...)] each."""
    pos = slot_tokens(batch)
    safe = np.clip(pos, 0, None)
    wid = np.where(pos >= 0, np.take_along_axis(toks[:, 0], safe, 1), NONE)
    tid = np.where(pos >= 0, np.take_along_axis(toks[:, 1], safe, 1), NONE)
    return wid, tid


def n_slots(ks) -> int:
    """Tokens the features read per configuration: PER_LIST per list, each with two dependents."""
    return 3 * PER_LIST * len(ks.system.lists)


def output_mask(batch):
    """[A * L]: one output per unlabeled action (its label slot 0), L per labeled action."""
    A, L = batch.n_actions, max(batch.n_labels, 1)
    keep = np.zeros((A, L), dtype=bool)
    keep[batch.takes_label] = True
    keep[~batch.takes_label, 0] = True
    return keep.reshape(-1)


def run_epoch(ks, model, vocab, sentences, tb, rng, B, explore):
    """One pass over the training sentences in batches of B; returns (mean loss, steps, steps
    at which no legal output cost 0)."""
    order = rng.permutation(len(sentences))
    total, steps, unfree = 0.0, 0, 0
    for start in range(0, len(order), B):
        idx = order[start:start + B]
        batch = ks.batch(tb, select=idx)
        toks = vocab.tokens([sentences[i] for i in idx], batch.max_len)
        L = batch.n_labels
        keep = output_mask(batch)
        while not batch.done:
            live = ~batch.is_terminal()
            best = batch.best_outputs()  # the least-cost legal outputs, [B, A, L]
            legal = np.repeat(batch.legal_mask().astype(bool), L, axis=1) & keep
            stuck = live & ~legal.any(axis=1)
            if stuck.any():
                raise SystemExit(f"neural_batch.py: {ks.system.name}: a configuration reached a dead end (no legal "
                                 f"action, not terminal); this example needs a spec whose oracle's least-cost "
                                 f"actions, and the model's choices, never lead into one")
            optimal = best.mask.reshape(len(idx), -1) & keep
            unfree += int((live & ~best.free).sum())
            scores, cache = model.forward(*slot_features(batch, toks))
            scores = np.where(legal, scores, -1e9)
            p = np.exp(scores - scores.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            mass = (p * optimal).sum(axis=1)
            total += -np.log(mass[live] + 1e-12).sum()
            steps += int(live.sum())
            dscores = p - np.where(optimal, p, 0) / mass[:, None].clip(1e-12)
            dscores[~live] = 0
            model.backward(cache, dscores / max(int(live.sum()), 1))
            follow = np.where(optimal, scores, -np.inf).argmax(axis=1)  # the best optimal output
            if explore:
                follow = np.where(rng.random(len(idx)) < 0.9, scores.argmax(axis=1), follow)
            act = np.where(live, follow // L, -1)
            batch.apply(act, np.where(live, follow % L, -1))
    return total / max(steps, 1), steps, unfree


def parse(ks, model, vocab, sentences, B, n_labels, root_label):
    """Heads and label ids [words] of every sentence, greedy, through batches without gold;
    the words the spec's end-of-parse rule attaches get the label id ``root_label``."""
    heads, labels = [], []
    for start in range(0, len(sentences), B):
        chunk = sentences[start:start + B]
        batch = ks.batch([s.n for s in chunk], n_labels=n_labels)
        toks = vocab.tokens(chunk, batch.max_len)
        keep = output_mask(batch)
        L = n_labels
        while not batch.done:
            live = ~batch.is_terminal()
            legal = np.repeat(batch.legal_mask().astype(bool), L, axis=1) & keep
            scores, _ = model.forward(*slot_features(batch, toks))
            choice = np.where(legal, scores, -np.inf).argmax(axis=1)
            batch.apply(np.where(live, choice // L, -1), np.where(live, choice % L, -1))
        h, l = batch.heads(finished=True), batch.labels(finished=True, root_label=root_label)
        for b, s in enumerate(chunk):
            heads.extend(h[b, 1:s.n + 1])
            labels.extend(l[b, 1:s.n + 1])
    return np.array(heads), np.array(labels)


def usable(ks) -> None:
    """Stop, saying why, for a spec this example cannot train (before any work)."""
    system = ks.system
    why = None
    if system.multihead:
        why = "it builds several heads per word; this example reads one head per word"
    elif system.unbounded:
        why = ("it has capacity inf: its actions (one per position) grow with the sentence, and this MLP "
               "scores a fixed set of outputs; train it with `tsdsl train`, which scores every position")
    elif not ks.gen.losses:
        why = "it has no oracle block, so the batch API has no costs to learn from"
    if why:
        raise SystemExit(f"neural_batch.py: cannot train {system.name}: {why}")


def root_label_of(sentences) -> str:
    """The commonest label of root arcs (head 0) in ``sentences``, as `tsdsl train` picks the
    label a trained parser gives the words attached to the root at the end."""
    counts = Counter(l for s in sentences for h, l in zip(s.heads, s.deprels) if h == 0)
    return counts.most_common(1)[0][0] if counts else "root"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec", nargs="?", default="arc-eager", help="a packaged spec name or a spec file")
    ap.add_argument("train", nargs="?", default=str(HERE / "toy-train.conllu"))
    ap.add_argument("dev", nargs="?", default=str(HERE / "toy-dev.conllu"))
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    for path in (args.train, args.dev):
        if not Path(path).is_file():
            raise SystemExit(f"neural_batch.py: no file {path}: give TRAIN and DEV (the toy treebank of the "
                             f"default is docs/examples/toy-*.conllu in the tsdsl repository)")
    rng = np.random.default_rng(args.seed)
    ks = compile_system(args.spec, fallback=False)
    usable(ks)
    train = [s for s in read_conllu(args.train)]
    dev = read_conllu(args.dev)
    vocab = Vocab(train)
    L = len(vocab.labels)
    root_label = vocab.label_id.get(root_label_of(train), -1)
    tb = ks.pack([list(s.heads) for s in train], [[vocab.label_id[l] for l in s.deprels] for s in train], L)
    model = MLP(len(vocab.words) + 3, len(vocab.tags) + 3, n_slots(ks), ks.n_actions * L, rng)
    for epoch in range(args.epochs):
        loss, steps, unfree = run_epoch(ks, model, vocab, train, tb, rng, args.batch, explore=epoch > 0)
        print(f"epoch {epoch + 1}: {steps} steps, loss {loss:.3f}, {unfree} with no output of cost 0")
    heads, labels = parse(ks, model, vocab, dev, args.batch, L, root_label)
    gold_h = np.array([h for s in dev for h in s.heads])
    gold_l = np.array([vocab.label_id.get(l, -1) for s in dev for l in s.deprels])
    uas = (heads == gold_h).mean()
    las = ((heads == gold_h) & (labels == gold_l)).mean()
    print(f"dev UAS {100 * uas:.1f}  LAS {100 * las:.1f}  ({len(gold_h)} words)")


if __name__ == "__main__":
    main(sys.argv[1:])
