"""A batch of configurations as arrays: the API a neural parser steps through.

:meth:`CompiledSystem.batch <tsdsl.kernels.compiled.CompiledSystem.batch>` makes a
:class:`StateBatch`: B configurations of B sentences held in one block of C memory by the
kernel (``_batch.pxi``, generic, so every spec's kernel has it).  Each call works on the
whole batch in one Cython loop without the GIL and reads or writes numpy arrays:

- ``legal_mask()`` -> uint8 ``[B, A]``; ``is_terminal()`` -> bool ``[B]``;
- ``costs()`` -> int32 ``[B, A, L]`` (labeled) or ``[B, A]`` under the gold trees;
- ``best_outputs()`` -> :class:`BestOutputs`: the legal outputs of least cost and whether that
  cost is 0; ``free_outputs()`` -> bool mask of the legal outputs that cost 0, or
  :class:`NoFreeOutput` when a configuration has none (never a silent pick of action 0);
- ``apply(actions[B], labels[B])`` with integer action and label ids (-1: leave that
  configuration alone, e.g. a finished one);
- views of the configurations, copied once into arrays the caller may provide: ``lists()``
  (tokens of every list, padded with -1, and the lengths), ``places()`` (the list and index
  of every token), ``heads()`` and ``labels()`` (``finished=True``: with the spec's
  end-of-parse attachments, labeled ``root_label``).

Every array is checked here for its dtype, shape, contiguity and writability, with a
:class:`~tsdsl.errors.UsageError` that says what was expected; the kernel checks sizes again.
Tokens are in CoNLL-U numbering (words 1..n, the root 0) in every view.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

import numpy as np

from ..errors import UsageError
from .arguments import label_range

_APPLY_ERRORS = {-1: "is not legal", -2: "was given to a terminal configuration"}  # -3, -4: see apply


def _out(out: Optional[np.ndarray], shape: tuple[int, ...], dtype, what: str) -> np.ndarray:
    """``out`` checked to be a writeable C-contiguous array of this shape and dtype (or a new one)."""
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise UsageError(f"{what}: expected a numpy array, got {type(out).__name__}")
    if out.dtype != np.dtype(dtype):
        raise UsageError(f"{what}: expected dtype {np.dtype(dtype).name}, got {out.dtype.name}")
    if out.shape != shape:
        raise UsageError(f"{what}: expected shape {shape}, got {out.shape}")
    if not out.flags.c_contiguous:
        raise UsageError(f"{what}: expected a C-contiguous array")
    if not out.flags.writeable:
        raise UsageError(f"{what}: the array is read-only")
    return out


def _ids(values, size: int, what: str) -> np.ndarray:
    """Integer ids, one per configuration, as a C-contiguous int32 array (one copy at most)."""
    arr = np.asarray(values)
    if arr.shape != (size,):
        raise UsageError(f"{what}: expected shape ({size},), got {arr.shape}")
    if arr.dtype.kind not in "iu" and size > 0:
        raise UsageError(f"{what}: expected integer ids, got dtype {arr.dtype.name}")
    if arr.dtype != np.int32:
        if size and (arr.min() < -(2 ** 31) or arr.max() >= 2 ** 31):
            raise UsageError(f"{what}: ids out of the int32 range")
        arr = arr.astype(np.int32)
    return np.ascontiguousarray(arr)


class BestOutputs(NamedTuple):
    """What :meth:`StateBatch.best_outputs` returns: per configuration, the legal outputs of
    least cost.

    Attributes:
        mask: bool, the shape of the costs (``[B, A, L]`` labeled, ``[B, A]`` unlabeled): True
            at the legal outputs whose cost is the least legal cost of their configuration.
            An illegal output is never True; a row is all False only where no output is
            legal (a terminal configuration, or a dead end).
        cost: int32 ``[B]``: that least cost; -1 where no output is legal.
        free: bool ``[B]``: whether the least cost is 0, i.e. some legal output loses no
            gold arc.  False where every legal output costs more: the gold tree cannot be
            reached any more (non-projective gold under a projective system, or an earlier
            mistake), and the mask holds the outputs that lose least.
    """

    mask: np.ndarray
    cost: np.ndarray
    free: np.ndarray


class NoFreeOutput(ValueError):
    """:meth:`StateBatch.free_outputs`: some configuration that is not terminal has no legal
    output of cost 0.  ``rows`` lists them (int array); ``best`` is the
    :class:`BestOutputs` of the whole batch, whose mask holds their least-cost outputs."""

    def __init__(self, rows: np.ndarray, best: BestOutputs):
        self.rows, self.best = rows, best
        shown = ", ".join(str(int(r)) for r in rows[:5]) + (", ..." if len(rows) > 5 else "")
        dead = int((best.cost[rows] < 0).sum())
        why = (f"{dead} of them ha{'s' if dead == 1 else 've'} no legal output (a dead end); " if dead else "")
        super().__init__(
            f"configuration{'s' if len(rows) > 1 else ''} {shown}: no legal output costs 0 ({why}the gold "
            "tree cannot be reached any more, e.g. non-projective gold under a projective system); "
            "best_outputs() gives the least-cost outputs and a per-configuration flag")


class StateBatch:
    """B configurations stepped together (see the module docstring).

    Attributes:
        size: B, the number of configurations.
        n_actions: A, action slots per configuration (capacity inf: the actions of the
            longest sentence, shared by all; :attr:`action_names` names them).
        n_labels: L, label ids 0..L-1 (0 when the batch was made without gold labels).
        max_len: the longest sentence + 1: the width of :meth:`lists`, :meth:`heads` ...
        action_names: the name of each action id; takes_label: bool [A], whether the action
            builds a labeled arc (so that its label id matters).
        lengths: int32 [B], each configuration's sentence length.
        n_lists, list_names: the spec's lists, in the order of :meth:`lists`.
        open_ends: per list, the end its rules read and write: ``"R"`` for a stack-like list
            (its top is the last token of :meth:`lists`), ``"L"`` for a buffer-like one (its
            front is the first).
        system: the :class:`~tsdsl.kernels.compiled.CompiledSystem` the batch belongs to.
    """

    def __init__(self, system, kbatch, action_names: Sequence[str], loss_index, takes_label: Sequence[bool]):
        self.system = system  # the CompiledSystem: label names, loss lookup
        self._k = kbatch
        self.action_names = list(action_names)
        self.takes_label = np.array(takes_label, dtype=np.bool_)  # per action: builds a labeled arc
        self.takes_label.setflags(write=False)
        self._loss_index = loss_index
        self.size = kbatch.size
        self.n_actions = kbatch.n_actions
        self.n_labels = kbatch.n_labels
        self.n_lists = len(system.system.lists)
        self.list_names = [d.name for d in system.system.lists]
        self.open_ends = [d.open_end for d in system.system.lists]
        self.max_len = kbatch.max_n + 1
        self.lengths = np.empty(self.size, dtype=np.int32)
        kbatch.lengths(self.lengths)
        self.lengths.setflags(write=False)

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return (f"<StateBatch of {self.size} configurations of {self.system.system.name}: "
                f"{self.n_actions} actions, {self.n_labels} labels, sentences up to {self.max_len - 1} words>")

    # ---- stepping ---------------------------------------------------------------
    def is_terminal(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """bool [B]: which configurations are terminal."""
        out = _out(out, (self.size,), np.bool_, "is_terminal out")
        self._k.is_terminal(out)
        return out

    @property
    def done(self) -> bool:
        """Whether every configuration is terminal."""
        return self._k.is_terminal(np.empty(self.size, dtype=np.bool_)) == self.size

    def legal_mask(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """uint8 [B, A]: 1 where an action is legal (a terminal configuration's row is all 0)."""
        out = _out(out, (self.size, self.n_actions), np.uint8, "legal_mask out")
        self._k.legal_mask(out)
        return out

    def costs(self, out: Optional[np.ndarray] = None, *, labeled: Optional[bool] = None,
              oracle: Optional[str] = None, loss: Optional[str] = None) -> np.ndarray:
        """int32 cost of every action under the gold trees, by the declared oracle's loss
        (ILLEGAL, -10^9, where an action is not legal; a terminal configuration's row is all
        ILLEGAL).

        Labeled (the default when the batch has gold labels): shape [B, A, L].  The cost of
        action a with label l is a's unlabeled cost, plus 1 when a builds the gold arc h -> d
        (h is d's gold head) and l is not d's gold label; an action that builds no labeled
        arc costs the same under every label.  Unlabeled: shape [B, A].
        """
        if labeled is None:
            labeled = self._k.has_gold_labels
        if labeled and not self._k.has_gold_labels:
            raise UsageError("labeled costs need gold labels: make the batch with gold_labels and n_labels")
        if not self._k.has_gold:
            raise UsageError("costs need gold trees: make the batch with gold_heads")
        ol = self._loss_index(oracle, loss)
        shape = (self.size, self.n_actions, self.n_labels) if labeled else (self.size, self.n_actions)
        out = _out(out, shape, np.int32, "costs out")
        self._k.costs(ol, out, bool(labeled))
        return out

    def best_outputs(self, *, labeled: Optional[bool] = None, oracle: Optional[str] = None,
                     loss: Optional[str] = None) -> BestOutputs:
        """The legal outputs of least cost of every configuration (:class:`BestOutputs`), with
        the costs of :meth:`costs` (same arguments).  Illegal outputs never count: a row's
        least cost is taken over its legal outputs only, so neither ILLEGAL (-10^9) nor an
        illegal output's slot can be picked.  ``free[b]`` says whether that cost is 0.

        Outputs are (action, label) pairs when labeled: an action that builds no labeled arc
        costs the same under every label, so it is marked under every label (one output,
        whatever label ``apply`` is given)."""
        costs = self.costs(labeled=labeled, oracle=oracle, loss=loss)
        legal = self.legal_mask().astype(np.bool_)
        if costs.ndim == 3:
            legal = np.repeat(legal[:, :, None], costs.shape[2], axis=2)
        flat_costs, flat_legal = costs.reshape(self.size, -1), legal.reshape(self.size, -1)
        any_legal = flat_legal.any(axis=1) if flat_legal.shape[1] else np.zeros(self.size, dtype=np.bool_)
        big = np.iinfo(np.int32).max
        least = np.where(flat_legal, flat_costs, big).min(axis=1, initial=big)
        mask = (flat_legal & (flat_costs == least[:, None])).reshape(costs.shape)
        cost = np.where(any_legal, least, -1).astype(np.int32)
        return BestOutputs(mask, cost, cost == 0)

    def free_outputs(self, *, labeled: Optional[bool] = None, oracle: Optional[str] = None,
                     loss: Optional[str] = None) -> np.ndarray:
        """bool mask, the shape of :meth:`costs` (same arguments): True at the legal outputs
        that cost 0 (follow any of them and the gold loss stays what it is).  A terminal
        configuration's row is all False.

        Raises:
            NoFreeOutput: some configuration that is not terminal has no legal output of cost
                0 (its ``rows`` name them); take the least-cost outputs from
                :meth:`best_outputs` there.
        """
        best = self.best_outputs(labeled=labeled, oracle=oracle, loss=loss)
        stuck = np.flatnonzero(~best.free & ~self.is_terminal())
        if len(stuck):
            raise NoFreeOutput(stuck, best)
        return best.mask

    def loss(self, out: Optional[np.ndarray] = None, *, oracle: Optional[str] = None,
             loss: Optional[str] = None) -> np.ndarray:
        """int32 [B]: each configuration's loss under its gold tree (the declared oracle's)."""
        if not self._k.has_gold:
            raise UsageError("losses need gold trees: make the batch with gold_heads")
        ol = self._loss_index(oracle, loss)
        out = _out(out, (self.size,), np.int32, "loss out")
        self._k.loss(ol, out)
        return out

    def apply(self, actions, labels=None) -> None:
        """Apply ``actions[b]`` (integer action ids; -1 leaves configuration b as it is) with
        label ids ``labels[b]`` (-1 or None: no label) to every configuration at once.  Label
        ids are checked against ``n_labels`` when the batch has one; a batch made with
        ``n_labels=0`` (no labels named) stores any id >= 0 as given (a parser's own label ids).

        Raises:
            UsageError: a wrong shape or dtype, or an action that is not legal, not an action,
                given to a terminal configuration or with a label out of range.  The first
                such configuration is named and none is changed.
        """
        acts = _ids(actions, self.size, "actions")
        labs = None if labels is None else _ids(labels, self.size, "labels")
        bad, code = self._k.apply(acts, labs)
        if bad >= 0:
            a = int(acts[bad])
            if code == -3:
                raise UsageError(f"configuration {bad}: action id {a} is out of range 0..{self.n_actions - 1}; "
                                 f"no configuration was changed")
            what = (f"has label id {int(labs[bad])}, out of range ({label_range(self.n_labels)}; -1: none)"
                    if code == -4 else _APPLY_ERRORS[code])
            raise UsageError(f"configuration {bad}: action {self.action_names[a]} (id {a}) {what}; "
                             f"no configuration was changed")

    # ---- views ------------------------------------------------------------------------
    def lists(self, out: Optional[np.ndarray] = None,
              lengths: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
        """int32 [B, n_lists, max_len]: each list's tokens in reading order (the spec's list
        order, :attr:`list_names`), padded with -1; and int32 [B, n_lists]: their lengths.
        For a stack ``σ`` the top is the last token, for a buffer ``β`` the front is the first."""
        out = _out(out, (self.size, self._k.n_lists, self.max_len), np.int32, "lists out")
        lengths = _out(lengths, (self.size, self._k.n_lists), np.int32, "list lengths out")
        self._k.lists(out, lengths, self.max_len)
        return out, lengths

    def places(self, where: Optional[np.ndarray] = None,
               index: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
        """int32 [B, max_len] twice: per token (slot 0 the root, t the word t) the list holding
        it and its index in that list in reading order; -1 for a token in no list and padding."""
        where = _out(where, (self.size, self.max_len), np.int32, "places where")
        index = _out(index, (self.size, self.max_len), np.int32, "places index")
        self._k.places(where, index, self.max_len)
        return where, index

    def heads(self, out: Optional[np.ndarray] = None, *, finished: bool = False) -> np.ndarray:
        """int32 [B, max_len]: the head of each word d (slot d, CoNLL-U numbering; -1: none
        yet), slot 0 and padding -1.  ``finished=True`` gives headless words the head the
        output would (the spec's ``attach headless to root``, or the one headless word of a
        rootless system), as scored at the end of a parse."""
        out = _out(out, (self.size, self.max_len), np.int32, "heads out")
        self._check_single_head()
        self._k.heads(out, None, self.max_len, bool(finished))
        return out

    def labels(self, out: Optional[np.ndarray] = None, *, finished: bool = False,
               root_label: Optional[int] = None) -> np.ndarray:
        """int32 [B, max_len]: the label id of each word's arc (-1: none), as :meth:`heads`.

        ``finished=True`` goes with ``heads(finished=True)``: the words that only the spec's
        end-of-parse rule attaches (no action labeled them) get ``root_label``.  A trained
        parser (:mod:`tsdsl.learn.parser`, through ``System.finish``) gives them its root
        label, the commonest label of root arcs in its training data: pass that label's id.
        It is required, because the batch knows no label names (-1 leaves those words
        unlabeled, and so wrong in a labeled score).

        Raises:
            UsageError: ``finished=True`` without ``root_label``, a ``root_label`` outside
                -1..n_labels-1, or a ``root_label`` without ``finished=True``.
        """
        out = _out(out, (self.size, self.max_len), np.int32, "labels out")
        self._check_single_head()
        if not finished:
            if root_label is not None:
                raise UsageError("labels: root_label goes with finished=True (the words the end-of-parse rule "
                                 "attaches)")
            self._k.heads(np.empty((self.size, self.max_len), dtype=np.int32), out, self.max_len, False)
            return out
        if root_label is None:
            raise UsageError("labels(finished=True) needs root_label: the label id for the words that the "
                             "end-of-parse rule attaches to the root (a parser's root label; -1: none)")
        if isinstance(root_label, (bool, np.bool_)) or not isinstance(root_label, (int, np.integer)) \
                or root_label < -1 or (self.n_labels and root_label >= self.n_labels):
            what = f"in 0..{self.n_labels - 1}" if self.n_labels else "(0 or more: this batch names no labels)"
            raise UsageError(f"labels: root_label must be a label id {what} or -1, not {root_label!r}")
        built = np.empty((self.size, self.max_len), dtype=np.int32)
        self._k.heads(built, out, self.max_len, False)
        final = np.empty_like(built)
        self._k.heads(final, None, self.max_len, True)
        out[(built < 0) & (final >= 0)] = root_label
        return out

    def _check_single_head(self) -> None:
        if self.system.system.multihead:
            raise UsageError(f"{self.system.system.name} builds several heads per word: the heads and labels "
                             f"views are for single-head systems")
