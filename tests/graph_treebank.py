"""A small generated treebank with enhanced dependencies (DEPS), for the multihead tests.

``python tests/graph_treebank.py`` rewrites tests/data/toy-deps-{train,dev}.conllu;
tests/test_graphs.py checks that the shipped files are what this generator writes.

Each sentence: ``subject VERB object? (ADP NP)? PUNCT`` with, at random,
- coordinated objects ``NP and NP``: the second conjunct also gets the verb as ``obj``
  (a second head);
- a second verb ``and VERB`` sharing the subject (the subject's second head spans the root
  word, so it crosses the root arc: not a projective DAG);
- a relative clause ``NOUN that VERB`` on the subject: ``that`` gets ``ref``, the noun
  becomes the clause's ``nsubj`` (a cycle, as in enhanced UD);
- gapping ``... and NP NP`` with an empty node (collapsed: ``conj:and>nsubj``);
- obliques labeled with their case marker (``obl:with``), conjuncts with the conjunction
  (``conj:and``).
"""

from __future__ import annotations

import random
from pathlib import Path

VOCAB = {
    "DET": ["the", "a", "every", "some"],
    "ADJ": ["big", "small", "red", "old"],
    "NOUN": ["dog", "cat", "man", "idea", "house", "tree"],
    "PRON": ["she", "he", "they"],
    "TVERB": ["sees", "likes", "eats", "finds"],
    "IVERB": ["sleeps", "runs", "arrived"],
    "ADP": ["with", "from"],
}
DATA = Path(__file__).resolve().parent / "data"


def generate_sentence(rng: random.Random) -> str:
    """One sentence block of CoNLL-U (without the sent_id comment)."""
    rows: list[dict] = []   # form, upos, head (index), deprel, extra: [(head index, label)]
    empty: list[tuple] = []

    def word(upos, head, deprel, vocab=None, form=None) -> int:
        rows.append({"form": form or rng.choice(VOCAB[vocab or upos]), "upos": upos, "head": head,
                     "deprel": deprel, "deps": []})
        return len(rows) - 1

    def np_(head, deprel, edeprel=None) -> int:
        det = word("DET", None, "det")
        adj = word("ADJ", None, "amod") if rng.random() < 0.3 else None
        noun = word("NOUN", head, deprel)
        rows[det]["head"] = noun
        if adj is not None:
            rows[adj]["head"] = noun
        rows[noun]["elabel"] = edeprel
        return noun

    if rng.random() < 0.3:
        subj = word("PRON", None, "nsubj")
    else:
        subj = np_(None, "nsubj")
        if rng.random() < 0.15:
            that = word("PRON", None, "nsubj", form="that")
            rel = word("VERB", subj, "acl:relcl", vocab="IVERB")
            rows[that]["head"] = rel
            rows[that]["elabel_deps"] = [(subj, "ref")]
            rows[subj]["deps"].append((rel, "nsubj"))
    verb = word("VERB", -1, "root", vocab="TVERB")
    rows[subj]["head"] = verb
    gapping = rng.random() < 0.1
    obj = np_(verb, "obj")
    if not gapping and rng.random() < 0.3:
        cc = word("CCONJ", None, "cc", form="and")
        obj2 = np_(obj, "conj", "conj:and")
        rows[cc]["head"] = obj2
        rows[obj2]["deps"].append((verb, "obj"))
    if rng.random() < 0.3:
        case = word("ADP", None, "case")
        obl = np_(verb, "obl", "obl:" + rows[case]["form"])
        rows[case]["head"] = obl
    if gapping:
        cc = word("CCONJ", None, "cc", form="and")
        s2 = word("PRON", verb, "conj")
        o2 = np_(s2, "orphan")
        rows[cc]["head"] = s2
        empty.append((len(rows), verb))           # after the last word so far
        rows[s2]["via_empty"] = "nsubj"
        rows[o2]["via_empty"] = "obj"
        rows[cc]["via_empty"] = "cc"
    elif rng.random() < 0.2:
        cc = word("CCONJ", None, "cc", form="and")
        v2 = word("VERB", verb, "conj", vocab="IVERB")
        rows[cc]["head"] = v2
        rows[v2]["elabel"] = "conj:and"
        rows[subj]["deps"].append((v2, "nsubj"))
    word("PUNCT", verb, "punct", form=".")

    lines = ["# text = " + " ".join(r["form"] for r in rows)]
    eid = None
    for i, r in enumerate(rows):
        n = i + 1
        head = r["head"] + 1
        deps = set()
        if "via_empty" in r:
            deps.add((f"{empty[0][0]}.1", r["via_empty"]))
        else:
            deps.add((str(head), r.get("elabel") or r["deprel"]))
        if "elabel_deps" in r:
            deps = {(str(h + 1), l) for h, l in r["elabel_deps"]}
        deps.update((str(h + 1), l) for h, l in r["deps"])
        dep_text = "|".join(f"{h}:{l}" for h, l in sorted(deps, key=lambda x: (float(x[0]), x[1])))
        lines.append("\t".join([str(n), r["form"], r["form"], r["upos"], "_", "_", str(head), r["deprel"],
                                dep_text, "_"]))
        if empty and n == empty[0][0]:
            eid = f"{n}.1"
            v = rows[empty[0][1]]
            lines.append("\t".join([eid, v["form"], v["form"], "VERB", "_", "_", "_", "_",
                                    f"{empty[0][1] + 1}:conj:and", "CopyOf=" + str(empty[0][1] + 1)]))
    return "\n".join(lines) + "\n"


def generate(n: int, seed: int, prefix: str) -> str:
    rng = random.Random(seed)
    return "".join(f"# sent_id = {prefix}{k}\n" + generate_sentence(rng) + "\n" for k in range(1, n + 1))


FILES = {"toy-deps-train.conllu": (240, 11, "train-"), "toy-deps-dev.conllu": (60, 12, "dev-")}


def main() -> None:
    for name, (n, seed, prefix) in FILES.items():
        (DATA / name).write_text(generate(n, seed, prefix), encoding="utf-8")


if __name__ == "__main__":
    main()
