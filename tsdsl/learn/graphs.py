"""Training and parsing multihead (DAG) systems on enhanced dependencies (the DEPS column).

Training: the gold graphs are the treebank's DEPS, empty nodes collapsed as in the IWPT
shared tasks (:mod:`tsdsl.treebank.enhanced`).  Every graph's canonical derivation is found by
the kernel's graph search (:func:`tsdsl.kernels.graphs.derive_graphs`; graphs with a cycle, a
repeated arc or, for a spec that declares ``produces projective-dag``, crossing arcs are not
derivable and are counted and skipped), then the averaged perceptron trains along the
derivations (static oracle), as for trees without an oracle block.  After every epoch the
averaged weights parse the development set; the epoch with the best ELAS is kept.

Tags: as for trees (:func:`tsdsl.learn.tagger.parser_training_tags`), the parser trains on the
tags of ``--parser-tags`` (by default the files' tags with a share of the sentences jackknifed)
and its epochs are scored on the dev set as the model's tagger tags it, unless they are gold.

Labels: an enhanced label seen fewer than :data:`LABEL_MIN_COUNT` times in training is
replaced by its universal steps (``obl:unlike`` -> ``obl``; EULAS's reduction), so that the
rare case-augmented labels do not each cost classifier outputs (en_gum train has 344 distinct
enhanced labels, 99 of them seen 50 times or more).

Parsing writes the predicted graph to DEPS and a tree read from it to HEAD and DEPREL, made
valid enhanced UD by the rules of :class:`tsdsl.learn.parser.GraphParser` (docs/learning.md,
"Multihead systems"); the DEPREL values of the training file are saved in the model
(``basic_labels``) for the tree's labels.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Optional, Sequence, TextIO

import numpy as np

from .._version import __version__
from ..errors import UsageError
from ..kernels.graphs import derive_graphs
from ..treebank.conllu import read_conllu
from ..treebank.enhanced import Graph, graphs_of, has_deps, score_graphs, universal_steps
from .data import columns_of, make_batch
from .derive import SearchOracle, targets_of
from .engine import Engine
from .model import Model, input_names, path_names, save, spec_sources
from .epochs import BestEpoch, pruned_share
from .known_tags import UPOS_VALUES, training_upos
from .tagger import columns_present, parser_training_tags, train_tagger
from .outputs import build_outputs
from .parser import BASIC_LABELS, IGNORED_COLUMNS, ROOT_LABEL, GraphParser, absent_columns, warn_absent_columns
from .progress import Progress
from .mode import training_mode

LABEL_MIN_COUNT = 50
"""Enhanced labels seen fewer times in training are reduced to their universal steps."""


def reduce_labels(graphs: Sequence[Graph], min_count: int = LABEL_MIN_COUNT) -> tuple[list[Graph], int]:
    """The graphs with rare labels reduced to their universal steps, and how many distinct
    labels were reduced."""
    counts = Counter(l for g in graphs for arcs in g for _, l in arcs)
    rare = {l for l, c in counts.items() if c < min_count}
    out = [tuple(tuple(sorted({(h, universal_steps(l) if l in rare else l) for h, l in arcs})) for arcs in g)
           for g in graphs]
    return out, len(rare)


def _arcs(graph: Graph, label_ids: dict[str, int]) -> list[tuple[int, int, int]]:
    return [(h, d, label_ids[l]) for d, arcs in enumerate(graph, 1) for h, l in arcs]


def read_graph_data(system, train_file: str, dev_file: Optional[str], options) -> tuple[list, list, list, list]:
    """The training and development sentences of a multihead system and their enhanced graphs,
    read and checked before any work (tagger, kernel build, search): the options it trains
    with, a DEPS column in both files, and every DEPS value of both files (a malformed one is
    a ``file:line`` error now, not after minutes of training)."""
    where = system.source_file
    if options.beam > 1:
        raise UsageError(f"{where}: multihead systems train greedily along derivations found by search (--beam 1)")
    if options.oracle not in ("auto", "search"):
        raise UsageError(f"{where}: multihead systems train with the static oracle by search "
                         f"(--oracle auto or search), not {options.oracle}")
    if options.search_follow != "canonical":
        raise UsageError(f"{where}: multihead systems train along the canonical derivation the search finds for "
                         f"each graph (--search-follow canonical), not {options.search_follow}")
    if options.skip_detours:
        raise UsageError(f"{where}: --skip-detours applies to training with a dynamic oracle; multihead systems "
                         "train along the canonical derivation the search finds for each graph: leave it out")
    if options.nonproj != "lift" or options.nonproj_given:
        raise UsageError(f"{where}: --nonproj applies to projective tree systems on non-projective trees; a "
                         "multihead system trains on enhanced graphs, which are never lifted or skipped for "
                         "crossing arcs (graphs it cannot derive are counted and skipped): leave out --nonproj")
    train_sents = read_conllu(train_file, allow_multiple_roots=True)
    if not train_sents:
        raise UsageError(f"{train_file}: no sentences")
    if not has_deps(train_sents):
        raise UsageError(f"{train_file}: no enhanced dependencies (DEPS is _ on every word); the multihead "
                         f"system {system.name} trains on enhanced graphs, so give it a treebank with a DEPS "
                         "column (UD_English-GUM has one)")
    dev_sents = read_conllu(dev_file, allow_multiple_roots=True) if dev_file else []
    if dev_sents and not has_deps(dev_sents):
        raise UsageError(f"{dev_file}: no enhanced dependencies (DEPS is _ on every word): the development set "
                         "is scored by ELAS")
    return train_sents, dev_sents, graphs_of(train_sents), graphs_of(dev_sents)


def train_graphs(system, kernel, features, data: tuple[list, list, list, list], train_file: str,
                 dev_file: Optional[str], out_dir: str, options, max_epochs: tuple[int, int], *,
                 progress: Optional[TextIO] = sys.stderr) -> dict:
    """Train a multihead system on the enhanced graphs of ``train_file`` (see the module
    docstring), its sentences and graphs and the development set's already read
    (``data``, from :func:`read_graph_data`).
    ``max_epochs``: epochs at most with and without a development set, unless
    ``options.epochs``.  Returns the fields of :class:`tsdsl.learn.train.TrainResult`."""
    t_start = time.perf_counter()
    train_sents, dev_sents, all_graphs, dev_graphs = data
    gold_columns = [columns_of(s) for s in train_sents]
    dev_columns = [columns_of(s) for s in dev_sents]
    absent = absent_columns(features, gold_columns)
    warn_absent_columns(train_file, absent, progress)
    # the tagger fills in missing tags at parse time; the parser trains on the tags of
    # --parser-tags (mixed: some jackknifed), and the dev set is tagged unless they are gold
    tagger = train_tagger(gold_columns, dev_columns, seed=options.seed, progress=progress) if options.tagger \
        else None
    parser_tags, train_columns, dev_columns = parser_training_tags(options.parser_tags, gold_columns, dev_columns,
                                                                   tagger, seed=options.seed, progress=progress,
                                                                   given=options.parser_tags_given)
    with_arcs = [k for k, g in enumerate(all_graphs) if any(g)]
    no_deps = len(train_sents) - len(with_arcs)
    graphs, reduced = reduce_labels([all_graphs[k] for k in with_arcs])
    labels = sorted({l for g in graphs for arcs in g for _, l in arcs})
    label_ids = {l: k for k, l in enumerate(labels)}
    outputs = build_outputs(system, tuple(kernel.action_names), labels)
    batch = make_batch([train_columns[k] for k in with_arcs], features.token_attrs)
    found = derive_graphs(kernel, [train_sents[k].n for k in with_arcs], [_arcs(g, label_ids) for g in graphs],
                          budget=options.search_budget)
    d = found.derivations
    status = d.status
    searched = SearchOracle(d, targets_of(outputs, d.actions, d.labels), np.flatnonzero(status == 1).astype(np.int32),
                            int(np.sum(status == 0)), int(np.sum(status < 0)), False)
    why = Counter(o for o in found.obstacles if o)
    nd_search = int(np.sum(status == 0)) - sum(why.values())
    if not len(searched.derived):
        raise UsageError(f"{train_file}: the search found a derivation for none of the {batch.sentences} "
                         f"training graphs ({', '.join(f'{c} {r}' for r, c in why.items())})")
    note = (f"training graphs derived by search (static oracle): {len(searched.derived)} of {batch.sentences}"
            + "".join(f", {c} with {r}" for r, c in sorted(why.items()))
            + (f", {nd_search} without a derivation" if nd_search else "")
            + (f", {searched.over_budget} over the search budget" if searched.over_budget else "")
            + (f"; {no_deps} sentences without DEPS skipped" if no_deps else "")
            + (f"; {reduced} rare labels reduced to universal steps" if reduced else ""))
    if progress is not None:   # along the canonical derivations (read_graph_data refuses --search-follow model)
        progress.write(f"training: {training_mode('search', options, 0, follow='canonical')}\n{note}\n")

    engine = Engine(kernel, features, outputs, options.hash_bits, train=True)
    meta = {"tag_columns": list(columns_present(gold_columns)), IGNORED_COLUMNS: absent, "parser_tags": parser_tags,
            UPOS_VALUES: training_upos(gold_columns),
            "tagger": tagger.meta if tagger is not None else None, "args": asdict(options),
            "train_file": Path(train_file).name, "dev_file": Path(dev_file).name if dev_file else None,
            "nonproj": None, "beam": 1, "loss": None, "oracle": "search", "oracle_reproduced": None,
            "oracle_note": note, "graphs": True, "label_min_count": LABEL_MIN_COUNT,
            BASIC_LABELS: sorted({l for s in train_sents for l in s.deprels if l and l != "_"}),
            "search": {"derived": int(len(searched.derived)), "not_derivable": searched.not_derivable,
                       "over_budget": searched.over_budget, "budget": options.search_budget,
                       "obstacles": dict(why)},
            "created_by": f"tsdsl {__version__}"}
    spec_files, spec_main = spec_sources(system)
    model = Model(system=system, spec_files=spec_files, spec_main=spec_main,
                  overrides=dict(options.overrides or {}), features=features, labels=labels,
                  root_label=ROOT_LABEL, hash_bits=options.hash_bits, outputs=outputs.names,
                  weights=engine.W, meta=meta, precision=options.precision, prune=options.prune,
                  tagger=tagger, path_names=path_names([*zip(system.sources, spec_files),
                                                        *input_names(train_file, dev_file, options.features)]))
    rng = np.random.default_rng(options.seed)
    best = BestEpoch(options.patience)

    def score_dev(table: np.ndarray, rows: np.ndarray, record: dict) -> float:
        """Dev ELAS of the weights in ``table`` (the epoch's, as they will be saved)."""
        parser = GraphParser(model, Engine(kernel, features, outputs, options.hash_bits, weights=table,
                                           live_rows=rows))
        pred, stats = parser.predict(dev_columns)
        scores = score_graphs(dev_sents, dev_sents, gold_graphs=dev_graphs, pred_graphs=[g for g, _, _ in pred])
        record.update(dev_elas=scores.elas, dev_eulas=scores.eulas, dev_words_per_second=round(stats.words_per_second))
        return scores.elas

    keep_order = searched.derived
    n = len(keep_order)
    epochs = options.epochs or (max_epochs[0] if dev_sents else max_epochs[1])
    bar = Progress(progress, epochs, n, batch.words)
    for epoch in range(1, epochs + 1):
        order = keep_order[rng.permutation(n)].astype(np.int32)
        t0 = time.perf_counter()
        steps = mistakes = stuck = 0
        bar.start(epoch)
        for a in range(0, n, 256):
            part = order[a:a + 256]
            s_, m_, k_ = engine.train_sequence(batch, part, searched)
            steps, mistakes, stuck = steps + s_, mistakes + m_, stuck + k_
            bar.advance(len(part), int(np.sum(batch.offsets[part + 1] - batch.offsets[part])))
        record = {"epoch": epoch, "train_seconds": round(time.perf_counter() - t0, 3), "transitions": int(steps),
                  "updates": int(mistakes), "stuck": int(stuck)}
        improved, stop = best.close(engine, model, options, record, score_dev if dev_sents else None)
        bar.finish(record, improved)
        if stop:
            break
    best_epoch, history = best.epoch, best.history
    model.weights, model.stored, model.live_rows = None, best.stored, best.stored.rows
    del engine
    model.meta.update(best_epoch=best_epoch, history=history, train_seconds=round(time.perf_counter() - t_start, 3),
                      train_sentences=n, skipped_nonprojective=0, lifted_arcs=0)
    if history and "dev_elas" in history[best_epoch - 1]:
        model.meta.update(dev_elas=history[best_epoch - 1]["dev_elas"], dev_eulas=history[best_epoch - 1]["dev_eulas"])
    pruned = pruned_share(best, options.prune, progress)  # refuses, before saving, a model pruned empty
    if pruned is not None:
        model.meta["pruned"] = pruned
    out = save(model, out_dir, force=options.force)
    return {"model_dir": out, "best_epoch": best_epoch, "history": history,
            "seconds": time.perf_counter() - t_start, "sentences": n, "skipped": 0, "lifted": 0,
            "not_derived": batch.sentences - n, "oracle": "search", "graphs": True,
            "tagger": tagger.meta if tagger is not None else None, "dev": bool(dev_sents),
            "dev_tags_predicted": bool(dev_sents) and parser_tags != "gold", "pruned": pruned}
