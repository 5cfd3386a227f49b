"""The model directory: everything needed to parse again, in plain files (no pickle).

    DIR/model.json       metadata: versions, spec hash, feature digest, outputs, arguments,
                         dev scores per epoch
    DIR/spec/...         the spec and the specs it extends, as trained (relative layout kept)
    DIR/features.yaml    the feature templates, verbatim
    DIR/labels.json      labels (in id order) and the label given to words attached to the root
    DIR/weights.npy      averaged weights of the rows that are not zero, float32 [rows, outputs]
    DIR/rows.npy         the hash bucket of each of those rows, int64
    DIR/tagger/          the tagger, when one was trained (see tsdsl.learn.tagger)

Loading refuses a directory written by another tsdsl version or format, or whose spec or
features no longer hash to what was trained.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Optional
from pathlib import Path

import numpy as np

from .._version import __version__
from ..lang import load_system
from ..errors import TsdslError, UsageError
from .features import FeatureSet, load_features
from .tagger import Tagger, TaggerError
from ..kernels.codegen import GENERATOR_VERSION
from .. import ir

FORMAT = 1
META = "model.json"


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
    weights: np.ndarray                 # dense float32 [2**hash_bits, outputs]
    meta: dict = field(default_factory=dict)
    live_rows: Optional[np.ndarray] = None  # rows of weights that may be non-zero (None: unknown)
    tagger: Optional[Tagger] = None     # predicts empty tag columns before parsing


def spec_sources(system: ir.System) -> tuple[dict[str, str], str]:
    """The texts of the spec and the specs it extends, keyed by their paths relative to the
    closest directory holding them all (so relative ``extends`` paths still resolve), and the
    key of the spec itself."""
    paths = [Path(p).resolve() for p in system.sources]
    base = Path(os.path.commonpath([str(p.parent) for p in paths]))
    out = {p.relative_to(base).as_posix(): p.read_text(encoding="utf-8") for p in paths}
    return out, paths[-1].relative_to(base).as_posix()


def check_writable(out_dir: str | Path) -> None:
    """Refuse, before any work, to replace something that is not a model directory."""
    out = Path(out_dir)
    if out.exists() and not (out / META).is_file() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: exists and is not a tsdsl model directory; refusing to overwrite it")


def save(model: Model, out_dir: str | Path) -> Path:
    """Write the model directory atomically: into a temporary sibling, then renamed."""
    out = Path(out_dir)
    check_writable(out)
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    try:
        (tmp / "spec").mkdir()
        for name, text in model.spec_files.items():
            target = tmp / "spec" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        (tmp / "features.yaml").write_text(model.features.text, encoding="utf-8")
        (tmp / "labels.json").write_text(json.dumps({"labels": model.labels, "root_label": model.root_label},
                                                    ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        if model.tagger is not None:
            model.tagger.save(tmp / "tagger")
        rows = np.flatnonzero(np.any(model.weights != 0, axis=1)).astype(np.int64)
        np.save(tmp / "rows.npy", rows, allow_pickle=False)
        np.save(tmp / "weights.npy", np.ascontiguousarray(model.weights[rows]), allow_pickle=False)
        meta = dict(model.meta)
        meta.update(format=FORMAT, tsdsl=__version__, generator=GENERATOR_VERSION,
                    system=model.system.name, spec=model.spec_main, overrides=model.overrides,
                    spec_hash=model.system.source_hash, features=model.features.name,
                    features_digest=model.features.digest(), hash_bits=model.hash_bits,
                    outputs=list(model.outputs), numpy=np.__version__)
        (tmp / META).write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.replace(out, old / "model")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


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
        raise ModelError(f"{d}: no such model directory")
    meta = _read_json(d / META)
    if meta.get("format") != FORMAT:
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
    try:
        rows = np.load(d / "rows.npy", allow_pickle=False)
        vals = np.load(d / "weights.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ModelError(f"{d}: cannot read the weights ({exc})") from None
    C = len(outputs)
    if vals.dtype != np.float32 or vals.ndim != 2 or vals.shape[1] != C or rows.shape != (vals.shape[0],) \
            or (len(rows) and (rows.min() < 0 or rows.max() >= (1 << bits))):
        raise ModelError(f"{d}: weights.npy/rows.npy do not fit {C} outputs and {bits} hash bits")
    weights = np.zeros((1 << bits, C), dtype=np.float32)
    weights[rows] = vals
    tagger = None
    if (d / "tagger").is_dir():
        try:
            tagger = Tagger.load(d / "tagger")
        except TaggerError as exc:
            raise ModelError(str(exc)) from None
    return Model(system=system, spec_files=files, spec_main=main, overrides=overrides, features=features,
                 labels=labels, root_label=str(labels_doc.get("root_label") or "root"), hash_bits=bits,
                 outputs=outputs, weights=weights, meta=meta, live_rows=rows, tagger=tagger)
