"""Shrinks a generated program that makes CPython and compiled code disagree.

Greedy deletion over the statement tree (gen.Stmt): remove one statement, or the elif/else
branches of an if, or a whole helper, or replace an if/for/while by its body; keep the change
when the program is still valid in CPython and still disagrees. Statements marked keep (loop
counters, bound-restoring reductions) are never removed, so a smaller program cannot overflow
int64 or run forever where the original did not.
"""
import re

from . import harness


def _places(body, out):
    """Every (list, index) holding a statement, deepest first so children go before parents."""
    for i, s in enumerate(body):
        if s.body is not None:
            _places(s.body, out)
            for _, b in s.more:
                _places(b, out)
        out.append((body, i))
    return out


def _still_fails(program, backend, kind):
    out = harness.check_program(program, backend)
    return out.kind == kind


def _try_edits(program, backend, kind, lists):
    """One pass of single-statement edits; returns True if anything was removed."""
    changed = False
    for body in lists:
        places = _places(body, [])
        for lst, i in places:
            if i >= len(lst):
                continue
            s = lst[i]
            if s.keep or s.head.startswith("return") and lst is body:
                continue
            candidates = [lst[:i] + lst[i + 1:]]
            if s.body is not None and not s.head.startswith("while"):
                candidates.append(lst[:i] + s.body + lst[i + 1:])
            for cand in candidates:
                saved = list(lst)
                lst[:] = cand
                if _still_fails(program, backend, kind):
                    changed = True
                    break
                lst[:] = saved
            if s.more and s in lst:
                saved_more = s.more
                s.more = []
                if _still_fails(program, backend, kind):
                    changed = True
                else:
                    s.more = saved_more
    return changed


def _drop_helpers(program, backend, kind):
    changed = False
    for f in list(program.funcs[:-1]):
        saved = list(program.funcs)
        program.funcs = [g for g in program.funcs if g is not f]
        if f.name + "(" not in program.source() and _still_fails(program, backend, kind):
            changed = True
        else:
            program.funcs = saved
    return changed


def _returns(body, out):
    for s in body:
        if s.head.startswith("return ("):
            out.append(s)
        if s.body is not None:
            _returns(s.body, out)
            for _, b in s.more:
                _returns(b, out)
    return out


def _drop_results(program, backend, kind):
    """Fewer values in the main function's result tuple (every return of it alike)."""
    rets = _returns(program.funcs[-1].body, [])
    if not rets:
        return False
    changed = False
    names = [n.strip() for n in rets[-1].head[len("return ("):].rstrip(")").split(",") if n.strip()]
    k = 0
    while len(names) > 1 and k < len(names):
        trial = names[:k] + names[k + 1:]
        head = "return (%s,)" % ", ".join(trial) if len(trial) == 1 else \
            "return (%s)" % ", ".join(trial)
        saved = [r.head for r in rets]
        for r in rets:
            r.head = head
        if _still_fails(program, backend, kind):
            names = trial
            changed = True
        else:
            for r, h in zip(rets, saved):
                r.head = h
            k += 1
    return changed


_SIMPLE = {"n": ["0", "1"], "x": ["0.5", "0.0"], "b": ["False", "True"]}


def _simplify_values(program, backend, kind):
    """`n3 = <expr>` becomes `n3 = 0` (a constant of the name's type: the generator names
    ints n.., floats x.., bools b..) when the disagreement stays."""
    changed = False
    for f in program.funcs:
        for lst, i in _places(f.body, []):
            s = lst[i]
            m = re.match(r"^([nxb])(\d+) = (.+)$", s.head)
            if s.body is not None or not m or m.group(3) in _SIMPLE[m.group(1)]:
                continue
            saved = s.head
            for c in _SIMPLE[m.group(1)]:
                s.head = "%s%s = %s" % (m.group(1), m.group(2), c)
                if _still_fails(program, backend, kind):
                    changed = True
                    break
                s.head = saved
    return changed


def reduce_program(program, backend, kind="mismatch", max_rounds=8):
    """Shrinks `program` in place while check_program still gives `kind`; returns it."""
    for _ in range(max_rounds):
        changed = _drop_results(program, backend, kind)
        changed |= _drop_helpers(program, backend, kind)
        changed |= _try_edits(program, backend, kind, [f.body for f in reversed(program.funcs)])
        changed |= _drop_helpers(program, backend, kind)
        if not changed:
            changed = _simplify_values(program, backend, kind)
        if not changed:
            break
    return program
