"""The model directory: everything needed to parse again, in plain files (no pickle).

    DIR/model.json       metadata: versions, spec hash, feature digest, outputs, arguments,
                         dev scores per epoch, how the weights are stored, the feature hash
                         (``feature_hash``; absent in models trained before it changed: 1)
    DIR/spec/...         the spec that trained and the specs it extends, by relative names
                         (:func:`spec_sources`: ``spec/NAME.ts``, then each parent where its
                         child's ``extends`` names it, or beside it under a free name)
    DIR/features.yaml    the feature templates, verbatim
    DIR/labels.json      labels (in id order) and the label given to words attached to the root
    DIR/weights.npz      the averaged weights that are not zero, sparse and quantised
                         (see tsdsl.learn.weights)
    DIR/tagger/          the tagger, when one was trained (see tsdsl.learn.tagger)

A directory is written whole into a temporary sibling and renamed into place, so an
interrupted save leaves any earlier model intact; :func:`check_writable` refuses to replace
an existing model unless forced, and anything else that is not an empty directory (a model
directory holding anything a model does not write, :data:`ENTRIES`, is refused even when
forced: replacing it would delete someone's files).  Loading
refuses a directory written by another tsdsl version or format, whose spec or features no
longer hash to what was trained, whose weights are damaged or not finite, or whose tagger
``model.json`` records but ``tagger/`` no longer holds.

Nothing in the directory names where it was trained: the specs are stored by relative names
(a derived oracle or repair spec from the kernel cache included), and ``model.json`` names
files by their names in the model (``spec``), the treebanks by file name, and holds no
absolute path (:func:`portable`), so a model moved, copied or unpacked elsewhere loads, with
the original spec and the kernel cache gone.  Models written before (their specs under
``spec/`` followed by the folders they came from) load as before: ``spec`` names the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Optional
from pathlib import Path

import numpy as np

from .._version import __version__
from ..lang import load_system, parse_spec
from ..lang import syntax as S
from ..errors import TsdslError, UsageError
from ..files import check_parents, write_atomic
from .engine import FEATURE_HASH, FEATURE_HASHES
from .features import FeatureSet, load_features
from . import weights as wt
from .tagger import Tagger, TaggerError
from ..kernels import kernel_cache_dir
from ..kernels.codegen import GENERATOR_VERSION
from .. import ir

FORMAT = 2
META = "model.json"
WEIGHTS = "weights.npz"
TAGGER = "tagger"
ENTRIES = frozenset({META, "spec", "features.yaml", "labels.json", WEIGHTS, TAGGER,
                     "rows.npy", "weights.npy"})
"""What a model directory holds (see the module docstring; ``rows.npy`` and ``weights.npy``:
format 1): ``--force`` replaces a directory holding nothing else."""
FOREIGN_SHOWN = 3


class ModelError(UsageError):
    """A model directory that cannot be used (missing, damaged or from another version)."""


@dataclass
class Model:
    system: ir.System
    spec_files: dict[str, str]          # path in DIR/spec -> text
    spec_main: str
    overrides: dict
    features: FeatureSet
    labels: list[str]
    root_label: str
    hash_bits: int
    outputs: tuple[str, ...]
    weights: Optional[np.ndarray]       # dense float32 [2**hash_bits, outputs]; None when loaded from
    #                                     sparse storage (see dense_weights, parse_table)
    meta: dict = field(default_factory=dict)
    live_rows: Optional[np.ndarray] = None  # rows of weights that may be non-zero (None: unknown)
    stored: Optional[wt.StoredWeights] = None  # the weights as saved (None: saved from ``weights``)
    precision: str = wt.DEFAULT_PRECISION  # how ``save`` stores ``weights`` when ``stored`` is None
    prune: float = 0.0
    tagger: Optional[Tagger] = None     # predicts missing tags before parsing
    read_weights: Optional[wt.StoredWeights] = None  # the weights as :func:`load` read them
    # the training treebank had ``root_label`` on every arc from the root and on no other (as
    # UD's ``root``): parsing keeps it so (Parser, Learner.set_root_label)
    root_label_strict: bool = False
    path: Optional[Path] = None         # the directory :func:`load` read it from (errors name it)
    # absolute paths training read (the spec chain, treebanks) -> the names model.json gives
    # them (:func:`portable`); not saved
    path_names: dict = field(default_factory=dict)
    feature_hash: int = FEATURE_HASH    # how the kernel hashed the features into buckets (engine.FEATURE_HASH)

    def _sparse_source(self) -> Optional[wt.StoredWeights]:
        return self.stored if self.stored is not None else self.read_weights

    def dense_weights(self) -> np.ndarray:
        """The dense float32 ``[2**hash_bits, outputs]`` table (expanded from the stored
        weights on first use and kept: hundreds of megabytes at the default size)."""
        if self.weights is None:
            source = self._sparse_source()
            if source is None:
                raise ValueError("the model has no weights")
            self.weights = wt.dense(source, self.hash_bits)
        return self.weights

    def parse_table(self) -> Optional[wt.ParseTable]:
        """The compact table parsing reads (:func:`~tsdsl.learn.weights.parse_table`), or None
        when the weights exist dense (a model in training, a format 1 model) or do not fit it."""
        source = self._sparse_source()
        if source is None or self.weights is not None:
            return None
        return wt.parse_table(source, self.hash_bits)


def spec_sources(system: ir.System) -> tuple[dict[str, str], str]:
    """The texts of the spec and the specs it extends, keyed by their names in ``DIR/spec``
    (:func:`pack_specs`), and the key of the spec itself."""
    files, main, _ = pack_specs(system.sources)
    return files, main


_EXTENDS = re.compile(r'(extends\s+)"(?:[^"\\\n]|\\.)*"')


def _ts_name(name: str) -> str:
    """A name :func:`load` finds (it reads ``spec/**/*.ts``)."""
    return name if name.endswith(".ts") else name + ".ts"


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def pack_specs(sources) -> tuple[dict[str, str], str, bool]:
    """A spec chain (``ir.System.sources``: the root ancestor first, the spec itself last) laid
    out for ``DIR/spec``, by names relative to that folder that do not depend on where the
    files were: the texts by name, the spec's name, and whether some ``extends`` line had to
    be rewritten.

    The spec is ``NAME.ts``, its file name.  Each spec it extends (walking up the chain) is
    stored where its child's ``extends`` names it, relative to the child (``extends
    "arc-eager.ts"`` or ``"arc-eager"``: ``arc-eager.ts`` beside it; ``"lib/base"``:
    ``lib/base.ts``), so its child is saved verbatim, when that path does not climb (no
    ``..``) and no other file of the chain took the name.  Otherwise (an absolute path, a
    path that climbs out with ``..``, a derived oracle or repair in the kernel cache naming the user's spec, or
    a name taken) it is stored beside the top as its file name, or ``STEM-2.ts``, ``STEM-3.ts``
    ... when that is taken, so two different specs of the same name never collide, and the
    child's ``extends`` line is rewritten to name it.  Packing a packed chain changes nothing."""
    paths = [Path(p) for p in sources]
    texts = [p.read_text(encoding="utf-8") for p in paths]
    names: list[Optional[str]] = [None] * len(paths)
    names[-1] = _ts_name(paths[-1].name)
    taken = {names[-1]}
    rewritten = False
    for k in range(len(paths) - 1, 0, -1):
        child, text = names[k], texts[k]
        ext = next((st for st in parse_spec(text, str(paths[k])).statements if isinstance(st, S.Extends)), None)
        if ext is None:  # (a chain has one `extends` a link; never here)
            raise ValueError(f"{paths[k]}: extends nothing, yet {paths[k - 1]} comes before it in the chain")
        folder = posixpath.dirname(child)
        verbatim = None
        if ext.path and not posixpath.isabs(ext.path) and not os.path.isabs(ext.path) and "\\" not in ext.path \
                and ".." not in ext.path.split("/"):
            cand = posixpath.normpath(posixpath.join(folder, _ts_name(ext.path)))
            if cand not in taken:
                verbatim = cand
        if verbatim is not None:
            names[k - 1] = verbatim
        else:
            base = _ts_name(paths[k - 1].name)
            stem, n, name = base[:-3], 2, base
            while name in taken:
                name, n = f"{stem}-{n}.ts", n + 1
            names[k - 1] = name
            texts[k] = _rewrite_extends(text, ext, posixpath.relpath(name, folder or "."))
            rewritten = rewritten or texts[k] != text
        taken.add(names[k - 1])
    return dict(zip(names, texts)), names[-1], rewritten


def _rewrite_extends(text: str, ext: S.Extends, target: str) -> str:
    """``text`` with its ``extends`` statement (``ext``) naming ``target`` instead."""
    lines = text.split("\n")
    k = ext.span.line - 1
    start = len(lines[0]) - len(lines[0].lstrip("\ufeff")) if k == 0 else 0  # columns follow a BOM
    m = _EXTENDS.match(lines[k], start + ext.span.col - 1)
    if m is None:
        raise ValueError(f"{ext.span}: no extends statement to rewrite")
    lines[k] = lines[k][:m.start()] + f'{m.group(1)}"{_quoted(target)}"' + lines[k][m.end():]
    return "\n".join(lines)


def packed_system(system: ir.System, overrides: Optional[dict] = None) -> ir.System:
    """The system a model saves (:func:`pack_specs`): ``system`` itself when its chain packs
    verbatim, else the same system loaded from the packed texts, written to the kernel cache
    (``specs/``, keyed by the texts), so that what trains hashes to what the model holds and
    the model's first parse finds its kernel built."""
    files, main, rewritten = pack_specs(system.sources)
    if not rewritten:
        return system
    h = hashlib.sha256(main.encode("utf-8"))
    for name in sorted(files):
        h.update(b"\0" + name.encode("utf-8") + b"\0" + files[name].encode("utf-8"))
    where = kernel_cache_dir() / "specs" / h.hexdigest()[:32]
    for name, text in files.items():
        target = where / name
        try:
            same = target.is_file() and target.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            write_atomic(target, text)
    return load_system(where / main, overrides)


def path_names(pairs) -> dict[str, str]:
    """``{spelling: shown}`` for the absolute spellings of each ``path`` of ``pairs`` of
    ``(path, shown)`` (as given, made absolute, symbolic links resolved; a None path is left
    out), for :func:`portable`."""
    out = {}
    for p, shown in pairs:
        if not p:
            continue
        p = os.fspath(p)
        for spelling in (p, os.path.abspath(p), str(Path(p).resolve())):
            if os.path.isabs(spelling) and len(Path(spelling).parts) > 1:
                out[spelling] = shown
    return out


def input_names(train_file, dev_file, features) -> list[tuple[str, str]]:
    """The files training read besides the spec (a ``--features`` file too), each with the
    name model.json gives it: its file name."""
    return [(f, Path(f).name) for f in (train_file, dev_file, features) if f]


def portable(value, names: dict[str, str]):
    """``value`` (model.json's content) with no absolute path the model was trained from:
    each key of ``names`` (absolute paths: the spec chain, the treebanks) replaced by its
    name, then the kernel cache directory by ``<kernel cache>`` and the home directory by
    ``~``, in every string (messages such as ``oracle_note`` name the spec)."""
    pairs = sorted(names.items(), key=lambda kv: -len(kv[0]))
    for where, shown in ((str(kernel_cache_dir()), "<kernel cache>"), (os.path.expanduser("~"), "~")):
        if os.path.isabs(where) and len(Path(where).parts) > 1:
            pairs.append((where, shown))
    # a whole path only: /home/ann is not replaced in /home/anna, nor in ../home/ann (relative)
    subs = [(re.compile(r"(?<![\w.~-])" + re.escape(old) + r"(?![\w.-])"), new) for old, new in pairs]

    def fix(v):
        if isinstance(v, str):
            for old, new in subs:
                v = old.sub(lambda _: new, v)
            return v
        if isinstance(v, dict):
            return {fix(k): fix(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [fix(x) for x in v]
        return v

    return fix(value)


def check_writable(out_dir: str | Path, force: bool = False) -> None:
    """Refuse, before any work, to replace an existing model (unless ``force``) or anything
    else that is not an empty directory (even with ``force``: it may hold someone's files),
    and a directory that cannot take the model: :func:`save` writes a temporary sibling of
    ``out_dir`` and renames it, so its parent must take a new file
    (:func:`~tsdsl.files.check_parents` creates and removes one there)."""
    out = Path(out_dir)
    if not out.exists() and not out.is_symlink():
        check_parents(out)  # its directories are created when it is saved
        return
    if out.is_dir() and not out.is_symlink() and (out / META).is_file():
        if not force:
            raise UsageError(f"{out}: already holds a model; refusing to overwrite it "
                             "(--force replaces it, or choose another --out)")
        foreign = sorted(p.name for p in out.iterdir() if p.name not in ENTRIES)
        if foreign:
            shown = ", ".join(foreign[:FOREIGN_SHOWN]) + (f" and {len(foreign) - FOREIGN_SHOWN} more"
                                                          if len(foreign) > FOREIGN_SHOWN else "")
            raise UsageError(f"{out}: holds a model and files a model does not write ({shown}); refusing to "
                             "replace it, which would delete them (move them away, or choose another --out)")
        check_parents(out)
        return
    if out.is_dir() and not out.is_symlink() and not any(out.iterdir()):
        check_parents(out)
        return
    raise UsageError(f"{out}: exists and is not a tsdsl model directory (nor empty); refusing to overwrite it")


def stored_weights(model: Model) -> wt.StoredWeights:
    """The weights as :func:`save` writes them."""
    if model.stored is not None:
        return model.stored
    if model.weights is None and model.read_weights is None:
        raise ValueError("a model needs weights to be saved")
    return wt.store(wt.SparseWeights.from_dense(model.dense_weights()), model.precision, model.prune)


def _write_contents(model: Model, d: Path) -> None:
    """Every file of the model directory, into the (empty) directory ``d``."""
    (d / "spec").mkdir()
    for name, text in model.spec_files.items():
        target = d / "spec" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (d / "features.yaml").write_text(model.features.text, encoding="utf-8")
    (d / "labels.json").write_text(json.dumps({"labels": model.labels, "root_label": model.root_label,
                                               "root_label_strict": model.root_label_strict},
                                              ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if model.tagger is not None:
        model.tagger.save(d / TAGGER)
    stored = stored_weights(model)
    wt.write(d / WEIGHTS, stored)
    meta = dict(model.meta)
    meta.update(format=FORMAT, tsdsl=__version__, generator=GENERATOR_VERSION,
                system=model.system.name, spec=model.spec_main, overrides=model.overrides,
                spec_hash=model.system.source_hash, features=model.features.name,
                features_digest=model.features.digest(), hash_bits=model.hash_bits,
                feature_hash=model.feature_hash,
                outputs=list(model.outputs), numpy=np.__version__,
                weights={"file": WEIGHTS, "precision": stored.precision, "prune": model.prune,
                         "stored": stored.size, "rows": int(len(stored.rows))})
    meta = portable(meta, model.path_names)
    (d / META).write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def save(model: Model, out_dir: str | Path, *, force: bool = False) -> Path:
    """Write the model directory atomically: into a temporary sibling, then renamed into
    place (an existing model, allowed by ``force``, is moved aside first and removed last)."""
    out = Path(out_dir)
    check_writable(out, force)
    try:
        _save_into(model, out)
    except OSError as exc:
        if exc.errno is None:
            raise
        # every step writes the model (its temporary sibling, the old one moved aside):
        # name the directory the user gave, not a hidden temporary one
        raise OSError(exc.errno, exc.strerror, os.fspath(out_dir)) from exc
    return out


def _save_into(model: Model, out: Path) -> None:
    """:func:`save` after its checks: the temporary sibling written, then renamed."""
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; a model directory is not
        _write_contents(model, tmp)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.replace(out, old / "model")
            try:
                os.replace(tmp, out)
            except BaseException:
                os.replace(old / "model", out)
                raise
            finally:
                shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path}: missing; is {path.parent} a model directory written by `tsdsl train`?") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: expected a JSON object")
    return data


def load(model_dir: str | Path) -> Model:
    """Read and check a model directory (see the module docstring)."""
    d = Path(model_dir)
    if not d.is_dir():
        if d.exists():
            raise ModelError(f"{d}: not a directory (a model is the directory `tsdsl train --out` writes)")
        raise ModelError(f"{d}: no such model directory")
    meta = _read_json(d / META)
    if meta.get("format") not in (1, FORMAT):
        raise ModelError(f"{d}: model format {meta.get('format')!r}, this tsdsl reads format {FORMAT}")
    if meta.get("tsdsl") != __version__ or meta.get("generator") != GENERATOR_VERSION:
        raise ModelError(f"{d}: trained with tsdsl {meta.get('tsdsl')} (kernel generator {meta.get('generator')}); "
                         f"this is tsdsl {__version__} (generator {GENERATOR_VERSION}): retrain the model")
    spec_dir = d / "spec"
    files = {p.relative_to(spec_dir).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted(spec_dir.rglob("*.ts"))} if spec_dir.is_dir() else {}
    main = meta.get("spec")
    if not isinstance(main, str) or main not in files:
        raise ModelError(f"{d}: the spec file {main!r} named in {META} is missing from {spec_dir}")
    overrides = meta.get("overrides") or {}
    try:
        system = load_system(spec_dir / main, overrides)
    except TsdslError as exc:
        raise ModelError(f"{d}: the saved spec no longer loads:\n{exc}") from None
    if system.source_hash != meta.get("spec_hash"):
        raise ModelError(f"{d}: the spec in {spec_dir} does not match the one the model was trained with "
                         f"(hash {system.source_hash[:12]} != {str(meta.get('spec_hash'))[:12]})")
    feat_path = d / "features.yaml"
    if not feat_path.is_file():
        raise ModelError(f"{feat_path}: missing")
    features = load_features(feat_path, system)
    if features.digest() != meta.get("features_digest"):
        raise ModelError(f"{feat_path}: the feature templates differ from those the model was trained with")
    labels_doc = _read_json(d / "labels.json")
    labels = labels_doc.get("labels")
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise ModelError(f"{d / 'labels.json'}: expected a list of label strings under \"labels\"")
    bits = meta.get("hash_bits")
    outputs = tuple(meta.get("outputs") or ())
    if not isinstance(bits, int) or not 8 <= bits <= 28:
        raise ModelError(f"{d / META}: bad hash_bits {bits!r}")
    feature_hash = meta.get("feature_hash", 1)  # models written before it was recorded: hash 1
    if type(feature_hash) is not int or feature_hash not in FEATURE_HASHES:
        raise ModelError(f"{d / META}: feature_hash {feature_hash!r}; this tsdsl reads "
                         f"{' and '.join(map(str, FEATURE_HASHES))}: retrain the model or update tsdsl")
    C = len(outputs)
    weights = None  # sparse storage stays sparse (Model.dense_weights expands it when asked)
    info = meta.get("weights") if isinstance(meta.get("weights"), dict) else {}
    try:
        if meta.get("format") == 1:
            rows, vals = _read_format1(d, C, bits)
            weights = np.zeros((1 << bits, C), dtype=np.float32)
            weights[rows] = vals
            stored, precision = None, "float32"
        else:
            stored = wt.read(d / WEIGHTS, C, bits, info.get("precision"))
            rows, precision = stored.rows.astype(np.int64), stored.precision
    except wt.WeightsError as exc:
        raise ModelError(str(exc)) from None
    tagger = _load_tagger(d, meta)
    return Model(system=system, spec_files=files, spec_main=main, overrides=overrides, features=features,
                 labels=labels, root_label=str(labels_doc.get("root_label") or "root"), hash_bits=bits,
                 outputs=outputs, weights=weights, meta=meta, live_rows=rows, stored=stored,
                 precision=precision, prune=float(info.get("prune") or 0.0), tagger=tagger, read_weights=stored,
                 root_label_strict=labels_doc.get("root_label_strict") is True, path=d,
                 feature_hash=feature_hash)


def _load_tagger(d: Path, meta: dict) -> Optional[Tagger]:
    """The tagger in ``d/tagger``, or None when the model has none.  A tagger that
    ``model.json`` records but whose directory is gone is refused: the model would otherwise
    pass for one trained without a tagger, refusing untagged input with the advice to retrain
    and silently parsing tagged input with a parser trained on predicted tags."""
    where = d / TAGGER
    recorded = meta.get("tagger")
    if not where.is_dir():
        if recorded:
            columns = recorded.get("columns") if isinstance(recorded, dict) else None
            what = f" for {', '.join(map(str, columns))}" if isinstance(columns, list) and columns else ""
            state = "not a directory" if where.exists() or where.is_symlink() else "missing"
            raise ModelError(f"{where}: {state} ({META} records a tagger{what}); the model is damaged: "
                             "restore the directory or retrain the model")
        return None
    try:
        return Tagger.load(where)
    except TaggerError as exc:
        raise ModelError(str(exc)) from None


def _read_format1(d: Path, C: int, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Format 1 (before sparse storage): the non-zero rows, dense float32 (weights.npy), and
    their row numbers (rows.npy)."""
    try:
        rows = np.load(d / "rows.npy", allow_pickle=False)
        vals = np.load(d / "weights.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise wt.WeightsError(f"{d}: cannot read the weights ({exc})") from None
    if vals.dtype != np.float32 or vals.ndim != 2 or vals.shape[1] != C or rows.shape != (vals.shape[0],) \
            or (len(rows) and (rows.min() < 0 or rows.max() >= (1 << bits))):
        raise wt.WeightsError(f"{d}: weights.npy/rows.npy do not fit {C} outputs and {bits} hash bits")
    wt.check_finite(d / "weights.npy", vals)
    return rows.astype(np.int64), vals
