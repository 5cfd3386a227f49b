"""Small helpers shared by the reference transition systems.

Arcs are always a frozenset of (head, dependent) pairs.  Nothing here is clever:
every query is a linear scan, which is fine for test-sized sentences.
"""


def heads_of(arcs, d):
    """All heads h with h -> d in arcs."""
    return {h for (h, x) in arcs if x == d}


def has_head(arcs, d):
    return any(x == d for (_, x) in arcs)


def reaches(arcs, a, b):
    """True iff there is a (possibly empty) directed path a ->* b in arcs."""
    children = {}
    for (h, d) in arcs:
        children.setdefault(h, []).append(d)
    seen = {a}
    todo = [a]
    while todo:
        x = todo.pop()
        if x == b:
            return True
        for d in children.get(x, ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return False


def snapshot(lists, arcs, token_flags=None, global_flags=None):
    """The common snapshot form compared by the differential test.

    lists: sequence of (name, sequence of tokens in reading order).
    """
    return {
        "lists": {name: tuple(seq) for name, seq in lists},
        "arcs": frozenset(arcs),
        "token_flags": {k: frozenset(v) for k, v in (token_flags or {}).items()},
        "global_flags": {k: bool(v) for k, v in (global_flags or {}).items()},
    }
