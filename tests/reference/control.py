"""The control-parameter family of Bohnet, Nivre, Boguslavsky, Farkas, Ginter &
Hajic 2016, sections 3-5, under the readings the project chose.

State (O, U, A).  O is kept as a tuple left to right; O[1] is the RIGHTMOST
element, so O[i] == O_tuple[-i].  U is front first.
Base transitions (Fig. 2):  <-(i,j) adds O[j] -> O[i];  ->(i,j) adds O[i] -> O[j];
-(i) removes O[i];  + moves the front of U to the right end of O.
Standard preconditions (section 3.3): the root is never a dependent; single head
(not for DAG systems); a token is removed only if it has a head; + needs U nonempty.
Global parameters (3.4): capacity K (O starts with the first `start` tokens,
start = K by default, all tokens when K is infinite), distance D.
Instances (i,j) of an arc: i > j >= 1, i - j <= D, i <= K, i <= |O|.
Transition parameters: B (dependent removed after the arc, default true),
S (arc followed by +, default false), P periphery:
  "active" reading:   left index L = min(|O|, K), right index 1.
                      P=right: j == 1;  P=left: i == L;  -{P=left} removes O[L].
  "capacity" reading: left index is exactly K (needs |O| >= K).
Action names: plain ("LEFT-ARC") when the transition has exactly one (i,j)
instance under its K/D/P values, else "LEFT-ARC(i,j)".
Terminal: U empty and |O| == 1 (project convention: n == 0 is terminal too).
"""
import math
from collections import namedtuple

from ._util import reaches, snapshot

INF = math.inf
Config = namedtuple("Config", "O U arcs n")


class ControlSystem:
    def __init__(self, name, K, D, root, transitions, start=None,
                 periphery="active", single_head=True):
        # transitions: list of (action name, base, params); base in "<-", "->", "-", "+";
        # params may set B (bool), S (bool), P ("left", "right", "na").
        self.name, self.K, self.D, self.root = name, K, D, root
        self.transitions = [(nm, base, dict({"B": True, "S": False, "P": "na"}, **p))
                            for nm, base, p in transitions]
        self.start = start if start is not None else K
        self.periphery = periphery
        self.single_head = single_head

    # -- tokens -----------------------------------------------------------
    def root_id(self, n):
        return {"left": 0, "right": n + 1, "none": None}[self.root]

    def initial(self, n):
        tokens = list(range(1, n + 1))
        if self.root == "left":
            tokens = [0] + tokens
        elif self.root == "right":
            tokens = tokens + [n + 1]
        k = len(tokens) if self.start == INF else int(self.start)
        return Config(O=tuple(tokens[:k]), U=tuple(tokens[k:]), arcs=frozenset(), n=n)

    def terminal(self, c):
        return c.n == 0 or (not c.U and len(c.O) == 1)

    # -- instances --------------------------------------------------------
    def _periphery_ok(self, P, i, j, size):
        if P == "na":
            return True
        if P == "right":
            return j == 1 or i == 1
        if P == "left":
            if self.periphery == "capacity":
                return size >= self.K and (i == self.K or j == self.K)
            left = min(size, self.K)
            return i == left or j == left
        raise ValueError(P)

    def _static_instances(self, P):
        """The (i,j) pairs allowed by K, D, P alone (None if unbounded)."""
        if self.K == INF and P != "right":
            return None
        top = self.D + 1 if self.K == INF else int(self.K)
        return [(i, j) for i in range(2, top + 1) for j in range(1, i)
                if i - j <= self.D and self._periphery_ok(P, i, j, top)]

    def _instances(self, c):
        """Map action name -> (base, i, j, params) for every legal action."""
        out = {}
        O, size = c.O, len(c.O)
        at = lambda k: O[-k]  # O[k], 1-based from the right
        root = self.root_id(c.n)
        headed = {d for (_, d) in c.arcs}  # tokens that have a head
        for nm, base, p in self.transitions:
            if base == "+":
                if c.U:
                    out[nm] = ("+", None, None, p)
            elif base == "-":
                if p["P"] == "left":
                    k = min(size, self.K)
                elif p["P"] == "right":
                    k = 1
                else:
                    raise NotImplementedError("unindexed reduce only")
                if size >= 1 and at(k) in headed:
                    out[nm] = ("-", k, None, p)
            else:
                static = self._static_instances(p["P"])
                plain = static is not None and len(static) == 1
                for i in range(2, min(size, self.K) + 1):
                    for j in range(max(1, i - self.D), i):   # i - j <= D
                        if not self._periphery_ok(p["P"], i, j, size):
                            continue
                        head, dep = (at(j), at(i)) if base == "<-" else (at(i), at(j))
                        if dep == root:
                            continue
                        if self.single_head:
                            if dep in headed:
                                continue
                        elif (head, dep) in c.arcs or reaches(c.arcs, dep, head):
                            continue
                        if p["S"] and not c.U:
                            continue
                        out[nm if plain else "%s(%d,%d)" % (nm, i, j)] = (base, i, j, p)
        return out

    def legal(self, c):
        if self.terminal(c):
            return set()
        return set(self._instances(c))

    def apply(self, c, action):
        if self.terminal(c):
            raise AssertionError((action, c))
        base, i, j, p = self._instances(c)[action]
        O, U, arcs = list(c.O), c.U, c.arcs
        if base == "+":
            O.append(U[0])
            U = U[1:]
        elif base == "-":
            del O[-i]
        else:
            head, dep = (O[-j], O[-i]) if base == "<-" else (O[-i], O[-j])
            arcs = arcs | {(head, dep)}
            if p["B"]:
                O.remove(dep)
            if p["S"]:
                O.append(U[0])
                U = U[1:]
        return c._replace(O=tuple(O), U=U, arcs=arcs)

    def snapshot(self, c):
        return snapshot([("O", c.O), ("U", c.U)], c.arcs)


# -- the instantiations (Bohnet et al. 2016 sections 4-5) -------------------
L, R, RED, SH = "<-", "->", "-", "+"


def arc_standard():  # section 4.1
    return ControlSystem("arc-standard", K=2, D=1, root="left", transitions=[
        ("LEFT-ARC", L, {}), ("RIGHT-ARC", R, {}), ("SHIFT", SH, {})])


def arc_eager_cp():  # section 4.2
    return ControlSystem("arc-eager-cp", K=2, D=1, root="right", transitions=[
        ("LEFT-ARC", L, {}), ("RIGHT-ARC", R, {"B": False, "S": True}),
        ("REDUCE", RED, {"P": "left"}), ("SHIFT", SH, {})])


def arc_hybrid():  # section 4.4 (Kuhlmann et al. 2011), "capacity" periphery reading
    return ControlSystem("arc-hybrid", K=3, D=1, root="right", start=1,
                         periphery="capacity", transitions=[
                             ("LEFT-ARC", L, {"P": "right"}), ("RIGHT-ARC", R, {"P": "left"}),
                             ("SHIFT", SH, {})])


def easy_first():  # section 4.3
    return ControlSystem("easy-first", K=INF, D=1, root="none", transitions=[
        ("LEFT-ARC", L, {}), ("RIGHT-ARC", R, {})])


def easy_first_bounded(K=3):  # section 5.1
    return ControlSystem("easy-first-bounded", K=K, D=1, root="none", transitions=[
        ("LEFT-ARC", L, {}), ("RIGHT-ARC", R, {}), ("SHIFT", SH, {})])


def easy_first_nonproj(D=2):  # section 5.2
    return ControlSystem("easy-first-nonproj", K=INF, D=D, root="none", transitions=[
        ("LEFT-ARC", L, {}), ("RIGHT-ARC", R, {})])


def attardi(N=2, start=1):  # section 4.6, plus SHIFT (needed with finite K)
    # Attardi's stack starts with the root alone (start=1); start=N+1 is Bohnet's literal fill
    return ControlSystem("attardi", K=N + 1, D=N, root="left", start=start, transitions=[
        ("LEFT-ARC", L, {"P": "right"}), ("RIGHT-ARC", R, {"P": "right"}),
        ("SHIFT", SH, {})])


def dag():  # section 4.5 (Sagae & Tsujii 2008): no single-head rule
    return ControlSystem("dag", K=2, D=1, root="right", single_head=False, transitions=[
        ("LEFT-ARC", L, {"B": False}), ("RIGHT-ARC", R, {"B": False}),
        ("REDUCE", RED, {"P": "left"}), ("SHIFT", SH, {})])
