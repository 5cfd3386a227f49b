"""A compiled system: the interpreter's API over a generated kernel, plus batch operations.

Configurations are opaque ``KState`` objects held in C memory.  Action names and
labels are mapped to integer ids here, so the generated code never sees text
from a spec or a treebank.  Batch operations (legal mask, costs of all actions,
running an action sequence, the oracle pass over a treebank) work on numpy
arrays and release the GIL: this is also the API a neural parser would call.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from .. import ir
from ..errors import OracleError, UsageError
from ..treebank.trees import Tree
from .arguments import (check_gold_trees, check_label_ids, count, flat_ints, int_vector, integer_id, label_range,
                        out_buffer, selection, sentence_length, sentence_lengths)
from .batch import StateBatch
from .codegen import Generated

__all__ = ["CompiledSystem", "OraclePass", "Derivations", "Explored", "Treebank", "ILLEGAL", "check_gold_trees",
           "check_label_ids"]


def _sentence_bounds(starts: np.ndarray, i) -> tuple[int, int]:
    """Where sentence ``i``'s actions lie in a log with sentence offsets ``starts`` (n + 1 of
    them); a negative ``i`` counts from the end, as a list index does."""
    n = len(starts) - 1
    try:
        k = operator.index(i)
    except TypeError:
        raise TypeError(f"sentence index must be an integer, not {type(i).__name__}") from None
    if not -n <= k < n:
        raise IndexError(f"sentence {k} is out of range: the pass has {n} sentence{'s' if n != 1 else ''}"
                         + (f" (0..{n - 1}, or -{n}..-1 from the end)" if n else ""))
    k %= n
    return int(starts[k]), int(starts[k + 1])


@dataclass(frozen=True)
class OraclePass:
    """The result of :meth:`CompiledSystem.oracle_pass`."""

    transitions: int
    stuck_sentences: int       # no zero-cost action, or the step limit: no terminal configuration reached
    mismatched_sentences: int  # final tree not the gold tree, or stuck (a stuck derivation reproduces nothing)
    mismatched_words: int
    actions: np.ndarray  # action ids taken, all sentences concatenated (capacity inf: ids of the longest sentence)
    labels: np.ndarray  # label ids (-1: none), aligned with actions
    heads: np.ndarray  # final heads, CoNLL-U numbering, sentences concatenated (-1: none)
    starts: np.ndarray  # sentence i's actions and labels: actions[starts[i]:starts[i + 1]] (n_sent + 1 offsets)
    status: np.ndarray  # int32 per sentence: REPRODUCED, OTHER_TREE or STUCK

    REPRODUCED, OTHER_TREE, STUCK = 0, 1, 2
    """Per sentence: the oracle's actions end in its gold tree; in another tree (a terminal
    configuration, some gold arc lost); or nowhere: no action costs 0 (or the step limit),
    so the sequence stops short of a terminal configuration.  A tree outside the system's
    class (a non-projective tree for a projective system) ends OTHER_TREE or STUCK, never
    REPRODUCED; :meth:`CompiledSystem.derive` decides which trees a system derives."""

    def sequence(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Sentence ``i``'s actions and label ids (negative ``i`` counts from the end, as in a
        list; out of range: IndexError).  Check :attr:`status` before training on it: a
        STUCK sentence's actions stop before a terminal configuration."""
        a, b = _sentence_bounds(self.starts, i)
        return self.actions[a:b], self.labels[a:b]


@dataclass(frozen=True)
class Derivations:
    """The result of :meth:`CompiledSystem.derive`: per sentence, its canonical derivation."""

    actions: np.ndarray  # action ids, all sentences concatenated (capacity inf: ids of the longest sentence)
    labels: np.ndarray   # label ids (-1: none), aligned with actions
    starts: np.ndarray   # sentence i: actions[starts[i]:starts[i + 1]]
    status: np.ndarray   # per sentence: 1 derived, 0 not derivable, -1 over the search budget, -2 out of memory

    DERIVED, NOT_DERIVABLE, OVER_BUDGET, OUT_OF_MEMORY = 1, 0, -1, -2

    def sequence(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Sentence ``i``'s actions and label ids (empty unless it was derived; ``i`` as for
        :meth:`OraclePass.sequence`)."""
        a, b = _sentence_bounds(self.starts, i)
        return self.actions[a:b], self.labels[a:b]


@dataclass(frozen=True)
class Explored:
    """The result of :meth:`CompiledSystem.explore`: the configuration graph of one sentence
    length, nodes numbered breadth-first in the spec's action order (node 0 is initial)."""

    n: int
    actions: tuple[str, ...]  # action id -> name
    parent: np.ndarray        # int32 per node: BFS parent, -1 for node 0
    via: np.ndarray           # int32 per node: the action id from the parent
    terminal: np.ndarray      # bool per node
    edge_at: np.ndarray       # int64, nodes + 1: node k's edges are edge_at[k]:edge_at[k + 1]
    edge_child: np.ndarray    # int32 per edge, in the spec's action order
    edge_action: np.ndarray   # int32 per edge
    out_node: np.ndarray      # int32: the terminal nodes
    out_heads: np.ndarray     # int32 (terminals, n): their output heads after the end-of-parse rule, -1 none;
                              # multihead: the bit set of each word's heads (bit 0 the root)

    @property
    def size(self) -> int:
        return len(self.parent)

    def path_to(self, node: int) -> list[str]:
        """The shortest action sequence from the initial configuration to ``node``."""
        seq = []
        while self.parent[node] >= 0:
            seq.append(self.actions[self.via[node]])
            node = int(self.parent[node])
        return seq[::-1]

    def action_between(self, a: int, b: int) -> str:
        """The name of the first action leading from node ``a`` to node ``b``."""
        lo, hi = self.edge_at[a], self.edge_at[a + 1]
        k = lo + int(np.flatnonzero(self.edge_child[lo:hi] == b)[0])
        return self.actions[self.edge_action[k]]


ILLEGAL = -1_000_000_000  # the cost of an action that does not apply (kernel constant; costs may be negative)


def grown_derivations(run, n_sent: int, cap: int) -> Derivations:
    """The derivations a compiled search writes, in output buffers grown until they hold them:
    ``run(acts, labs, cap, starts, status)`` fills buffers of ``cap`` actions and returns the
    actions it wrote (or needed) and whether they overflowed.  A spec the search refuses
    (``ValueError``) is the user's mistake, said without a traceback."""
    starts = np.zeros(n_sent + 1, dtype=np.int32)
    status = np.zeros(max(n_sent, 1), dtype=np.int32)
    while True:
        acts = np.empty(cap, dtype=np.int32)
        labs = np.empty(cap, dtype=np.int32)
        try:
            T, overflow = run(acts, labs, cap, starts, status)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not overflow:
            return Derivations(acts[:T].copy(), labs[:T].copy(), starts.copy(), status[:n_sent].copy())
        cap = T + 16


class CompiledSystem:
    """Runs a system through its compiled kernel (see module docstring)."""

    def __init__(self, system: ir.System, gen: Generated, module, built=None):
        self.system = system
        self.gen = gen
        self.module = module
        self.built = built
        self.unbounded = system.unbounded
        self.action_names = list(gen.action_names)  # fixed action sets; per sentence length otherwise
        self.action_ids = {name: k for k, name in enumerate(self.action_names)}
        self._units = {key: u for u, key in enumerate(gen.unit_keys)}
        self._tables: dict[int, tuple[list[str], dict[str, int], np.ndarray]] = {}
        self.labels: list[str] = []
        self.label_ids: dict[str, int] = {}
        self._list_names = [d.name for d in system.lists]
        self._tflag_names = [name for name, _ in system.token_flags]
        self._gflag_names = [name for name, _ in system.global_flags]
        self._has_root = system.root != "none"

    @property
    def n_actions(self) -> int:
        """The number of actions (fixed action sets; see :meth:`actions_of` otherwise)."""
        return len(self.action_names)

    def _for_tokens(self, n_tokens: int):
        """Capacity inf: names, name -> id and the kernel's (unit, i0, i1) table for n tokens:
        each instance runs its family's unit with its own index values."""
        hit = self._tables.get(n_tokens)
        if hit is None:
            actions = self.system.actions_for(max(n_tokens, 1))
            table = np.zeros(3 * len(actions) + 3, dtype=np.int32)
            for k, a in enumerate(actions):
                unit = self._units.get(a.family)
                if unit is None:
                    raise UsageError(f"{self.system.name}: action {a.name} has no compiled family")
                idx = tuple(a.indexes) + (0, 0)
                table[3 * k:3 * k + 3] = (unit, idx[0], idx[1])
            names = [a.name for a in actions]
            hit = self._tables[n_tokens] = (names, {n: k for k, n in enumerate(names)}, table)
        return hit

    def _state(self, state):
        """``state``, checked to be a configuration of this system (a KState of its kernel):
        anything else would be read as C memory it is not."""
        if not isinstance(state, self.module.KState):
            hint = (" (apply() changes a configuration in place and returns None: keep the state you passed it)"
                    if state is None else "")
            raise UsageError(f"state: expected a configuration of {self.system.name} (from initial() or copy()), "
                             f"got {type(state).__name__}{hint}")
        return state

    def actions_of(self, state) -> list[str]:
        """The names of the actions of this configuration's kernel slots, in order."""
        self._state(state)
        if not self.unbounded:
            return self.action_names
        return self._for_tokens(state.n + (1 if self._has_root else 0))[0]

    def _ids(self, state) -> dict[str, int]:
        if not self.unbounded:
            return self.action_ids
        return self._for_tokens(state.n + (1 if self._has_root else 0))[1]

    def label_id(self, label: Optional[str]) -> int:
        """The id of a label (new labels get the next id); -1 for None."""
        if label is None:
            return -1
        k = self.label_ids.get(label)
        if k is None:
            k = self.label_ids[label] = len(self.labels)
            self.labels.append(label)
        return k

    # ---- the interpreter's API ----------------------------------------------------
    def initial(self, n: int):
        """The initial configuration for a sentence of ``n`` words (0..MAX_SENTENCE_LENGTH)."""
        n = sentence_length(n, "initial: the sentence length")  # 2.9 or True would be read as 2 or 1
        try:
            state = self.module.new_state(n)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if self.unbounded:
            names, _, table = self._for_tokens(n + (1 if self._has_root else 0))
            self.module.set_actions(state, table, len(names))
        return state

    def copy(self, state):
        return self.module.copy_state(self._state(state))

    def is_terminal(self, state) -> bool:
        return self.module.is_terminal(self._state(state))

    def legal(self, state) -> list[str]:
        mask = self.legal_mask(state)
        names = self.actions_of(state)
        return [names[k] for k in np.flatnonzero(mask)]

    def is_legal(self, state, name: str) -> bool:
        if not isinstance(name, str):
            raise UsageError(f"is_legal: expected an action name, got {type(name).__name__}")
        k = self._ids(self._state(state)).get(name.split(":", 1)[0])
        return k is not None and bool(self.legal_mask(state)[k])

    def apply(self, state, name, label=None) -> None:
        """Apply action ``name`` (or ``"NAME:label"``, or an integer action id: the slot of
        :meth:`legal_mask`) in place; ``label`` a label name or an integer label id.

        Raises:
            UsageError: unknown action, or not legal here.
        """
        self._state(state)
        k = integer_id(name, "apply: action")
        if k is not None:
            names = self.actions_of(state)
            if not 0 <= k < len(names):
                raise UsageError(f"no action id {k} for {self.system.name} (0..{len(names) - 1})")
            base = names[k]
        elif not isinstance(name, str):
            raise UsageError(f"apply: expected an action name or an integer id, got {type(name).__name__}")
        else:
            base, sep, inline = name.partition(":")
            if sep and label is None:
                label = inline
            k = self._ids(state).get(base)
            if k is None:
                raise UsageError(f"unknown action {base!r} for {self.system.name}")
        lab = integer_id(label, "apply: label")
        if lab is not None:
            if not -1 <= lab < len(self.labels):
                raise UsageError(f"no label id {lab} ({label_range(len(self.labels))})")
        elif label is not None and not isinstance(label, str):
            raise UsageError(f"apply: expected a label name or an integer id, got {type(label).__name__}")
        else:
            lab = self.label_id(label)
        r = self.module.apply(state, k, lab)
        if r == -2:
            raise UsageError(f"action {base!r} applied to a terminal configuration")
        if r < 0:
            raise UsageError(f"action {base!r} is not legal here")

    def output(self, state) -> Tree:
        """The tree built so far, in CoNLL-U numbering (as :meth:`Interpreter.output`)."""
        v = self.module.view(self._state(state))
        n, root = v["n"], v["root"]

        def out(h: int) -> Optional[int]:
            return None if h < 0 else (0 if h == root else h)

        def lab(k: int) -> Optional[str]:
            return self.labels[k] if 0 <= k < len(self.labels) else None

        words = range(1, n + 1)
        if v["arcs"] is not None:
            arcs = frozenset((out(h), d, lab(l)) for h, d, l in v["arcs"] if 1 <= d <= n)
            heads = [out(v["heads"][d]) for d in words]
            labels = [lab(v["labels"][d]) if heads[d - 1] is not None else None for d in words]
            return Tree(tuple(heads), tuple(labels), arcs)
        heads = [out(v["heads"][d]) for d in words]
        labels = [lab(v["labels"][d]) if heads[d - 1] is not None else None for d in words]
        self.system.finish(heads, labels)
        return Tree(tuple(heads), tuple(labels))

    def snapshot(self, state) -> dict:
        """The same comparable view as :meth:`Interpreter.snapshot`."""
        v = self.module.view(self._state(state))
        if v["arcs"] is not None:
            arcs = frozenset((h, d) for h, d, _ in v["arcs"])
        else:
            arcs = frozenset((h, d) for d, h in enumerate(v["heads"]) if h >= 0)
        return {
            "lists": {name: tuple(v["lists"][k]) for k, name in enumerate(self._list_names)},
            "arcs": arcs,
            "token_flags": {name: frozenset(t for t, x in enumerate(v["tflags"][k]) if x)
                            for k, name in enumerate(self._tflag_names)},
            "global_flags": {name: bool(v["gflags"][k]) for k, name in enumerate(self._gflag_names)},
        }

    # ---- batch operations -----------------------------------------------------------
    def legal_mask(self, state, out: Optional[np.ndarray] = None) -> np.ndarray:
        """uint8 mask of the legal actions (GIL released)."""
        out = out_buffer(out, self.module.n_actions(self._state(state)), np.uint8, "legal_mask out")
        self.module.legal_mask(state, out)
        return out

    def attach_gold(self, state, heads: Sequence[int], labels: Optional[Sequence[str]] = None) -> None:
        """Attach a gold tree (CoNLL-U heads, optional label strings) for costs and losses
        (checked as :func:`check_gold_trees` does)."""
        self._state(state)
        ids = None if labels is None else [self.label_id(l) for l in labels]
        flat = flat_ints([heads], "gold heads")
        check_gold_trees(flat, np.array([0, len(flat)]))
        try:
            gold = self.module.KGold(list(heads), ids)
            self.module.attach_gold(state, gold)
        except ValueError as exc:
            raise UsageError(str(exc)) from None

    def loss_index(self, oracle: Optional[str] = None, loss: Optional[str] = None) -> int:
        """The kernel's index of a declared oracle's loss (first oracle / first loss by default)."""
        if not self.gen.losses:
            raise OracleError.undeclared(self.system)
        oracle = oracle if oracle is not None else self.gen.losses[0][0]
        for k, (o, l) in enumerate(self.gen.losses):
            if o == oracle and (loss is None or l == loss):
                return k
        raise OracleError(f"{self.system.name} has no oracle loss {oracle or ''}{'/' + loss if loss else ''}")

    def costs(self, state, out: Optional[np.ndarray] = None, *, oracle: Optional[str] = None,
              loss: Optional[str] = None) -> np.ndarray:
        """int32 cost of every action under the attached gold tree (:data:`ILLEGAL`: not legal)."""
        out = out_buffer(out, self.module.n_actions(self._state(state)), np.int32, "costs out")
        try:
            self.module.costs(state, self.loss_index(oracle, loss), out)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return out

    def costs_dict(self, state, **kw) -> dict[str, int]:
        """{legal action: cost}, in action order (as :meth:`FastOracle.costs`)."""
        arr = self.costs(state, **kw)
        names = self.actions_of(state)
        return {names[k]: int(c) for k, c in enumerate(arr) if c != ILLEGAL}

    def loss(self, state, *, oracle: Optional[str] = None, loss: Optional[str] = None) -> int:
        try:
            return self.module.loss(self._state(state), self.loss_index(oracle, loss))
        except ValueError as exc:
            raise UsageError(str(exc)) from None

    def run(self, state, actions: Sequence[int], labels: Optional[Sequence[int]] = None) -> int:
        """Apply a sequence of action ids (and label ids: any id >= 0, as an oracle pass with
        ``n_labels`` gives them, or -1 for none; :meth:`output` names those in :attr:`labels`);
        returns how many applied: it stops at the first that is not legal."""
        self._state(state)
        acts = int_vector(actions, "run: actions")
        labs = None if labels is None else int_vector(labels, "run: labels")
        if labs is not None and len(labs) != len(acts):
            raise UsageError(f"{len(acts)} actions but {len(labs)} labels")
        if labs is not None and len(labs) and labs.min() < -1:
            raise UsageError(f"run: label id {int(labs.min())}: label ids are 0 or more (-1: none)")
        return self.module.run(state, acts.astype(np.int32),
                               None if labs is None else labs.astype(np.int32), len(acts))

    @staticmethod
    def pack(heads: Sequence[Sequence[int]], labels: Optional[Sequence[Sequence[int]]] = None,
             n_labels: int = 0) -> "Treebank":
        """Lay gold trees out once for repeated :meth:`oracle_pass` calls (label ids optional:
        ``labels`` with ``n_labels`` > 0, every id in 0..n_labels-1).  The trees are checked
        here, once (:func:`check_gold_trees`); a packed treebank is not checked again.

        Raises:
            UsageError: a head that is not an integer, out of range, a word's own, or on a
                cycle; a sentence longer than :data:`~tsdsl.kernels.arguments.MAX_SENTENCE_LENGTH`;
                labels that do not align with the heads or lie out of range; labels without
                ``n_labels``, or a negative ``n_labels``.
        """
        n_labels = count(n_labels, "n_labels")
        if labels is not None and n_labels == 0:
            raise UsageError("labels need n_labels (the number of label ids)")
        flat = flat_ints(heads, "gold heads")
        lengths = np.fromiter((len(h) for h in heads), dtype=np.int64, count=len(heads))
        offsets = np.zeros(len(heads) + 1, dtype=np.int32)
        sentence_lengths(lengths, "gold heads")  # a longer sentence would overflow the kernel's int arithmetic
        np.cumsum(lengths, out=offsets[1:])
        check_gold_trees(flat, offsets)
        flat_labels = None
        if labels is not None:
            if len(labels) != len(heads) or any(len(l) != len(h) for l, h in zip(labels, heads)):
                raise UsageError("labels: expected one label id per word of every sentence")
            flat_labels = flat_ints(labels, "labels")
            check_label_ids(flat_labels, offsets, n_labels)
        else:
            n_labels = 0
        return Treebank(flat, offsets, flat_labels, n_labels)

    def oracle_pass(self, heads, labels: Optional[Sequence[Sequence[int]]] = None, n_labels: int = 0, *,
                    oracle: Optional[str] = None, loss: Optional[str] = None, copy: bool = True,
                    fast: bool = True) -> OraclePass:
        """Follow the declared oracle over many sentences (GIL released), see the kernel's
        ``oracle_pass``: at each step every action's legality and cost (every label too
        when ``labels`` and ``n_labels`` are given), the first zero-cost action taken.

        ``heads`` is a list of gold head sequences (CoNLL-U numbering) or a
        :class:`Treebank` from :meth:`pack` (then ``labels`` come from it).  Either way the
        trees are checked once, by :meth:`pack` (:func:`check_gold_trees`: a head out of
        range, a self-loop or a cycle is a UsageError, as in :meth:`batch`), never per step.
        A packed treebank keeps its output buffers between calls; with ``copy=False`` the
        result's arrays are those buffers, valid until the next pass over it.
        ``fast=False`` takes the generic pass where the kernel also has the pass on records
        (``FAST_OPASS``, see :mod:`.emit_opass`): the same results, for comparing them.
        """
        ol = self.loss_index(oracle, loss)
        if isinstance(heads, Treebank) and (labels is not None or n_labels):
            raise UsageError("a packed treebank brings its own labels: give them to pack()")
        tb = heads if isinstance(heads, Treebank) else self.pack(heads, labels, n_labels)
        n_sent = len(tb.offsets) - 1
        cap = int(4 * (len(tb.heads) + n_sent) + 16)
        table, nact = None, 0
        if self.unbounded:
            longest = int(np.diff(tb.offsets).max()) if n_sent else 0
            names, _, table = self._for_tokens(longest + (1 if self._has_root else 0))
            nact = len(names)
        while True:
            bufs = tb.buffers
            if bufs.get("cap", 0) < cap:
                bufs.update(cap=cap, minus_ones=0, acts=np.empty(cap, dtype=np.int32), labs=np.empty(cap, dtype=np.int32),
                            heads=np.empty(len(tb.heads), dtype=np.int32),
                            starts=np.empty(n_sent + 1, dtype=np.int32), status=np.empty(n_sent, dtype=np.int32))
            cap = bufs["cap"]
            acts, labs, out_heads, starts, status = (bufs[k] for k in ("acts", "labs", "heads", "starts", "status"))
            try:
                T, stuck, bad_s, bad_w, overflow = self.module.oracle_pass(
                    tb.heads, tb.offsets, n_sent, tb.labels if tb.n_labels else None, tb.n_labels, ol,
                    acts, labs, cap, out_heads, table, nact, starts, status, fast)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            if not overflow:
                if not tb.n_labels and bufs.get("minus_ones", 0) < T:
                    # the unlabeled pass writes no labels: -1 once per buffer, kept (the view
                    # given out with copy=False is read-only)
                    labs[:T] = -1
                    bufs["minus_ones"] = T
                if copy:
                    return OraclePass(T, stuck, bad_s, bad_w, acts[:T].copy(), labs[:T].copy(), out_heads.copy(),
                                      starts.copy(), status.copy())
                labs_view = labs[:T]
                labs_view.setflags(write=False)
                return OraclePass(T, stuck, bad_s, bad_w, acts[:T], labs_view, out_heads, starts, status)
            cap = 2 * T + 16


    def batch(self, sentences, gold_heads: Optional[Sequence[Sequence[int]]] = None,
              gold_labels: Optional[Sequence[Sequence[int]]] = None, n_labels: int = 0, *,
              select: Optional[Sequence[int]] = None) -> StateBatch:
        """B initial configurations stepped together through arrays (a :class:`StateBatch`).

        ``sentences``: the sentence lengths (each in 0..
        :data:`~tsdsl.kernels.arguments.MAX_SENTENCE_LENGTH`), with optional gold trees (``gold_heads``: one
        CoNLL-U head sequence per sentence; ``gold_labels``: label ids in 0..n_labels-1) for
        costs and losses; or a packed :class:`Treebank` (:meth:`pack`), whose gold trees come
        with it, and ``select`` the sentences to take: their indexes, or a boolean mask with one
        entry per sentence (default: all).
        Capacity inf: every configuration gets the action slots of the longest sentence.
        """
        if isinstance(sentences, Treebank):
            tb = sentences
            if gold_heads is not None or gold_labels is not None:
                raise UsageError("a packed treebank brings its own gold trees")
            idx = selection(select, tb.sentences)
            starts, ends = tb.offsets[:-1][idx], tb.offsets[1:][idx]
            lengths = (ends - starts).astype(np.int32)
            if len(idx):
                words = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends)]).astype(np.int64)
            else:
                words = np.empty(0, dtype=np.int64)
            flat = np.ascontiguousarray(tb.heads[words], dtype=np.int32)
            flat_labels = None if not tb.n_labels else np.ascontiguousarray(tb.labels[words], dtype=np.int32)
            n_labels = tb.n_labels
        else:
            if select is not None:
                raise UsageError("select needs a packed treebank")
            lengths = sentence_lengths(list(sentences), "sentences")  # checked before any int32 cast
            flat = flat_labels = None
            n_labels = count(n_labels, "n_labels")
            if gold_heads is not None:
                if len(gold_heads) != len(lengths) or any(len(h) != n for h, n in zip(gold_heads, lengths)):
                    raise UsageError("gold_heads: expected one head per word of every sentence")
                flat = self.pack(gold_heads).heads  # checked there
            if gold_labels is not None:
                if gold_heads is None:
                    raise UsageError("gold_labels need gold_heads")
                if n_labels <= 0:
                    raise UsageError("gold_labels need n_labels (the number of label ids)")
                if len(gold_labels) != len(lengths) or any(len(l) != n for l, n in zip(gold_labels, lengths)):
                    raise UsageError("gold_labels: expected one label id per word of every sentence")
                flat_labels = flat_ints(gold_labels, "gold_labels")
                check_label_ids(flat_labels, np.concatenate([[0], np.cumsum(lengths)]), n_labels)
        table, nact, names = None, 0, self.action_names
        if self.unbounded:
            longest = int(lengths.max()) if len(lengths) else 0
            names, _, table = self._for_tokens(longest + (1 if self._has_root else 0))
            nact = len(names)
        try:
            kb = self.module.KBatch(lengths, len(lengths), flat, flat_labels, int(n_labels), table, nact)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        units = self.module.info()["labeled"]
        takes_label = [bool(units[int(table[3 * k])] if self.unbounded else units[k]) for k in range(len(names))]
        return StateBatch(self, kb, names, self.loss_index, takes_label)

    def canonical_order(self) -> Optional[list[int]]:
        """The order in which the search tries actions, each group in spec order: those that
        build arcs; then the others that leave the buffer-like lists as they are (REDUCE,
        Covington's NO-ARC); last those that read from or put back into a buffer-like list
        (SHIFT, SWAP).  Building arcs as soon as the gold tree allows and reading input as late
        as it allows keeps the search from wandering.  None for capacity inf: spec order."""
        if self.unbounded:
            return None
        actions = self.system.actions
        buffers = [k for k, d in enumerate(self.system.lists) if d.open_end == "L"]

        def rank(a) -> int:
            if any(c.arcs for c in a.cases):
                return 0
            case = a.cases[0]
            moves = any(sum(ir.item_width(i) for i in case.match[k].items)
                        != sum(ir.item_width(i) for i in case.result[k]) for k in buffers)
            return 2 if moves else 1

        return sorted(range(len(actions)), key=lambda k: (rank(actions[k]), k))

    def derive(self, heads, labels: Optional[Sequence[Sequence[int]]] = None, n_labels: int = 0, *,
               budget: int = 100_000, order="canonical", strict: bool = False,
               gap: Optional[int] = None, bottom_up: bool = False,
               anchor: Optional[int] = None, guide=None) -> Derivations:
        """The canonical derivation of every gold tree, by search (GIL released): at each step
        the first action, in ``order``, from which the gold tree is still derivable; arcs
        labeled with the gold labels.  ``budget`` bounds the configurations expanded per
        sentence.  Works for any spec, with or without an oracle block (not multihead).

        ``heads`` as for :meth:`oracle_pass` (gold head sequences or a packed treebank).
        ``order``: ``"canonical"`` (:meth:`canonical_order`: arcs first, input last; the search
        then rarely backtracks), ``"spec"`` (the spec's order), or action ids.  ``strict``: only
        derivations that never build a wrong arc (in a non-monotonic system a tree that is not
        found this way may still be derivable).  ``gap``: the arc gap G proved for the spec by
        ``tsdsl.verify.planar.arc_gap`` (tokens never change places, arcs span at most G
        tokens), which lets the search drop every configuration whose remaining gold arcs hold
        a blocked core; None: no such proof, no pruning.  ``bottom_up``: also proved
        (``planar.takes_dependents``) that every arc takes its dependent out of the lists;
        ``anchor``: the list whose last token is every arc's later end (``planar.anchored_list``).  A
        wrong proof gives wrong answers: pass only what the proof returned.

        ``guide``: None, or ``(lists, kinds)`` from ``tsdsl.verify.planar.reordering`` (the
        lists whose concatenation is the sequence; per action 1 builds an arc, 2 may reorder
        the sequence, 0 other): each configuration then tries arcs first, then the reordering
        actions that bring the sequence closer to the gold tree's projective order, then the
        others in ``order``, then the reordering actions that move it away (Nivre 2009's static
        oracle for SWAP, read generically), found without backtracking.  Training, coverage,
        verify and ``trace --gold`` pass it (``tsdsl.learn.derive.search_options``); the status
        (found, none, over budget) means the same as without it.
        """
        if order == "canonical":
            order = self.canonical_order()
        elif order == "spec":
            order = None
        tb = heads if isinstance(heads, Treebank) else self.pack(heads, labels, n_labels)
        n_sent = tb.sentences
        table, nact = None, 0
        if self.unbounded:
            longest = int(np.diff(tb.offsets).max()) if n_sent else 0
            names, _, table = self._for_tokens(longest + (1 if self._has_root else 0))
            nact = len(names)
        order_arr = None if order is None else np.asarray(order, dtype=np.int32)
        search = self.search_arguments(gap, bottom_up, anchor, guide)

        def run(acts, labs, cap, starts, status):
            return self.module.derive(tb.heads, tb.offsets, n_sent, tb.labels if tb.n_labels else None,
                                      int(budget), acts, labs, cap, starts, status, table, nact, order_arr,
                                      bool(strict), **search)

        return grown_derivations(run, n_sent, int(2 * (tb.words + n_sent) + 16))

    def free_actions(self, heads: Sequence[int], prefix: Sequence[int] = (), labels: Optional[Sequence[int]] = None,
                     *, budget: int = 100_000, order="canonical", gap: Optional[int] = None,
                     bottom_up: bool = False, anchor: Optional[int] = None, guide=None) -> np.ndarray:
        """What training with the oracle by search takes as free (``tsdsl train --oracle search``):
        for the gold tree ``heads`` (CoNLL-U numbering; ``labels``: label ids or None) and the
        configuration that the action ids ``prefix`` reach from the initial one, int32 per
        action: 1 the gold tree is still derivable after it, 0 not (or not found within
        ``budget`` configurations), -1 not legal.  ``order``, ``gap``, ``bottom_up``, ``anchor``
        and ``guide`` as for :meth:`derive` (training passes ``tsdsl.learn.derive.search_options``)."""
        if order == "canonical":
            order = self.canonical_order()
        elif order == "spec":
            order = None
        out = np.empty(len(self.action_names), dtype=np.int32)
        self.module.free_actions(np.asarray(heads, dtype=np.int32),
                                 None if labels is None else np.asarray(labels, dtype=np.int32),
                                 np.asarray(prefix, dtype=np.int32),
                                 None if order is None else np.asarray(order, dtype=np.int32), int(budget), out,
                                 **self.search_arguments(gap, bottom_up, anchor, guide))
        return out

    def search_arguments(self, gap: Optional[int] = None, bottom_up: bool = False, anchor: Optional[int] = None,
                         guide=None) -> dict:
        """The keyword arguments of the kernel's searches (``derive``, ``free_actions``,
        ``train_searched``) for the pruning and guide of :meth:`derive`."""
        g_lists = g_kinds = None
        if guide is not None:
            if self.unbounded:
                raise UsageError("a guided search needs a bounded action set")
            g_lists = np.asarray(guide[0], dtype=np.int32)
            g_kinds = np.asarray(guide[1], dtype=np.int32)
            if len(g_kinds) != len(self.action_names):
                raise UsageError(f"guide: expected one kind per action ({len(self.action_names)}), got {len(g_kinds)}")
        return dict(gap=-1 if gap is None else int(gap), bottom_up=bool(bottom_up),
                    anchor=-1 if anchor is None else int(anchor), guide_lists=g_lists, guide_kinds=g_kinds)

    def explore(self, n: int, *, limit: int = 2_000_000) -> Optional[Explored]:
        """Every configuration reachable for ``n`` words, breadth-first in compiled code (GIL
        released), arcs unlabeled; None when there are more than ``limit``.  The same graph,
        node for node, as the interpreter's exploration.  Multihead systems (n <= 30): each
        output row holds one bit set of heads per word (bit 0 the root)."""
        table, nact = None, 0
        names = self.action_names
        if self.unbounded:
            names, _, table = self._for_tokens(n + (1 if self._has_root else 0))
            nact = len(names)
        try:
            r = self.module.explore(int(n), int(limit), table, nact)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if r[0] < 0:
            return None
        parent, via, term, edge_at, child, act, out_node, out_heads = r[1:]
        i32 = np.int32
        return Explored(n, tuple(names), np.frombuffer(parent, i32), np.frombuffer(via, i32),
                        np.frombuffer(term, np.uint8).astype(bool), np.frombuffer(edge_at, np.int64),
                        np.frombuffer(child, i32), np.frombuffer(act, i32), np.frombuffer(out_node, i32),
                        np.frombuffer(out_heads, i32).reshape(len(out_node) // 4, n))

    def graph_cycle(self, g: Explored) -> Optional[list[int]]:
        """A cycle of ``g`` (node ids, the first repeated at the end), or None."""
        return self.module.graph_cycle(g.edge_at, g.edge_child, g.size)

    def graph_longest(self, g: Explored) -> tuple[int, int]:
        """The longest path from the initial configuration of the acyclic ``g``: (length, end)."""
        return self.module.graph_longest(g.edge_at, g.edge_child, g.size)


@dataclass(frozen=True)
class Treebank:
    """Gold trees laid out for the kernel: heads and labels concatenated, sentence offsets."""

    heads: np.ndarray
    offsets: np.ndarray
    labels: Optional[np.ndarray]
    n_labels: int
    buffers: dict = field(default_factory=dict, compare=False, repr=False)  # reused output arrays

    @property
    def words(self) -> int:
        return len(self.heads)

    @property
    def sentences(self) -> int:
        return len(self.offsets) - 1
