"""The package's layers: every import runs down (or stays within its own part), and no
module imports itself back through a circle.  Lazy imports inside functions count too.

    0  _version, errors, gcpause             leaves
    1  files                                  writing outputs whole (its refusals are usage errors)
    2  ir, treebank                           the IR; trees and CoNLL-U, knowing no system
    3  lang, runner                           spec text -> IR; the API interpreter and kernels share
    4  interp, show                           running and printing the IR
    5  oracle, trace                          declared oracles; step tables
    6  verify | kernels | draw                checks by search | compiled kernels | pictures (siblings)
    7  learn                                  training and parsing
    8  cli, the package face (__init__)       what users call
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tsdsl"

LAYERS = {
    "tsdsl._version": 0, "tsdsl.errors": 0, "tsdsl.gcpause": 0,
    "tsdsl.files": 1,
    "tsdsl.ir": 2, "tsdsl.treebank": 2,
    "tsdsl.lang": 3, "tsdsl.runner": 3,
    "tsdsl.interp": 4, "tsdsl.show": 4,
    "tsdsl.oracle": 5, "tsdsl.trace": 5,
    "tsdsl.verify": 6, "tsdsl.kernels": 6, "tsdsl.draw": 6,
    "tsdsl.learn": 7,
    "tsdsl.cli": 8, "tsdsl": 8,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _part(module: str) -> str:
    """The entry of LAYERS a module belongs to (the longest matching prefix)."""
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len)
    return best


def _imports(path: Path) -> set[str]:
    """Absolute names of the tsdsl modules a file imports (at any depth in the file)."""
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:  # `from . import ir` imports tsdsl.ir, not the package face
                t = target + "." + a.name if _exists(target + "." + a.name) else target
                if t.startswith("tsdsl") and _exists(t):
                    out.add(t)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("tsdsl"))
    out.discard(me)
    return out


def _exists(module: str) -> bool:
    p = PACKAGE.parent.joinpath(*module.split("."))
    return p.with_suffix(".py").exists() or (p / "__init__.py").exists()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}


def test_every_module_has_a_layer():
    for module in _graph():
        assert _part(module), module


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports into a higher layer, or across to a sibling part of the same layer."""
    wrong = []
    for module, targets in graph.items():
        here = _part(module)
        for t in targets:
            there = _part(t)
            if there != here and (LAYERS[there] > LAYERS[here] or (LAYERS[there] == LAYERS[here] and here != "tsdsl")):
                wrong.append(f"{module} (layer {LAYERS[here]}) imports {t} (layer {LAYERS[there]})")
    return sorted(wrong)


def test_imports_run_down_the_layers():
    wrong = upward_imports(_graph())
    assert not wrong, "\n".join(wrong)


def test_the_rule_can_fail():
    """An interpreter that imported the learner, or kernels that imported verify, is reported."""
    graph = _graph()
    before = set(upward_imports(graph))
    graph["tsdsl.interp"] = graph["tsdsl.interp"] | {"tsdsl.learn.parser"}
    graph["tsdsl.kernels.build"] = graph["tsdsl.kernels.build"] | {"tsdsl.verify.loss"}
    assert sorted(set(upward_imports(graph)) - before) == ["tsdsl.interp (layer 4) imports tsdsl.learn.parser (layer 7)",
                                     "tsdsl.kernels.build (layer 6) imports tsdsl.verify.loss (layer 6)"]


def test_no_import_circles():
    graph = _graph()
    # a package's __init__ importing its own submodules is how a face works, not a circle
    edges = {m: {t for t in ts if not (t.startswith(m + ".") and (PACKAGE.parent / m.replace(".", "/")).is_dir())}
             for m, ts in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str):
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                raise AssertionError("import circle: " + " -> ".join(stack[stack.index(t):] + [t]))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
