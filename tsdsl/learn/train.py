"""Training: the epoch loop around the kernel's greedy or beam perceptron.

Greedy training (``beam == 1``) is the averaged perceptron with the spec's declared oracle:
static (follow the oracle's first best transition) or dynamic with error exploration
(Goldberg & Nivre 2012; Honnibal & Johnson 2015): from epoch ``explore_after`` on, follow
the model's own prediction with probability ``explore``, and always update towards the
best-scoring transition of least cost.  Beam training (``beam > 1``) is the global
structured perceptron with early update (Collins & Roark 2004; Bohnet et al. 2016), its gold
history guided by the same oracle.  After every epoch the averaged weights parse the
development set; the best epoch by LAS is kept.  Everything random draws from ``seed``.

Unless ``tagger`` is off, a tagger (:mod:`tsdsl.learn.tagger`) is trained first on the same
files and saved with the parser.  With ``parser_tags="mixed"`` (the default) the parser then
trains on the files' tags for most sentences and on jackknifed tags
(:func:`tsdsl.learn.tagger.jackknife`) for a fixed share of them (:data:`tsdsl.learn.tagger.MIXED_SHARE`), and
its epochs are scored on the dev set as the tagger tags it: the parser learns to cope with
tags as wrong as those it will be given on text, and loses (almost) nothing on gold tags.
``"jackknife"`` trains on jackknifed tags only (best with predicted tags, worse with gold
ones); ``"gold"`` keeps the files' tags.  With a development set, training stops once
``patience`` epochs pass without a better dev LAS (at most ``MAX_EPOCHS``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, TextIO

import numpy as np

from .._version import __version__
from ..lang import load_system
from ..treebank.conllu import Sentence, read_conllu
from ..errors import UsageError
from ..files import check_input
from ..treebank.evaluate import universal_label
from .features import FeatureSet, load_features
from .feature_reach import default_feature_set, unread_text
from ..kernels import compile_system
from ..kernels.fixed import prebuild
from ..treebank.projectivize import LIFT_MARK, lift
from ..treebank.trees import is_projective
from .data import columns_of, make_batch
from .derive import DEFAULT_BUDGET, search_oracle, why_not_reproduced
from .engine import Engine, check_beam
from .model import Model, check_writable, input_names, packed_system, path_names, save, spec_sources
from .outputs import build_outputs, unit_names
from .parser import FALLBACK_LABELS, IGNORED_COLUMNS, Parser, absent_columns, fallback_labels, warn_absent_columns
from .progress import Progress
from .checked import declared_oracle_holds
from .derived import DerivedUse, use_derived_oracle
from .mode import training_mode
from .repaired import QUICK_N, RepairUse, use_repair
from ..verify.repair import VERIFY_N
from ..verify.shared_classes import class_clash
from .epochs import BestEpoch, pruned_share
from .weights import DEFAULT_PRECISION, PRECISIONS
from .known_tags import UPOS_VALUES, training_upos, unknown_upos
from .tagger import PARSER_TAGS, columns_present, parser_training_tags, train_tagger

PROJECTIVE_CLASSES = ("projective", "projective-dag")
MAX_EPOCHS = 30
"""Epochs at most when a dev set is given: training stops earlier once ``patience`` epochs pass
without a better dev LAS.  Without a dev set, 15 epochs."""
EPOCHS_WITHOUT_DEV = 15
ORACLE_MIN_REPRODUCED = 0.98
"""A declared oracle trains only if following it reproduces at least this share of the training
trees (after lifting); below, ``--oracle auto`` trains with the static oracle by search instead,
and an explicit ``--oracle dynamic|static`` stops unless ``--force-oracle``.  An exact oracle
reproduces every tree it is exact for; one inherited by a spec whose transitions changed, or
one that leads into dead ends, falls short."""
MIN_TERMINAL_SHARE = 0.1
"""Training refuses a spec when fewer than this share of the training trees can be derived to a
terminal configuration (by the declared oracle it trains with, or by the search): a parser
trained on it would end (almost) no sentence, and its output would be garbage."""
DEAD_CHECK_N = 4
"""Before anything trains, sentences of 1 to this many words: if none reaches a terminal
configuration from its initial one, the spec derives no tree at all and training refuses."""
DEAD_CHECK_BUDGET = 20_000
SEARCH_STEP_BUDGET = 2_000
"""Configurations one search of the oracle by search may expand when it tests whether an output
keeps the gold tree derivable (``--search-follow model``); an output whose search runs over it
counts as not free.  The search from a configuration on a gold path rarely backtracks."""
LIFT_MIN_COUNT = 5
"""A lifted label (``nsubj↑obj``) seen fewer times in training keeps its plain label: the arc
stays lifted (projective) and is not moved back.  Rare encodings cost a classifier output
each for almost nothing (en_lines: 133 encodings, 7 seen five times or more)."""


@dataclass
class TrainOptions:
    epochs: Optional[int] = None     # at most; None: MAX_EPOCHS with a dev set (patience stops it), else 15
    patience: int = 5                # with a dev set: stop after this many epochs without a better dev LAS
    oracle: str = "auto"             # "dynamic" | "static" | "search" | "auto" (see choose_oracle)
    explore: float = 1.0             # probability of following the prediction (dynamic)
    explore_after: int = 1           # epochs before exploration starts
    beam: int = 1
    features: Optional[str] = None   # YAML file; None: the family default
    seed: int = 1
    nonproj: str = "lift"            # "lift" | "skip" (projective systems only)
    nonproj_given: bool = False      # nonproj was chosen (--nonproj), not left at its default
    hash_bits: int = 19
    precision: str = DEFAULT_PRECISION    # how the weights are stored (see tsdsl.learn.weights)
    prune: float = 0.0                    # drop stored weights with |w| below this
    force: bool = False                   # replace an existing model at the output directory
    loss: Optional[str] = None       # which declared loss (default: the first)
    overrides: dict = field(default_factory=dict)
    search_budget: int = DEFAULT_BUDGET   # oracle by search: configurations per sentence
    search_follow: str = "canonical"      # oracle by search: "canonical" (static) or "model" (best-scoring free output)
    skip_detours: bool = False            # dynamic oracle: zero-cost detours count as mistakes (_detours.pxi)
    force_oracle: bool = False            # train with a declared oracle that fails the check
    repair: bool = True                   # a spec with dead ends trains its verified guard repair
    repair_max_n: int = VERIFY_N          # ... verified exhaustively up to this sentence length
    tagger: bool = True                   # also train a tagger for the tag columns (tsdsl.learn.tagger)
    parser_tags: str = "mixed"            # the parser's training tags: "mixed", "jackknife" or "gold"
    parser_tags_given: bool = False       # parser_tags was chosen (--parser-tags), not left at its default

    def check(self) -> None:
        if self.epochs is not None and self.epochs < 1:
            raise UsageError("--epochs must be at least 1")
        if self.patience < 1:
            raise UsageError("--patience must be at least 1")
        if self.oracle not in ("dynamic", "static", "search", "auto"):
            raise UsageError(f"--oracle must be dynamic, static, search or auto, not {self.oracle!r}")
        if self.search_follow not in ("model", "canonical"):
            raise UsageError(f"--search-follow must be model or canonical, not {self.search_follow!r}")
        if self.search_budget < 1:
            raise UsageError("--search-budget must be at least 1")
        if not 0.0 <= self.explore <= 1.0:
            raise UsageError("--explore must lie in 0..1")
        check_beam(self.beam)
        if self.nonproj not in ("lift", "skip"):
            raise UsageError(f"--nonproj must be lift or skip, not {self.nonproj!r}")
        if self.parser_tags not in PARSER_TAGS:
            raise UsageError(f"--parser-tags must be one of {', '.join(PARSER_TAGS)}, not {self.parser_tags!r}")
        if self.parser_tags_given and not self.tagger and self.parser_tags != "gold":
            raise UsageError(f"--no-tagger and --parser-tags {self.parser_tags} contradict each other: without a "
                             "tagger the parser trains on the file's tags (gold); leave out one of them")
        if not 12 <= self.hash_bits <= 26:
            raise UsageError("--hash-bits must lie in 12..26")
        if self.repair_max_n < 1:
            raise UsageError("--repair-max-n must be at least 1")
        if self.precision not in PRECISIONS:
            raise UsageError(f"--precision must be one of {', '.join(PRECISIONS)}, not {self.precision!r}")
        if not (self.prune >= 0.0 and np.isfinite(self.prune)):
            raise UsageError("--prune must be a finite number >= 0")
        if self.seed < 0 or self.explore_after < 0:
            raise UsageError("--seed and --explore-after must be at least 0")


@dataclass
class TrainResult:
    model_dir: Path
    best_epoch: int
    history: list
    seconds: float
    sentences: int
    skipped: int
    lifted: int
    not_derived: int = 0      # static oracle by search: training trees without a derivation, skipped
    oracle: str = ""
    repair_note: str = ""     # the spec dead-ends: what training did about it
    repaired: bool = False    # the spec's verified guard repair trained instead of the spec
    graphs: bool = False      # a multihead system trained on enhanced graphs (DEPS)
    tagger: Optional[dict] = None   # the tagger's summary (dev accuracy per column), if one was trained
    dev: bool = False               # whether a development set scored the epochs
    dev_tags_predicted: bool = False  # the dev set was scored with the tagger's tags, not its own
    over_budget: int = 0      # of the not derived: the search gave up (--search-budget), not proved none
    pruned: Optional[dict] = None  # with --prune: weights stored, non-zero before pruning, share kept


def _trees(sentences: list[Sentence]):
    return [([h if h is not None else -1 for h in s.heads], list(s.deprels)) for s in sentences]


def builds_projective_only(system) -> bool:
    """Whether every tree the system builds is projective: it claims a projective class, or
    its arcs provably never cross (:func:`tsdsl.verify.planar.noncrossing_order`, the proof
    ``tsdsl coverage`` uses), as for Attardi's system with N = 1, whose claim is all trees.
    Training then lifts the non-projective gold trees (``--nonproj``) instead of losing them
    as underivable."""
    if system.produces in PROJECTIVE_CLASSES:
        return True
    if system.multihead:
        return False
    from ..verify.planar import noncrossing_order

    return noncrossing_order(system) is not None


def prepare_gold(system, sentences: list[Sentence], nonproj: str):
    """Gold trees for training: lifted or skipped where the system cannot build them."""
    projective_only = builds_projective_only(system)
    trees, keep, lifted, skipped = [], [], 0, 0
    for k, (hs, ls) in enumerate(_trees(sentences)):
        if any(LIFT_MARK in l for l in ls):
            s = sentences[k]
            raise UsageError(f"{s.file}:{s.line}: a label contains {LIFT_MARK!r}, which --nonproj lift reserves")
        if projective_only and not is_projective(hs):
            if nonproj == "skip":
                skipped += 1
                continue
            res = lift(hs, ls)
            hs, ls = list(res.heads), list(res.labels)
            lifted += res.lifted
        trees.append((hs, ls))
        keep.append(k)
    counts = Counter(l for _, ls in trees for l in ls if LIFT_MARK in l)
    rare = {l for l, c in counts.items() if c < LIFT_MIN_COUNT}
    if rare:
        trees = [(hs, [l.split(LIFT_MARK)[0] if l in rare else l for l in ls]) for hs, ls in trees]
    return trees, keep, lifted, skipped



def gold_batch(system, kernel, sentences: list[Sentence], features, nonproj: str = "lift"):
    """(outputs, batch, lifted arcs) for training on ``sentences`` with their gold tags: the gold trees
    prepared as :func:`train` prepares them, every gold label an output (benchmarks and
    tests that drive the learner directly; :func:`train` adds the tagger's columns)."""
    trees, keep, lifted, _ = prepare_gold(system, sentences, nonproj)
    labels = sorted({l for _, ls in trees for l in ls})
    outputs = build_outputs(system, unit_names(kernel), labels)
    batch = make_batch([columns_of(sentences[k]) for k in keep], features.token_attrs, trees,
                       {l: k for k, l in enumerate(labels)})
    return outputs, batch, lifted

def attachment_scores(gold, heads, labels) -> tuple[float, float]:
    """UAS and LAS (universal labels, punctuation counted), as :func:`tsdsl.treebank.evaluate.evaluate`
    computes them, for trees held as lists."""
    total = uas = las = 0
    for (gh, gl), ph, pl in zip(gold, heads, labels):
        for g, l, p, q in zip(gh, gl, ph, pl):
            total += 1
            if g == p:
                uas += 1
                las += universal_label(l) == universal_label(q or "")
    return (uas / total, las / total) if total else (0.0, 0.0)


def _loss_index(kernel, name: Optional[str]) -> int:
    """The kernel's loss for ``--loss``: ``ORACLE``, ``ORACLE/LOSS`` or a loss name of the first
    oracle; by default :func:`default_loss`."""
    if not kernel.gen.losses:
        raise UsageError(f"{kernel.system.source_file}: the spec declares no oracle to train with; "
                         "--oracle search (the default, auto, picks it) derives the training trees by search")
    if name is None:
        return default_loss(kernel)
    oracle, _, loss = name.partition("/")
    for k, (o, l) in enumerate(kernel.gen.losses):
        if (o == oracle and (not loss or l == loss)) or (not loss and o == kernel.gen.losses[0][0] and l == name):
            return k
    known = ", ".join(f"{o}/{l}" for o, l in kernel.gen.losses)
    raise UsageError(f"{kernel.system.source_file}: no oracle loss {name!r}; declared: {known}")


def no_loss_message(spec_file: str, loss: str, multihead: bool) -> str:
    """Why ``--loss`` is refused for a spec with no oracle (declared or derived): there is no
    loss to choose, and how training finds its oracle instead."""
    how = ("along the canonical derivation of each enhanced graph, found by search" if multihead else
           "along derivations of the training trees found by search (--search-follow chooses which)")
    return (f"{spec_file}: the spec declares no oracle, so there is no loss to choose (--loss {loss}); training "
            f"follows the static oracle by search instead, {how}: leave out --loss")


def default_loss(kernel) -> int:
    """The loss training uses when ``--loss`` is not given, over every declared oracle in
    declaration order: the first exact loss; else an upper bound, the last one declared by the
    first oracle that declares one (an upper bound never calls a move that loses arcs free,
    so dynamic training can trust its zero costs, and papers list their bounds from tightest
    to loosest: the loosest penalises every cycle, which trained best for non-monotonic
    Covington, Fernández-González & Gómez-Rodríguez 2017); else the first loss (a lower bound,
    trained static).  A spec may so declare its paper's exact or lower-bound analysis first and
    the training oracle the paper used after it (``arc-eager-unshift.ts``)."""
    bound = {(o.name, l.name): l.bound for o in kernel.system.oracles for l in o.losses}
    kinds = [bound.get(pair) for pair in kernel.gen.losses]
    if "exact" in kinds:
        return kinds.index("exact")
    if "upper" in kinds:
        first = kernel.gen.losses[kinds.index("upper")][0]
        return max(k for k, (o, _) in enumerate(kernel.gen.losses) if o == first and kinds[k] == "upper")
    return 0


def resolve_oracle(kernel, loss_index: int, oracle: str) -> str:
    """``auto``: dynamic when the loss is exact or an upper bound; static when it is a lower
    bound, whose zero-cost transitions may still lose arcs (easy-first's, arc-standard's), so
    that costs cannot tell a mistake from a free move but the first zero-cost transition still
    spells a correct derivation."""
    if oracle != "auto":
        return oracle
    name, loss = kernel.gen.losses[loss_index]
    decl = next(o for o in kernel.system.oracles if o.name == name)
    bound = next((l.bound for l in decl.losses if l.name == loss), "exact")
    return "static" if bound == "lower" else "dynamic"


@dataclass
class OracleChoice:
    """How training follows the gold trees, and why."""

    kind: str                 # "dynamic" | "static" | "search"
    loss_index: int = -1      # the declared loss (dynamic, static)
    reproduced: Optional[float] = None  # share of training trees the declared oracle reproduces
    note: str = ""


def check_declared_oracle(kernel, batch, loss_index: int) -> float:
    """The share of the batch's gold trees that following the declared oracle (its first
    zero-cost action at every step) reproduces exactly: derived to a terminal configuration
    holding that tree (a derivation that gets stuck reproduces nothing, whatever arcs it built)."""
    return follow_declared_oracle(kernel, batch, loss_index)[0]


def follow_declared_oracle(kernel, batch, loss_index: int) -> tuple[float, float]:
    """Shares of the batch's gold trees that following the declared oracle reproduces (as
    :func:`check_declared_oracle`) and that it derives to any terminal configuration at all."""
    share, terminal, _ = _follow(kernel, batch, loss_index)
    return share, terminal


def _follow(kernel, batch, loss_index: int) -> tuple[float, float, np.ndarray]:
    """:func:`follow_declared_oracle`'s shares and the batch indexes of the trees not
    reproduced."""
    from ..kernels.compiled import Treebank

    words = batch.words
    tb = Treebank(np.ascontiguousarray(batch.heads[:words]), batch.offsets, None, 0)
    result = kernel.oracle_pass(tb, oracle=kernel.gen.losses[loss_index][0], loss=kernel.gen.losses[loss_index][1])
    n = batch.sentences
    if not n:
        return 1.0, 1.0, np.zeros(0, dtype=np.int64)
    missed = np.flatnonzero(result.status != result.REPRODUCED)
    return (n - result.mismatched_sentences) / n, (n - result.stuck_sentences) / n, missed


def refuse_if_underivable(system) -> None:
    """Stop (a :class:`UsageError` naming the spec) when no sentence of 1 to
    :data:`DEAD_CHECK_N` words reaches a terminal configuration from its initial one: the spec
    derives no tree, so no oracle exists and a parser trained on it would finish no sentence.
    Reachability does not depend on the gold tree; a search over its budget proves nothing
    and lets training go on."""
    from ..interp import Interpreter
    from ..verify.loss import BudgetExceeded, LossSearch

    if system.multihead:
        return
    it = Interpreter(system)
    for n in range(1, DEAD_CHECK_N + 1):
        try:
            if LossSearch(it, [0] + list(range(1, n)), budget=DEAD_CHECK_BUDGET).loss(it.initial(n)) != float("inf"):
                return
        except BudgetExceeded:
            return
    raise UsageError(f"{system.source_file}: no sentence of 1 to {DEAD_CHECK_N} words reaches a terminal "
                     "configuration: the spec cannot derive any tree (see `tsdsl verify`), so there is no oracle "
                     "to train with and a parser would finish no sentence; nothing was trained")


def choose_oracle(kernel, batch, options: "TrainOptions", where: Optional[str] = None, *,
                  checked: bool = False) -> OracleChoice:
    """The oracle to train with.  A declared oracle is first followed over the training trees
    and must reproduce at least :data:`ORACLE_MIN_REPRODUCED` of them; ``auto`` takes it
    (dynamic when its loss is exact or an upper bound, static when a lower bound, as
    :func:`resolve_oracle`) and otherwise, or without one, the static oracle by search.
    ``where`` starts an error message (default: the spec's file): the user's spec, when the
    kernel's is a repair or derived-oracle spec in the cache.  Before it trains, the oracle is
    compared with the exact loss (:func:`declared_oracle_holds`, whether the spec declares it
    or inherits it), unless ``checked`` says that was done already (a derived oracle)."""
    system = kernel.system
    where = where or system.source_file
    if options.oracle == "search" or (options.oracle == "auto" and not kernel.gen.losses):
        note = "" if kernel.gen.losses else "the spec declares no oracle: "
        return OracleChoice("search", note=note + "training trees derived by search (static oracle)")
    loss_index = _loss_index(kernel, options.loss)
    kind = resolve_oracle(kernel, loss_index, options.oracle)
    share, terminal, missed = _follow(kernel, batch, loss_index)
    name = "/".join(kernel.gen.losses[loss_index])
    if terminal < MIN_TERMINAL_SHARE and options.oracle != "auto":
        raise UsageError(f"{where}: following oracle {name}, only {100 * terminal:.1f}% of the training "
                         "trees reach a terminal configuration: a parser trained with it would finish (almost) no "
                         "sentence (--force-oracle does not change that); train with --oracle search (or auto)")
    holds, why = (True, "") if checked else declared_oracle_holds(system, kernel.gen.losses[loss_index][0])
    if (share >= ORACLE_MIN_REPRODUCED and holds) or options.force_oracle:
        reasons = why_not_reproduced(kernel, batch, missed)
        note = (f"oracle {name} reproduces {100 * share:.1f}% of the training trees"
                + (f" ({reasons})" if reasons else "") + (f"; {why}" if why else ""))
        return OracleChoice(kind, loss_index, share, note)
    if not holds:
        if options.oracle == "auto":
            return OracleChoice("search", -1, share, why + ": training trees derived by search instead")
        raise UsageError(f"{where}: {why}; train with --oracle search (or auto), or --force-oracle "
                         "to use it anyway")
    if options.oracle == "auto":
        reasons = why_not_reproduced(kernel, batch, missed)
        return OracleChoice("search", -1, share,
                            f"oracle {name} reproduces only {100 * share:.1f}% of the training trees "
                            f"(below {100 * ORACLE_MIN_REPRODUCED:.0f}%; {reasons}): training trees derived by "
                            "search instead")
    raise UsageError(f"{where}: following oracle {name} reproduces only {100 * share:.1f}% of the "
                     f"training trees (at least {100 * ORACLE_MIN_REPRODUCED:.0f}% needed): it may be inherited "
                     "from a spec with other transitions, or lead into dead ends; train with --oracle search "
                     "(or auto), or --force-oracle to use it anyway")


def _features(given: Optional[str], system, user_spec: str, progress: Optional[TextIO]) -> FeatureSet:
    """The feature set to train with: the file given with ``--features``, or the default set
    (:func:`default_feature_set`).  A given file that reads none of some position the
    actions bind or attach gets one line on stderr naming those positions: the model would
    decide those actions without any feature of the words they attach."""
    if not given:
        return default_feature_set(system)
    features = load_features(given, system)
    unread = unread_text(features, system)
    if unread:
        (progress or sys.stderr).write(
            f"warning: {given}: no template reads {unread}, which the actions of {user_spec} bind or attach "
            "(the default features add templates for them; see docs/features.md)\n")
    return features


def train(spec: str, train_file: str, dev_file: Optional[str], out_dir: str, options: TrainOptions,
          *, progress: Optional[TextIO] = sys.stderr) -> TrainResult:
    """Train a parser for ``spec`` and write its model directory (see tsdsl.learn.model)."""
    options.check()
    t_start = time.perf_counter()
    system = load_system(spec, options.overrides or None)
    user_spec = system.source_file  # errors name it, not a repair or derived-oracle spec in the cache
    if system.unbounded and options.beam > 1:
        raise UsageError(f"{spec}: capacity inf trains greedily (each family instance is scored from its own "
                         "tokens; beam search over instances is not implemented): use --beam 1")
    check_writable(out_dir, options.force)
    check_input(train_file, "training file")
    if dev_file:
        check_input(dev_file, "dev file")
    if not system.multihead:  # (DAG systems read enhanced graphs, below)
        # read and checked before any work: a gold tree is one tree, with one word on the root
        # (`c5.conllu:2: more than one root`), as coverage and eval require
        train_sents = read_conllu(train_file)
        dev_sents = read_conllu(dev_file) if dev_file else []
        if not train_sents:
            raise UsageError(f"{train_file}: no sentences")
    clash = class_clash(system, QUICK_N)  # only when some class has several members
    if clash is not None:
        raise UsageError(f"{user_spec}: {clash.describe()} (`tsdsl verify {user_spec}` shows the configuration)")
    repair = use_repair(system, verify_n=options.repair_max_n, overrides=options.overrides or None,
                        progress=progress) \
        if options.repair else RepairUse(system)
    system = repair.system
    refuse_if_underivable(system)  # before the repair's note, which would promise training
    if repair.note and progress is not None:
        progress.write(repair.note + "\n")
    derived = use_derived_oracle(system, options.overrides or None) if options.oracle != "search" \
        else DerivedUse(system)
    if derived.used and not derived.exact and options.oracle == "auto":
        # a derived lower bound trains statically, and so does the search, whose canonical
        # derivations keep the gold tree exactly; measured, the search trains as well or better
        # (Attardi N = 2 on en_lines: 83.92 against 83.53), so auto keeps it
        derived = DerivedUse(system, note=derived.note + "; only a lower bound, so training uses the static oracle "
                                                         "by search (--oracle static trains with the bound)",
                             rule=derived.rule, exact=False, configurations=derived.configurations)
    system = derived.system
    if derived.note and progress is not None:
        progress.write(derived.note + "\n")
    if options.loss is not None and not system.oracles:
        raise UsageError(no_loss_message(user_spec, options.loss, system.multihead))
    features = _features(options.features, system, user_spec, progress)
    # the data is read and checked before the kernel is built (the first build of a spec
    # takes tens of seconds): a mistake in a file is reported at once
    if system.multihead:   # DAG systems train on enhanced graphs (the DEPS column)
        from .graphs import read_graph_data, train_graphs

        data = read_graph_data(system, train_file, dev_file, options)
        system = packed_system(system, options.overrides or None)  # what the model saves trains
        kernel = compile_system(system, fallback=False)
        return TrainResult(**train_graphs(system, kernel, features, data, train_file, dev_file, out_dir, options,
                                          (MAX_EPOCHS, EPOCHS_WITHOUT_DEV), progress=progress))

    prebuild(["conllu_fast"] + (["tagger"] if options.tagger else []))  # built beside the spec's kernel
    # what the model saves trains: a chain whose `extends` the model directory names otherwise
    # (a derived oracle or repair in the cache, `../` or absolute parents) trains from its copy
    sources = system.sources
    system = packed_system(system, options.overrides or None)
    kernel = compile_system(system, fallback=False)
    trees, keep, lifted, skipped = prepare_gold(system, train_sents, options.nonproj)
    if (lifted or skipped) and system.produces not in PROJECTIVE_CLASSES and progress is not None:
        progress.write(f"{user_spec}: claims `produces {system.produces}`, but its arcs provably never cross (the "
                       f"proof `tsdsl coverage` uses): non-projective training trees "
                       f"{'lifted' if options.nonproj == 'lift' else 'skipped'} (--nonproj) as for a projective "
                       "system, not lost as underivable\n")
    if not trees:
        raise UsageError(f"{train_file}: no sentence left to train on (--nonproj skip removed all)")
    labels = sorted({l for _, ls in trees for l in ls})
    root_counts = Counter(l for hs, ls in trees for h, l in zip(hs, ls) if h == 0)
    root_label = root_counts.most_common(1)[0][0] if root_counts else "root"
    # UD's convention (``root`` exactly on the arcs from the root), which parsing then keeps
    root_label_strict = list(root_counts) == [root_label] and \
        not any(l == root_label for hs, ls in trees for h, l in zip(hs, ls) if h != 0)
    outputs = build_outputs(system, unit_names(kernel), labels)
    label_ids = {l: k for k, l in enumerate(labels)}
    train_columns = [columns_of(s) for s in train_sents]
    dev_columns = [columns_of(s) for s in dev_sents]
    absent = absent_columns(features, train_columns)
    warn_absent_columns(train_file, absent, progress)
    tagger = train_tagger(train_columns, dev_columns, seed=options.seed, progress=progress) if options.tagger \
        else None
    known = frozenset(training_upos(train_columns))
    parser_tags, train_columns, dev_columns = parser_training_tags(options.parser_tags, train_columns, dev_columns,
                                                                   tagger, seed=options.seed, progress=progress,
                                                                   given=options.parser_tags_given)
    strange = unknown_upos(dev_columns, [{}] * len(dev_columns), known, [(s.file, s.line) for s in dev_sents])
    if strange.words:  # the dev scores that pick the epoch would mean nothing, as a parse of such input
        (progress or sys.stderr).write(f"warning: {dev_file}: {strange.dev_message(sum(len(c['form']) for c in dev_columns))}\n")
    batch = make_batch([train_columns[k] for k in keep], features.token_attrs, trees, label_ids)

    where = user_spec
    if derived.used:
        where += " (its derived oracle)"
    elif repair.repaired:
        where += " (its verified repair)"
    choice = choose_oracle(kernel, batch, options, where, checked=derived.used)
    if derived.used and choice.kind != "search":
        choice.note = f"derived oracle ({'exact' if derived.exact else 'a lower bound'}): {choice.note}"
    oracle, loss_index = choice.kind, choice.loss_index
    searched = None
    if oracle == "search":
        if options.beam > 1:
            raise UsageError(f"{spec}: beam training needs a declared oracle's costs; the static oracle by search "
                             "trains greedily (--beam 1)")
        if options.search_follow == "model" and kernel.unbounded:
            raise UsageError(f"{spec}: --search-follow model needs a bounded action set (capacity inf trains "
                             "along the canonical derivations, or with its declared oracle)")
        searched = search_oracle(kernel, batch, outputs, budget=options.search_budget)
        if options.search_follow == "model":
            choice.note += "; --search-follow model: training follows the model's best-scoring free action"
        keep_order = searched.derived
        if len(keep_order) < MIN_TERMINAL_SHARE * batch.sentences:
            raise UsageError(f"{spec}: the search derived only {len(keep_order)} of the {batch.sentences} training "
                             f"trees of {train_file} to a terminal configuration (not derivable: "
                             f"{searched.not_derivable}, over the budget of {options.search_budget} configurations: "
                             f"{searched.over_budget}); at least {100 * MIN_TERMINAL_SHARE:.0f}% are needed, "
                             "else the parser would finish (almost) no sentence (see `tsdsl verify`); nothing was "
                             "trained")
    else:
        keep_order = np.arange(batch.sentences, dtype=np.int32)
        if options.search_follow == "model":
            choice.note += ("; --search-follow model has no effect: it applies to the oracle by search "
                            "(--oracle search), and this spec trains with its declared oracle")
    epochs = options.epochs or (MAX_EPOCHS if dev_sents else EPOCHS_WITHOUT_DEV)
    if progress is not None:
        progress.write(f"training: {training_mode(oracle, options, epochs)}\n")
        line = choice.note
        if searched is not None:
            line += (f"; {len(searched.derived)} of {batch.sentences} derived"
                     + (f", {searched.not_derivable} not derivable" if searched.not_derivable else "")
                     + (f", {searched.over_budget} over the search budget" if searched.over_budget else "")
                     + (" (cached)" if searched.cached else ""))
        progress.write(line + "\n")
    engine = Engine(kernel, features, outputs, options.hash_bits, train=True)
    engine.learner.detours = not options.skip_detours
    if options.skip_detours and not (oracle == "dynamic" and searched is None and options.beam == 1
                                     and not system.unbounded):
        choice.note += ("; --skip-detours has no effect: it applies to greedy training with a dynamic oracle "
                        "over a bounded action set")
    train_cols = [columns_of(s) for s in train_sents]
    meta = {"tag_columns": list(columns_present(train_cols)), IGNORED_COLUMNS: absent,
            UPOS_VALUES: training_upos(train_cols),
            FALLBACK_LABELS: fallback_labels(trees, [train_cols[k] for k in keep]),
            "parser_tags": parser_tags,
            "tagger": tagger.meta if tagger is not None else None,
            "args": asdict(options), "train_file": Path(train_file).name,
            "dev_file": Path(dev_file).name if dev_file else None,
            "nonproj": options.nonproj if builds_projective_only(system) else None, "beam": options.beam,
            "loss": list(kernel.gen.losses[loss_index]) if loss_index >= 0 else None, "oracle": oracle,
            "oracle_reproduced": choice.reproduced, "oracle_note": choice.note,
            "search": None if searched is None else {"derived": int(len(searched.derived)),
                                                     "not_derivable": searched.not_derivable,
                                                     "over_budget": searched.over_budget,
                                                     "budget": options.search_budget},
            "repair": repair.meta(), "derived_oracle": derived.meta(trained=derived.used and oracle != "search"),
            "created_by": f"tsdsl {__version__}"}
    spec_files, spec_main = spec_sources(system)
    model = Model(system=system, spec_files=spec_files, spec_main=spec_main,
                  overrides=dict(options.overrides or {}), features=features, labels=labels,
                  root_label=root_label, hash_bits=options.hash_bits, outputs=outputs.names,
                  weights=engine.W, meta=meta, precision=options.precision, prune=options.prune,
                  tagger=tagger, root_label_strict=root_label_strict,
                  path_names=path_names([*zip(sources, spec_files),
                                         *input_names(train_file, dev_file, options.features)]))

    dev_gold = [(s.heads, s.deprels) for s in dev_sents]
    rng = np.random.default_rng(options.seed)
    best = BestEpoch(options.patience)

    def score_dev(table: np.ndarray, rows: np.ndarray, record: dict) -> float:
        """Dev LAS of the weights in ``table`` (the epoch's, as they will be saved)."""
        parser = Parser(model, Engine(kernel, features, outputs, options.hash_bits, weights=table, live_rows=rows))
        dev_heads, dev_labels, stats = parser.parse_columns(dev_columns, beam=options.beam)
        uas, las = attachment_scores(dev_gold, dev_heads, dev_labels)
        record.update(dev_uas=uas, dev_las=las, dev_words_per_second=round(stats.words_per_second),
                      dev_repaired_words=stats.repaired_words)
        return las

    n = len(keep_order)
    chunk = 256
    bar = Progress(progress, epochs, n, batch.words)
    for epoch in range(1, epochs + 1):
        order = keep_order[rng.permutation(n)].astype(np.int32)
        explore = options.explore if oracle == "dynamic" and epoch > options.explore_after else 0.0
        t0 = time.perf_counter()
        steps = mistakes = stuck = detours = 0
        bar.start(epoch)
        for a in range(0, n, chunk):
            part = order[a:a + chunk]
            if searched is not None and options.search_follow == "model":
                s_, m_, k_ = engine.train_searched(batch, part, budget=SEARCH_STEP_BUDGET)
            elif searched is not None:
                s_, m_, k_ = engine.train_sequence(batch, part, searched)
            elif options.beam > 1:
                s_, m_, k_ = engine.train_beam(batch, part, width=options.beam, loss_index=loss_index,
                                               dynamic=oracle == "dynamic")
            else:
                s_, m_, k_ = engine.train_greedy(batch, part, loss_index=loss_index,
                                                 dynamic=oracle == "dynamic", explore_p=explore,
                                                 seed=options.seed * 1_000_003 + epoch * 7919 + a)
                detours += engine.learner.detour_steps
            steps, mistakes, stuck = steps + s_, mistakes + m_, stuck + k_
            bar.advance(len(part), int(np.sum(batch.offsets[part + 1] - batch.offsets[part])))
        train_seconds = time.perf_counter() - t0
        record = {"epoch": epoch, "train_seconds": round(train_seconds, 3), "transitions": int(steps),
                  "updates": int(mistakes), "stuck": int(stuck)}
        if options.skip_detours:
            record["detour_steps"] = int(detours)
        improved, stop = best.close(engine, model, options, record, score_dev if dev_sents else None)
        bar.finish(record, improved)
        if stop:
            break  # patience: no better dev LAS for that many epochs
    best_epoch, history = best.epoch, best.history
    model.weights, model.stored, model.live_rows = None, best.stored, best.stored.rows
    del engine
    model.meta.update(best_epoch=best_epoch, history=history,
                      train_seconds=round(time.perf_counter() - t_start, 3),
                      train_sentences=len(keep_order), skipped_nonprojective=skipped, lifted_arcs=lifted)
    if history and "dev_las" in history[best_epoch - 1]:
        model.meta.update(dev_uas=history[best_epoch - 1]["dev_uas"], dev_las=history[best_epoch - 1]["dev_las"])
    last = history[-1]
    if last["transitions"] and last["stuck"] >= 0.5 * len(trees):
        (progress or sys.stderr).write(f"warning: in the last epoch {last['stuck']} of {len(trees)} training sentences ended "
                       "without a terminal configuration (no legal transition, or the step limit): the "
                       "oracle may lead into dead ends of this system\n")
    pruned = pruned_share(best, options.prune, progress)  # refuses, before saving, a model pruned empty
    if pruned is not None:
        model.meta["pruned"] = pruned
    out = save(model, out_dir, force=options.force)
    not_derived = 0 if searched is None else batch.sentences - len(searched.derived)
    return TrainResult(out, best_epoch, history, time.perf_counter() - t_start, len(trees) - not_derived, skipped,
                       lifted, not_derived, oracle, repair.note, repair.repaired,
                       tagger=tagger.meta if tagger is not None else None, dev=bool(dev_sents),
                       dev_tags_predicted=bool(dev_sents) and tagger is not None and parser_tags != "gold",
                       over_budget=0 if searched is None else searched.over_budget, pruned=pruned)
