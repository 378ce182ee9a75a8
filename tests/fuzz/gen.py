"""Random, valid programs in pyjit's @njit subset, for differential fuzzing.

wrap64(x), a module global the harness injects too, is the identity in compiled code and
reduces to int64 (two's complement) in CPython: int arithmetic inside it may overflow on purpose,
which tests that compiled ints wrap as documented. fits64(x), injected the same way, is the
identity in compiled code and raises OverflowError in CPython for an int outside int64: what
compiled int(), round(), math.floor/ceil/trunc raise for a float past int64.

A program is a few functions in one module: helpers h0..h2, sometimes a recursive helper r0, and
a main function f, each decorated with @njit (the module global `njit` is injected by the
harness: the identity for the CPython run, pyjit.njit for the compiled run). f takes ints,
floats and NumPy arrays and returns a tuple.

Validity rules the generator keeps, so that CPython and compiled code must agree:
- every variable keeps one type on every path (int, float, bool or a tuple of those, tuples
  nested up to three levels), and every name is assigned once before any use on every path
  (new names are unique, and a name made inside a block is only read inside that block);
- ints never leave int64: each expression carries a bound on its magnitude, an operand is
  reduced (`% 1000003`, ...) before an operation whose result could pass 2**62, and every int
  variable or array element holds at most 2**20 at each read;
- floats never reach inf or NaN: the same bounds (1e100 in expressions, 1e6 in variables), so
  no OverflowError (`**`, math.exp) and no ValueError (math.sqrt of abs, log of abs + 1);
- divisors are made nonzero (`x | 1`, `x % 7 + 1`, `abs(x) + 1.0`, constants), except rare
  risky ones that may be zero on purpose: ZeroDivisionError must then come from both sides;
- one program in eight converts edge floats to ints on purpose (NaN, infinities, +-9.3e18,
  +-2**63, or a float times 1e13): `fits64(int(x)) % 1000003`, so that OverflowError or
  ValueError comes from both sides (Program.allowed lists what a valid run may end in) and a
  result that fits is reduced at once;
- whole-array /, //, %, ** may divide by zero (NumPy's inf, nan and 0 on both sides: the CPython
  run computes with NumPy through the harness's PyArray), never raise (an int array's exponent
  is 0..3), and are folded at once into a float that holds no inf or NaN (counts of NaN, inf and
  positive items, the atan of the largest finite item);
- shift counts stay in 0..62 (0..63 for >>) with the left operand small enough;
- loops are bounded: ranges over small bounds, and while loops count their trips and break;
- recursion is bounded: r0(n, p0) returns at n <= 0, recurses with n - 1 (and n - 2), never
  assigns n, and is called with n in 0..REC_DEPTH-1.

The program is kept as a tree of statements (Stmt) so that reduce.py can delete statements and
render the rest again. What keeps a program valid goes with the statement it guards: a while
loop's counter (Stmt.pre, and keep=True on its increment and break, never deleted alone), the
reduction after an augmented assignment (Stmt.post), so that no deletion can make a valid
program overflow or run forever.
"""
import random
import re
import sys

VB_INT = 2 ** 20          # bound of an int variable or int array element at every read
VB_FLT = 1e6              # bound of a float variable or float array element at every read
LIM_INT = 2 ** 62         # bound of any int expression
LIM_FLT = 1e100           # bound of any float expression
EXACT = 2 ** 53           # ints mixed with floats stay exactly representable
MOD = 1000003
REC_DEPTH = 8             # a recursive helper is called with n in 0..REC_DEPTH-1

INT, FLT, BOOL = "int", "float", "bool"


def is_tuple(ty):
    return isinstance(ty, tuple) and ty[0] == "tuple"


def tuple_ty(elems):
    return ("tuple", tuple(elems))


def is_array(ty):
    return isinstance(ty, tuple) and ty[0] == "array"


def nest(spec):
    """The type of a (possibly nested) tuple written as nested Python tuples of INT, FLT, BOOL."""
    return tuple_ty(nest(e) if isinstance(e, tuple) else e for e in spec) \
        if isinstance(spec, tuple) else spec


# tuples nested two and three levels deep
NESTED = [(INT, (FLT, INT)), ((INT, FLT), FLT), (FLT, (INT, (FLT, INT))), ((INT, INT), (FLT, FLT)),
          ((FLT,), INT)]


def tuple_paths(ty, want, prefix=()):
    """Index paths from a tuple of type ty to its items of type want, at any depth."""
    out = []
    for i, e in enumerate(ty[1]):
        if e == want:
            out.append(prefix + (i,))
        if is_tuple(e):
            out.extend(tuple_paths(e, want, prefix + (i,)))
    return out


class Stmt:
    """One statement: `head` is its first line; a compound statement has `bodies`, a list of
    (header line, list of Stmt) pairs after the first (the first body follows `head`)."""

    def __init__(self, head, body=None, more=None, keep=False, pre=None, post=None):
        self.head = head
        self.pre = pre or []        # lines that belong to this statement: go before it
        self.post = post or []      # and after it (simple statements only)
        self.body = body            # None for a simple statement
        self.more = more or []      # [(header, body)] for elif/else
        self.keep = keep

    def render(self, indent, out):
        pad = "    " * indent
        out.extend(pad + line for line in self.pre)
        out.append(pad + self.head)
        out.extend(pad + line for line in self.post)
        if self.body is None:
            return
        _render_body(self.body, indent + 1, out)
        for header, body in self.more:
            out.append(pad + header)
            _render_body(body, indent + 1, out)


def _render_body(body, indent, out):
    if not body:
        out.append("    " * indent + "pass")
    for s in body:
        s.render(indent, out)


class Func:
    def __init__(self, name, params, ret):
        self.name = name
        self.params = params        # [(name, type)]
        self.ret = ret              # type
        self.body = []
        self.signature = None       # an explicit signature string, or None
        self.recursive = False

    def render(self, out):
        out.append("@njit(%r)" % self.signature if self.signature else "@njit")
        out.append("def %s(%s):" % (self.name, ", ".join(n for n, _ in self.params)))
        _render_body(self.body, 1, out)
        out.append("")


class Program:
    """A generated program: functions (helpers first, main last) and the main's arguments."""

    HEADER = "import math\n\n"      # np is injected by the harness, as njit and wrap64 are

    def __init__(self, funcs, args, globals_=()):
        self.globals = list(globals_)   # [(name, int or float)]: module constants
        self.funcs = funcs
        self.args = args            # [(kind, value)]: ("int", 3), ("float", 2.5), ("array", ndarray)
        self.result_types = None    # the types of the main function's results, when known
        self.allowed = ("ZeroDivisionError",)   # what a valid run may end in (harness.check)

    @property
    def main(self):
        return self.funcs[-1].name

    def source(self):
        out = ["%s = %s" % (n, _fmt_int(v) if isinstance(v, int) else _fmt_float(v))
               for n, v in self.globals]
        if out:
            out.append("\n")
        for f in self.funcs:
            f.render(out)
            out.append("")
        return self.HEADER + "\n".join(out).rstrip() + "\n"

    def args_source(self):
        parts = []
        for kind, v in self.args:
            if kind == "array":
                parts.append("np.array(%r, dtype=np.%s)" % (v.tolist(), v.dtype.name))
            else:
                parts.append(repr(v))
        return "[" + ", ".join(parts) + "]"

    def make_args(self):
        """Fresh copies of the arguments (the program may write its arrays)."""
        return [v.copy() if kind == "array" else v for kind, v in self.args]


def _fmt_int(v):
    return "(%d)" % v if v < 0 else "%d" % v


def _fmt_float(v):
    s = repr(float(v))
    return "(%s)" % s if v < 0 else s


class _Scope:
    def __init__(self):
        self.vars = {}


class FuncGen:
    """Generates the body of one function."""

    def __init__(self, pg, func, callees, max_depth, n_stmts):
        self.pg = pg
        self.r = pg.r
        self.func = func
        self.callees = callees      # helpers this function may call
        self.max_depth = max_depth
        self.max_loops = 2 if func.name == "f" else 1
        self.budget = n_stmts
        self.scopes = [_Scope()]
        self.loop_depth = 0
        self.expr_calls = 0
        self.arr_nest = 0
        for name, ty in func.params:
            self.scopes[0].vars[name] = ty

    # ---- names and scopes -------------------------------------------------------------------

    def visible(self, pred):
        out = []
        for sc in self.scopes:
            out.extend(n for n, t in sc.vars.items() if pred(t))
        return out

    def declare(self, name, ty):
        self.scopes[-1].vars[name] = ty

    def assignable(self, ty):
        """Variables of type ty that may be reassigned (not parameters of arrays; loop variables
        of a running for loop are left alone so that the loop reads as intended, and so is the
        depth n of a recursive helper, which bounds its recursion)."""
        fixed = "n" if self.func.recursive else None
        return [n for n in self.visible(lambda t: t == ty) if not n.startswith("i_") and n != fixed]

    # ---- int expressions: (source, bound) -----------------------------------------------------

    def reduce_int(self, src, b, limit):
        if b <= limit:
            return src, b
        r = self.r.random()
        if limit >= MOD and r < 0.6:
            return "(%s %% %d)" % (src, MOD), MOD - 1
        m = self.r.choice([7, 101, 1009, 65536])
        if m <= limit and r < 0.8:
            return "(%s %% %d)" % (src, m), m - 1
        if 2 * 1009 <= limit:
            return "((%s %% 2017) - 1008)" % src, 1008
        return "(%s %% %d)" % (src, max(2, min(limit, 7))), max(1, min(limit, 7) - 1)

    def int_leaf(self):
        r = self.r.random()
        names = self.visible(lambda t: t == INT)
        if names and r < 0.55:
            return self.r.choice(names), VB_INT
        if r < 0.65 and self.arr_nest < 2:
            arrs = self.visible(lambda t: is_array(t) and t[1] == "int64")
            if arrs:
                return self.array_read(self.r.choice(arrs), 0), VB_INT
        if r < 0.72:
            arrs = self.visible(is_array)
            if arrs:
                a = self.r.choice(arrs)
                ty = self.pg.types[a]
                if ty[1] == "int64" and self.r.random() < 0.3:
                    return "%s.%s()" % (a, self.r.choice(["sum", "min", "max"])), 64 * VB_INT
                if self.pg.types[a][2] == 1 and self.r.random() < 0.5:
                    return "len(%s)" % a, 64
                tups = self.visible(is_tuple)
                if tups and self.r.random() < 0.2:
                    return "len(%s)" % self.r.choice(tups), 3
                return "%s.shape[%d]" % (a, self.r.randrange(self.pg.types[a][2])), 64
        if r < 0.78:
            item = self.tuple_item(INT)
            if item:
                return item, VB_INT
        if r < 0.82 and self.pg.globals:
            g = [(n, v) for n, v in self.pg.globals if isinstance(v, int) and abs(v) <= LIM_INT]
            if g:
                n, v = self.r.choice(g)
                return n, abs(v)
        v = self.r.choice([0, 1, 2, 3, 5, 7, 10, 13, 100, 255, -1, -2, -3, -7, -100,
                           self.r.randint(-1000, 1000), self.r.randint(-VB_INT, VB_INT),
                           self.r.choice([2 ** 31, 2 ** 32 + 7, 2 ** 53 + 1, -(2 ** 61), 2 ** 62 - 1,
                                          -(2 ** 40) - 3, 9007199254740993])])
        return _fmt_int(v), abs(v)

    def pg_tuple(self, name):
        return self.var_type(name)[1]

    def var_type(self, name):
        for sc in reversed(self.scopes):
            if name in sc.vars:
                return sc.vars[name]
        raise KeyError(name)

    def tuple_item(self, want):
        """`t[i][j]...`: an item of type want of a visible tuple, at any depth, or None."""
        found = [(n, path) for n in self.visible(is_tuple)
                 for path in tuple_paths(self.var_type(n), want)]
        if not found:
            return None
        name, path = self.r.choice(found)
        ty = self.var_type(name)
        parts = []
        for i in path:
            n = len(ty[1])
            parts.append("[%d]" % (i - n if self.r.random() < 0.3 else i))
            ty = ty[1][i]
        return name + "".join(parts)

    def int_divisor(self, d):
        """A nonzero int divisor, or (rarely) one that may be zero."""
        r = self.r.random()
        if r < 0.03:
            s, b = self.int_expr(d)
            return s, b, 0
        if r < 0.35:
            v = self.r.choice([1, 2, 3, 5, 7, 10, 1000, -1, -2, -3, -7, -10])
            return _fmt_int(v), abs(v), abs(v)
        s, b = self.int_expr(d)
        s, b = self.reduce_int(s, b, LIM_INT // 2)
        if r < 0.6:
            return "(%s | 1)" % s, b + 1, 1
        k = self.r.choice([3, 7, 16, 100])
        if r < 0.8:
            return "((%s %% %d) + 1)" % (s, k), k, 1
        return "(-((%s %% %d) + 1))" % (s, k), k, 1

    def int_expr(self, d):
        if d <= 0 or self.r.random() < 0.2:
            return self.int_leaf()
        r = self.r.random()
        if r < 0.35:
            return self.int_arith(d)
        if r < 0.5:
            return self.int_bitwise(d)
        if r < 0.6:
            s, b = self.int_expr(d - 1)
            op = self.r.choice(["-", "~", "abs", "+"])
            if op == "abs":
                return "abs(%s)" % s, b
            return "(%s%s)" % (op, s), b + 1
        if r < 0.68:
            s1, b1 = self.int_expr(d - 1)
            s2, b2 = self.int_expr(d - 1)
            if self.r.random() < 0.25:
                s3, b3 = self.int_expr(d - 1)
                return "%s(%s, %s, %s)" % (self.r.choice(["min", "max"]), s1, s2, s3), \
                    max(b1, b2, b3)
            return "%s(%s, %s)" % (self.r.choice(["min", "max"]), s1, s2), max(b1, b2)
        if r < 0.78 and self.pg.edges and self.r.random() < 0.12:
            return self.edge_conversion(d)
        if r < 0.78:
            s, b = self.float_expr(d - 1)
            s, b = self.reduce_float(s, b, 1e15)
            f = self.r.choice(["int", "math.floor", "math.ceil", "math.trunc", "round"])
            if self.r.random() < 0.15:
                s, b = self.int_expr(d - 1)     # an int argument comes back as it is
                return "%s(%s)" % (f, s), b
            return "%s(%s)" % (f, s), int(b) + 1
        if r < 0.85:
            c = self.condition(d - 1)
            s1, b1 = self.int_expr(d - 1)
            s2, b2 = self.int_expr(d - 1)
            return "(%s if %s else %s)" % (s1, c, s2), max(b1, b2)
        if r < 0.9:
            call = self.call_expr(d, INT)
            if call:
                return call, VB_INT
        if r < 0.93 and "wrap" not in self.pg.avoid:
            # the value is any int64: reduced at once, as -x or abs(x) of INT64_MIN would leave it
            return self.reduce_int("wrap64(%s)" % self.ring_expr(d - 1), 2 ** 63, LIM_INT)
        if r < 0.97:
            arrs = self.visible(lambda t: is_array(t) and t[1] == "int64")
            if arrs:
                return self.array_read(self.r.choice(arrs), d - 1), VB_INT
        return self.int_leaf()

    EDGE_FLOATS = ["float('nan')", "math.nan", "float('inf')", "(-math.inf)", "9.3e18", "(-9.3e18)",
                   "9.223372036854775808e18", "(-9.223372036854775808e18)", "9.2e18", "(-9.2e18)",
                   "1e300", "(-1e19)", "4503599627370497.0"]

    def edge_conversion(self, d):
        """int(), round(), math.floor/ceil/trunc of a float at the edge of int64, or NaN, or an
        infinity: ValueError or OverflowError from both sides. fits64 (a global the harness
        injects) raises CPython's OverflowError where the int would not fit int64, and is the
        identity in compiled code, which raises by itself. The result is reduced at once."""
        f = self.r.choice(["int", "math.floor", "math.ceil", "math.trunc", "round"])
        if self.r.random() < 0.6:
            x = self.r.choice(self.EDGE_FLOATS)
        else:
            s, b = self.float_expr(d - 1)
            x = "(%s * %s)" % (self.reduce_float(s, b, VB_FLT)[0],
                               self.r.choice(["1e13", "9.3e12", "1e300", "-1e14"]))
        conv = "(fits64(%s(%s)) %% %d)" % (f, x, MOD)
        if self.r.random() < 0.5:
            s, b = self.int_leaf()
            conv = "(%s if %s else %s)" % (conv, self.condition(max(d - 1, 0)),
                                            self.reduce_int(s, b, MOD)[0])
        return conv, MOD

    def int_arith(self, d):
        op = self.r.choice(["+", "-", "*", "//", "%", "**", "+", "-", "*"])
        a, ba = self.int_expr(d - 1)
        if op in ("+", "-"):
            b, bb = self.int_expr(d - 1)
            a, ba = self.reduce_int(a, ba, LIM_INT // 2)
            b, bb = self.reduce_int(b, bb, LIM_INT // 2)
            return "(%s %s %s)" % (a, op, b), ba + bb
        if op == "*":
            b, bb = self.int_expr(d - 1)
            if ba * bb > LIM_INT:
                a, ba = self.reduce_int(a, ba, MOD)
            if ba * bb > LIM_INT:
                b, bb = self.reduce_int(b, bb, MOD)
            return "(%s * %s)" % (a, b), max(ba * bb, 1)
        if op in ("//", "%"):
            b, bb, low = self.int_divisor(d - 1)
            if op == "//":
                return "(%s // %s)" % (a, b), ba + 1
            return "(%s %% %s)" % (a, b), bb
        # power: small base, non-negative exponent at most 3
        a, ba = self.reduce_int(a, ba, 1000)
        if self.r.random() < 0.5:
            e = self.r.randint(0, 3)
            if self.r.random() < 0.2:
                return "pow(%s, %d)" % (a, e), max(ba ** e, 1)
            return "(%s ** %d)" % (a, e), max(ba ** e, 1)
        b, bb = self.int_expr(d - 1)
        return "(%s ** (%s %% 4))" % (a, b), max(ba ** 3, 1)

    def ring_expr(self, d):
        """Int arithmetic that may leave int64: only operations that commute with reduction
        modulo 2**64 (+ - * & | ^ ~, ** by a constant, << by less than 64), so wrap64(...)
        of it is what int64 arithmetic gives. CPython computes it exactly, wraps at the end."""
        if d <= 0 or self.r.random() < 0.25:
            s, b = self.int_expr(max(d - 1, 0))
            if self.r.random() < 0.3:
                s = _fmt_int(self.r.choice([2 ** 62 + 11, -(2 ** 63), 2 ** 63 - 1, 3 ** 39,
                                            -(2 ** 61) - 5, 6364136223846793005]))
            if not re.search(r"[A-Za-z_]", s):
                # CPython folds constant subexpressions into one (maybe huge) constant before
                # any compiler sees them: a module global keeps the overflow at run time
                return self.pg.add_global(eval(s))
            return s
        op = self.r.choice(["+", "-", "*", "*", "&", "|", "^", "~", "neg", "<<", "**"])
        a = self.ring_expr(d - 1)
        if op == "**":
            return "(%s ** %d)" % (a, self.r.randint(0, 5))
        if op == "~":
            return "(~%s)" % a
        if op == "neg":
            return "(-%s)" % a
        if op == "<<":
            return "(%s << %d)" % (a, self.r.randint(0, 63))
        return "(%s %s %s)" % (a, op, self.ring_expr(d - 1))

    def int_bitwise(self, d):
        op = self.r.choice(["&", "|", "^", "<<", ">>"])
        a, ba = self.int_expr(d - 1)
        if op in ("&", "|", "^"):
            b, bb = self.int_expr(d - 1)
            a, ba = self.reduce_int(a, ba, LIM_INT // 4)
            b, bb = self.reduce_int(b, bb, LIM_INT // 4)
            return "(%s %s %s)" % (a, op, b), 2 ** (int(max(ba, bb)).bit_length() + 1)
        if self.r.random() < 0.5:
            m = self.r.randint(0, 63 if op == ">>" else 62)
            cnt = str(m)
        else:
            k = self.r.choice([8, 17, 33, 63, 64])
            if op == "<<":
                k = min(k, 63)
            m = k - 1
            c, _ = self.int_expr(d - 1)
            cnt = "(%s %% %d)" % (c, k)
        if op == ">>":
            return "(%s >> %s)" % (a, cnt), ba
        room = 62 - m                       # |a| < 2**room keeps a << m inside int64
        if ba >= 2 ** room:
            if room >= 3 and self.r.random() < 0.5:
                a = "((%s %% %d) - %d)" % (a, 2 ** room, 2 ** (room - 1))
            else:
                a = "(%s %% %d)" % (a, 2 ** room)
            ba = 2 ** room
        return "(%s << %s)" % (a, cnt), ba * 2 ** m

    # ---- float expressions ------------------------------------------------------------------

    def reduce_float(self, src, b, limit):
        if b <= limit:
            return src, b
        r = self.r.random()
        if r < 0.3 and limit >= 1000.0:
            return "(%s %% 1000.0)" % src, 1000.0
        if r < 0.5 and limit >= 1000.0:
            return "(%s %% (-997.5))" % src, 997.5
        if r < 0.7:
            return "math.atan(%s)" % src, 1.6
        if r < 0.85:
            return "math.tanh(%s)" % src, 1.0
        return "math.sin(%s)" % src, 1.0

    def float_leaf(self):
        r = self.r.random()
        names = self.visible(lambda t: t == FLT)
        if names and r < 0.55:
            return self.r.choice(names), VB_FLT
        if r < 0.65 and self.arr_nest < 2:
            arrs = self.visible(lambda t: is_array(t) and t[1] == "float64")
            if arrs:
                return self.array_read(self.r.choice(arrs), 0), VB_FLT
        if r < 0.68:
            arrs = self.visible(lambda t: is_array(t) and t[1] == "float64")
            if arrs:
                a = self.r.choice(arrs)
                if self.pg.types[a][2] == 1 and self.r.random() < 0.3:
                    return "%s.sum()" % a, 64 * VB_FLT
                return "%s.%s()" % (a, self.r.choice(["min", "max"])), VB_FLT
        if r < 0.72:
            item = self.tuple_item(FLT)
            if item:
                return item, VB_FLT
        if r < 0.8:
            s, b = self.int_leaf()
            return "float(%s)" % s, b
        if r < 0.84 and self.pg.globals:
            g = [(n, v) for n, v in self.pg.globals if isinstance(v, float)]
            if g:
                n, v = self.r.choice(g)
                return n, abs(v)
        v = self.r.choice([0.0, 0.5, 1.0, 2.0, -1.0, -0.5, 3.25, 1e-3, -2.5, 10.0, 0.1,
                           round(self.r.uniform(-100, 100), 3), self.r.uniform(-10, 10),
                           self.r.choice([1e-200, -5e-324, 1e15 + 0.5, 4503599627370497.0,
                                          -0.0, 1e-8, 123456.789])])
        return _fmt_float(v), abs(v)

    def float_divisor(self, d):
        """(source, low, high): |divisor| is in [low, high], or may be 0 when low == 0."""
        r = self.r.random()
        if r < 0.03:
            s, b = self.int_expr(d)
            s, b = self.reduce_int(s, b, EXACT)
            return "float(%s)" % s, 0, b
        if r < 0.3:
            v = self.r.choice([0.5, 2.0, 3.0, -1.5, 7.0, -4.0, 0.25, 10.0, 0.1, -0.3, 0.7, 1e-3])
            return _fmt_float(v), abs(v), abs(v)
        if r < 0.45:
            s, b, low = self.int_divisor(d)
            s, b = self.reduce_int(s, b, EXACT)
            return s, low, b
        s, b = self.float_expr(d)
        s, b = self.reduce_float(s, b, LIM_FLT / 10)
        if r < 0.8:
            return "(abs(%s) + 1.0)" % s, 1.0, b + 1.0
        return "(-(math.fabs(%s) + 0.5))" % s, 0.5, b + 0.5

    def float_expr(self, d):
        if d <= 0 or self.r.random() < 0.2:
            return self.float_leaf()
        r = self.r.random()
        if r < 0.4:
            return self.float_arith(d)
        if r < 0.62:
            return self.float_math(d)
        if r < 0.68:
            s, b = self.float_expr(d - 1)
            op = self.r.choice(["-", "abs", "+"])
            if op == "abs":
                return "abs(%s)" % s, b
            return "(%s%s)" % (op, s), b
        if r < 0.74:
            s1, b1 = self.float_expr(d - 1)
            s2, b2 = self.float_expr(d - 1)
            return "%s(%s, %s)" % (self.r.choice(["min", "max"]), s1, s2), max(b1, b2)
        if r < 0.8:
            c = self.condition(d - 1)
            s1, b1 = self.float_expr(d - 1)
            s2, b2 = self.float_expr(d - 1)
            return "(%s if %s else %s)" % (s1, c, s2), max(b1, b2)
        if r < 0.88:
            call = self.call_expr(d, FLT)
            if call:
                return call, VB_FLT
        if r < 0.94:
            arrs = self.visible(lambda t: is_array(t) and t[1] == "float64")
            if arrs:
                return self.array_read(self.r.choice(arrs), d - 1), VB_FLT
        if r < 0.97:
            s, b = self.int_expr(d - 1)
            s, b = self.reduce_int(s, b, EXACT)
            return "float(%s)" % s, b
        return self.float_leaf()

    def num_operand(self, d):
        """A float operand, or sometimes an int one (exact as a float)."""
        if self.r.random() < 0.25:
            s, b = self.int_expr(d)
            return self.reduce_int(s, b, EXACT)
        return self.float_expr(d)

    def float_arith(self, d):
        op = self.r.choice(["+", "-", "*", "/", "//", "%", "**", "+", "-", "*", "/"])
        if op in ("+", "-", "*"):
            a, ba = self.num_operand(d - 1)
            b, bb = self.float_expr(d - 1)
            if self.r.random() < 0.5:
                a, ba, b, bb = b, bb, a, ba
            lim = LIM_FLT / 2 if op != "*" else 1e50
            a, ba = self.reduce_float(a, ba, lim) if ba > lim else (a, ba)
            b, bb = self.reduce_float(b, bb, lim) if bb > lim else (b, bb)
            bound = ba + bb if op != "*" else ba * bb
            return "(%s %s %s)" % (a, op, b), max(bound, 1.0)
        if op in ("/", "//", "%"):
            if self.r.random() < 0.15:
                a, ba = self.int_expr(d - 1)
                a, ba = self.reduce_int(a, ba, EXACT)
                if op != "/":
                    a = "float(%s)" % a     # int // int would be an int: this is a float
            else:
                a, ba = self.float_expr(d - 1)
            b, low, high = self.float_divisor(d - 1)
            if op == "%":
                return "(%s %% %s)" % (a, b), max(high, 1.0)
            # a zero divisor raises; a nonzero one is then at least 1 (an int value)
            eff = low if low else 1.0
            a, ba = self.reduce_float(a, ba, LIM_FLT * eff / 4)
            return "(%s %s %s)" % (a, op, b), ba / eff + 1.0
        return self.float_pow(d)

    def float_pow(self, d):
        r = self.r.random()
        if r < 0.4:
            a, ba = self.float_expr(d - 1)
            a, ba = self.reduce_float(a, ba, 1e20)
            e = self.r.choice([2, 3, 2.0, 1, 0, "var"])
            if e == "var":
                n, _ = self.int_expr(d - 1)
                return "(%s ** (%s %% 4))" % (a, n), max(ba ** 3.0, 1.0)
            return "(%s ** %s)" % (a, e), max(ba ** float(e), 1.0)
        a, ba = self.float_expr(d - 1)
        a, ba = self.reduce_float(a, ba, 100.0)
        base = "(abs(%s) + 0.5)" % a
        if r < 0.7:
            e = self.r.choice([-3, -2, -1, 0.5, 1.5, -0.5, 2.5, -2.5, 0.25])
            return "(%s ** %s)" % (base, _fmt_float(e) if isinstance(e, float)
                                   else _fmt_int(e)), max((ba + 0.5) ** 3, 8.0)
        x, _ = self.float_expr(d - 1)
        return "(%s ** (math.sin(%s) * 3.0))" % (base, x), max((ba + 0.5) ** 3, 8.0)

    def float_math(self, d):
        f = self.r.choice(["sqrt", "sin", "cos", "exp", "fabs", "hypot", "atan", "tanh",
                           "log", "floor", "sqrt", "sin", "cos", "atan2", "copysign"])
        if "math." + f in self.pg.avoid:
            f = "sin"
        a, ba = self.float_expr(d - 1)
        if f == "sqrt":
            if self.r.random() < 0.5:
                return "math.sqrt(abs(%s))" % a, max(ba, 1.0) ** 0.5
            return "math.sqrt(math.fabs(%s))" % a, max(ba, 1.0) ** 0.5
        if f in ("sin", "cos"):
            a, ba = self.reduce_float(a, ba, 1e6)
            return "math.%s(%s)" % (f, a), 1.0
        if f == "exp":
            a, ba = self.reduce_float(a, ba, 50.0)
            return "math.exp(%s)" % a, 2.0 ** 73
        if f == "fabs":
            if self.r.random() < 0.3 and "math.fmod" not in self.pg.avoid:
                b, _ = self.float_expr(d - 1)
                b, _ = self.reduce_float(b, LIM_FLT * 2, 1000.0)
                return "math.fmod(%s, (math.fabs(%s) + 0.5))" % (a, b), ba
            return "math.fabs(%s)" % a, ba
        if f in ("atan", "tanh"):
            return "math.%s(%s)" % (f, a), 1.6
        if f == "log":
            return "math.log(abs(%s) + 1.0)" % a, 240.0
        if f == "floor":
            # math.floor gives an int; mixed back into float arithmetic
            a, ba = self.reduce_float(a, ba, 1e15)
            if self.r.random() < 0.4:
                return "round(%s, %d)" % (a, self.r.randint(-2, 4)), ba + 100.0
            return "(math.floor(%s) * 1.0)" % a, ba + 1.0
        b, bb = self.float_expr(d - 1)
        if f == "hypot":
            a, ba = self.reduce_float(a, ba, LIM_FLT / 4)
            b, bb = self.reduce_float(b, bb, LIM_FLT / 4)
            return "math.hypot(%s, %s)" % (a, b), ba + bb
        if f == "atan2":
            return "math.atan2(%s, %s)" % (a, b), 3.2
        return "math.copysign(%s, %s)" % (a, b), ba

    # ---- booleans -----------------------------------------------------------------------------

    def bool_expr(self, d):
        r = self.r.random()
        if d <= 0 or r < 0.45:
            return self.compare(max(d - 1, 0))
        if r < 0.5:
            return "(not %s)" % self.bool_expr(d - 1)
        if r < 0.53:
            return "(not %s)" % self.int_expr(d - 1)[0]
        if r < 0.55:
            return "(%s %s %s)" % (self.bool_expr(d - 1), self.r.choice(["==", "!="]),
                                   self.bool_expr(d - 1))
        if r < 0.75:
            op = self.r.choice(["and", "or"])
            return "(%s %s %s)" % (self.bool_expr(d - 1), op, self.bool_expr(d - 1))
        if r < 0.85:
            names = self.visible(lambda t: t == BOOL)
            if names:
                return self.r.choice(names)
            call = self.call_expr(d, BOOL)
            if call:
                return call
        if r < 0.92:
            return self.chained(d - 1)
        return self.compare(d - 1)

    def cmp_operands(self, d, n):
        kind = self.r.random()
        out = []
        for _ in range(n):
            if kind < 0.45:
                out.append(self.int_expr(d)[0])
            elif kind < 0.85:
                out.append(self.float_expr(d)[0])
            else:
                s, b = self.num_operand(d)
                out.append(s)
        return out

    def compare(self, d):
        r = self.r.random()
        if r < 0.1:
            s, _ = self.int_expr(d)
            return "((%s %% 2) == 0)" % s
        if r < 0.19 and r >= 0.16:
            s, _ = self.int_expr(d)
            return "(%s %s range(%s))" % (s, self.r.choice(["in", "not in"]), self.range_args())
        if r < 0.16:
            s, _ = self.int_expr(d)
            consts = ", ".join(_fmt_int(self.r.randint(-5, 5)) for _ in range(self.r.randint(2, 4)))
            return "(%s %s (%s))" % (s, self.r.choice(["in", "not in"]), consts)
        a, b = self.cmp_operands(d, 2)
        op = self.r.choice(["<", "<=", ">", ">=", "==", "!="])
        return "(%s %s %s)" % (a, op, b)

    def chained(self, d):
        a, b, c = self.cmp_operands(d, 3)
        o1 = self.r.choice(["<", "<=", ">", ">=", "==", "!="])
        o2 = self.r.choice(["<", "<=", ">", ">=", "==", "!="])
        return "(%s %s %s %s %s)" % (a, o1, b, o2, c)

    def condition(self, d):
        r = self.r.random()
        if r < 0.08:
            return self.int_expr(d)[0]
        if r < 0.12:
            return self.float_expr(d)[0]
        return self.bool_expr(d)

    # ---- arrays, tuples, calls ----------------------------------------------------------------

    def index_expr(self, d, n_expr, n_const):
        r = self.r.random()
        if r < 0.2 and n_const:
            return _fmt_int(self.r.randrange(-n_const, n_const))
        s, b = self.int_expr(d)
        s, b = self.reduce_int(s, b, LIM_INT // 2)
        if r < 0.7:
            return "(%s %% %s)" % (s, n_expr)
        return "(-1 - (%s %% %s))" % (s, n_expr)

    def array_read(self, a, d):
        self.arr_nest += 1
        try:
            return "%s[%s]" % (a, self.array_index(a, d))
        finally:
            self.arr_nest -= 1

    def array_index(self, a, d):
        ndim = self.pg.types[a][2]
        shape = self.pg.shapes.get(a) or (0,) * ndim
        if ndim == 1:
            n = self.r.choice(["len(%s)" % a, "%s.shape[0]" % a])
            return self.index_expr(d, n, shape[0])
        return ", ".join(self.index_expr(d, "%s.shape[%d]" % (a, k), shape[k])
                         for k in range(ndim))

    def tuple_value(self, d, elems):
        parts = []
        for e in elems:
            parts.append(self.typed_expr(d, e))
        return "(%s%s)" % (", ".join(parts), "" if len(parts) > 1 else ",")

    def typed_expr(self, d, ty, bound=True):
        """An expression of type ty whose value is inside the variable bounds."""
        if ty == INT:
            s, b = self.int_expr(d)
            return self.reduce_int(s, b, VB_INT)[0] if bound else s
        if ty == FLT:
            s, b = self.float_expr(d)
            return self.reduce_float(s, b, VB_FLT)[0] if bound else s
        if ty == BOOL:
            return self.bool_expr(d)
        if is_tuple(ty):
            r = self.r.random()
            if r < 0.3:
                names = self.visible(lambda t: t == ty)
                if names:
                    return self.r.choice(names)
            if r < 0.5:
                call = self.call_expr(d, ty)
                if call:
                    return call
            if r < 0.6 and ty[1] in ((INT, INT), (FLT, FLT)):
                return self.divmod_expr(d, ty[1][0])
            if r < 0.7:
                item = self.tuple_item(ty)      # a tuple inside a nested one
                if item:
                    return item
            return self.tuple_value(d, ty[1])
        raise ValueError(ty)

    def divmod_expr(self, d, ty):
        if ty == INT:
            a, ba = self.int_expr(d - 1)
            a, ba = self.reduce_int(a, ba, VB_INT // 2)
            x, bx = self.int_expr(d - 1)
            x, bx = self.reduce_int(x, bx, VB_INT // 2)
            r = self.r.random()
            b = x if r < 0.03 else "(%s | 1)" % x if r < 0.5 else "((%s %% 7) + 1)" % x \
                if r < 0.8 else _fmt_int(self.r.choice([1, 2, 3, -1, -3, 10]))
            return "divmod(%s, %s)" % (a, b)
        a, ba = self.float_expr(d - 1)
        a, ba = self.reduce_float(a, ba, VB_FLT / 2)
        b, _ = self.float_expr(d - 1)
        b, _ = self.reduce_float(b, LIM_FLT * 2, 1000.0)
        return "divmod(%s, (abs(%s) + 1.0))" % (a, b)

    def call_expr(self, d, ret):
        cands = [f for f in self.callees if f.ret == ret and
                 all(self.visible(lambda t, ty=ty: t == ty) for _, ty in f.params if is_array(ty))]
        if not cands or self.expr_calls >= 3:
            return None
        self.expr_calls += 1
        f = self.r.choice(cands)
        args = []
        for name, ty in f.params:
            if f.recursive and name == "n":
                args.append("(%s %% %d)" % (self.int_expr(max(d - 1, 0))[0], REC_DEPTH))
            elif is_array(ty):
                arrs = self.visible(lambda t: t == ty)
                args.append(self.r.choice(arrs))
            else:
                args.append(self.typed_expr(max(d - 1, 0), ty))
        return "%s(%s)" % (f.name, ", ".join(args))

    # ---- statements ---------------------------------------------------------------------------

    def block(self, depth, n):
        """n statements (at least one) at nesting depth `depth`, in a new scope."""
        self.scopes.append(_Scope())
        body = []
        for _ in range(n):
            if self.budget <= 0 and body:
                break
            body.extend(self.statement(depth))
        self.scopes.pop()
        return body

    def statement(self, depth):
        self.budget -= 1
        self.expr_calls = 0
        if self.r.random() < 0.06 and "arrays" not in self.pg.avoid:
            return self.st_local_array()
        if self.r.random() < 0.04 and "arrays" not in self.pg.avoid and self.visible(is_array):
            return self.st_array_arith()
        if self.r.random() < 0.03 and "print" not in self.pg.avoid:
            return self.st_print()
        if self.r.random() < 0.04 and "lists" not in self.pg.avoid:
            return self.st_list()
        if self.r.random() < 0.03 and "strings" not in self.pg.avoid:
            return self.st_str()
        if self.r.random() < 0.03 and "dicts" not in self.pg.avoid:
            return self.st_dict()
        r = self.r.random()
        compound = depth < self.max_depth
        if r < 0.17:
            return self.st_new_var()
        if r < 0.35:
            return self.st_assign()
        if r < 0.47:
            return self.st_aug()
        if r < 0.55:
            return self.st_array_write()
        if r < 0.6:
            return self.st_unpack()
        loops = compound and self.loop_depth < self.max_loops
        if compound and r < 0.72:
            return [self.st_if(depth)]
        if loops and r < 0.82:
            return [self.st_for(depth)]
        if loops and r < 0.88:
            return self.st_while(depth)
        if self.loop_depth and r < 0.94:
            return [self.st_break_continue()]
        if r < 0.97 and depth > 0:
            return [self.st_early_return()]
        return self.st_new_var()

    def new_name(self, prefix):
        return self.pg.fresh(prefix)

    def st_array_arith(self):
        """A whole-array /, //, % or ** whose divisors may be zero (NumPy's inf, nan and 0 on both
        sides: the CPython run computes with NumPy too), folded into a float that is safe to
        compute with: the counts of NaNs, infinities and positive items, and the atan of the
        largest finite item (so no inf or NaN leaves the statement)."""
        a = self.r.choice(self.visible(is_array))
        is_int = self.pg.types[a][1] == "int64"
        d = max(self.pg.expr_depth - 2, 0)
        scalar = lambda: self.r.choice(["0", "0.0", "(-0.0)", "1", "(-2)", "2.5",
                                        self.typed_expr(d, self.r.choice([INT, FLT])),
                                        "(%s %% 3)" % self.int_expr(d)[0]])
        op = self.r.choice(["/", "//", "%", "**", "/", "//", "%"])
        if op == "**":
            if is_int:      # NumPy refuses an int to a negative power: exponents 0..3
                expo = self.r.choice(["(%s %% 4)" % a, "2", "3", "0", "(%s %% 4)" % self.int_expr(d)[0]])
            else:
                expo = self.r.choice([a, "%s[::-1]" % a, "2", "3", "(-1)", "0", "(-2.0)",
                                      "(%s %% 4)" % self.int_expr(d)[0]])
            expr = "%s ** %s" % (self.r.choice([a, "(%s - %s)" % (a, a)]), expo)
        else:
            divisor = self.r.choice([a, "(%s %% 3)" % a, "(%s - %s)" % (a, a), "%s[::-1]" % a,
                                     scalar(), scalar()])
            if self.r.random() < 0.25:
                expr = "%s %s %s" % (scalar(), op, a)
            else:
                expr = "%s %s %s" % (a, op, divisor)
        z, x = self.new_name("z"), self.new_name("x")
        out = []
        same_kind = [a, "(%s %% 3)" % a, "(%s - %s)" % (a, a), "%s[::-1]" % a]
        if op in ("//", "%") and self.r.random() < 0.3 and expr.startswith(a + " ") \
                and (not is_int or expr.split(" %s " % op, 1)[1] in same_kind):
            # in place: an int array keeps its dtype only with int divisors
            out.append(Stmt("%s = %s.copy()" % (z, a)))
            out.append(Stmt("%s %s= %s" % (z, op, expr.split(" %s " % op, 1)[1])))
        else:
            out.append(Stmt("%s = %s" % (z, expr)))
        big = self.r.choice(["max", "min"])
        out.append(Stmt("%s = float(np.isnan(%s).sum() + 2 * np.isinf(%s).sum() + 4 * (%s > 0).sum())"
                        " + math.atan(np.where(np.isfinite(%s), %s, 0.0).%s())"
                        % (x, z, z, z, z, z, big)))
        self.declare(x, FLT)
        return out

    def st_new_var(self):
        ty = self.r.choice([INT, INT, FLT, FLT, BOOL, "tuple"])
        if ty == "tuple" and self.r.random() < 0.35:
            ty = nest(self.r.choice(NESTED))
        elif ty == "tuple":
            ty = tuple_ty(self.r.choice([(INT, FLT), (FLT, FLT), (INT, INT), (FLT, INT, FLT)]))
        name = self.new_name({INT: "n", FLT: "x", BOOL: "b"}.get(ty, "t"))
        src = self.typed_expr(self.pg.expr_depth, ty)
        self.declare(name, ty)
        return [Stmt("%s = %s" % (name, src))]

    def st_assign(self):
        ty = self.r.choice([INT, FLT, BOOL, INT, FLT])
        names = self.assignable(ty)
        if not names:
            return self.st_new_var()
        return [Stmt("%s = %s" % (self.r.choice(names), self.typed_expr(self.pg.expr_depth, ty)))]

    def st_aug(self):
        ty = self.r.choice([INT, FLT])
        names = self.assignable(ty)
        if not names:
            return self.st_new_var()
        v = self.r.choice(names)
        d = self.pg.expr_depth
        if ty == INT:
            op = self.r.choice(["+=", "-=", "*=", "//=", "%=", "&=", "|=", "^=", "<<=", ">>="])
            if op in ("//=", "%="):
                s, _, _ = self.int_divisor(d)
            elif op in ("<<=", ">>="):
                s = "(%s %% %d)" % (self.int_expr(d)[0], 21 if op == "<<=" else 64)
            else:
                s = self.typed_expr(d, INT)
            out = [Stmt("%s %s %s" % (v, op, s))]
            if op not in ("//=", "%=", ">>="):
                out[0].post.append("%s %%= %d" % (v, MOD))
            return out
        op = self.r.choice(["+=", "-=", "*=", "/=", "//=", "%="])
        if op in ("/=", "//=", "%="):
            s, low, high = self.float_divisor(d)
            out = [Stmt("%s %s %s" % (v, op, s))]
            if op == "%=" and high > VB_FLT or 0 < low < 1.0:
                out[0].post.append(self.float_restore(v))
            return out
        s = self.typed_expr(d, FLT)
        return [Stmt("%s %s %s" % (v, op, s), post=[self.float_restore(v)])]

    def float_restore(self, v):
        r = self.r.random()
        if r < 0.5:
            return "%s %%= 1000.0" % v
        if r < 0.75:
            return "%s = math.atan(%s)" % (v, v)
        return "%s = math.tanh(%s)" % (v, v)

    def st_array_write(self):
        arrs = self.visible(is_array)
        if not arrs:
            return self.st_new_var()
        a = self.r.choice(arrs)
        ty = INT if self.pg.types[a][1] == "int64" else FLT
        d = self.pg.expr_depth
        idx = self.array_index(a, d - 1)
        if self.r.random() < 0.6:
            return [Stmt("%s[%s] = %s" % (a, idx, self.typed_expr(d, ty)))]
        # augmented: name the index first, so the restoring statement writes the same element
        k = self.new_name("k")
        pre = ["%s = %s" % (k, idx) if "," not in idx else "%s = (%s)" % (k, idx)]
        if ty == INT:
            op = self.r.choice(["+=", "-=", "*=", "^="])
            return [Stmt("%s[%s] %s %s" % (a, k, op, self.typed_expr(d, INT)), pre=pre,
                         post=["%s[%s] %%= %d" % (a, k, MOD)])]
        op = self.r.choice(["+=", "-=", "*="])
        return [Stmt("%s[%s] %s %s" % (a, k, op, self.typed_expr(d, FLT)), pre=pre,
                     post=["%s[%s] %%= 1000.0" % (a, k)])]

    def st_local_array(self):
        """A new array inside compiled code: created, copied, a slice view or a row view."""
        d = max(self.pg.expr_depth - 1, 0)
        z = self.new_name("z")
        n = "((%s %% 6) + 1)" % self.reduce_int(*self.int_expr(d), LIM_INT // 2)[0]
        one_d = self.visible(lambda t: is_array(t) and t[2] == 1)
        two_d = self.visible(lambda t: is_array(t) and t[2] == 2)
        r = self.r.random()
        if r < 0.35 or not one_d and not two_d:
            dtype = self.r.choice(["float64", "int64"])
            if dtype == "int64":
                src = self.r.choice(["np.zeros(%s, dtype=np.int64)", "np.ones(%s, dtype=np.int64)",
                                     "np.full(%s, 3, dtype=np.int64)"]) % n
            else:
                src = self.r.choice(["np.zeros(%s)", "np.ones(%s)", "np.full(%s, -1.5)",
                                     "np.zeros(%s, dtype=np.float64)"]) % n
        elif r < 0.8 and one_d:
            a = self.r.choice(one_d)
            dtype = self.pg.types[a][1]
            k = "(%s %% len(%s))" % (self.reduce_int(*self.int_expr(d), LIM_INT // 2)[0], a)
            src = self.r.choice(["%s.copy()" % a, "%s[%s:]" % (a, k), "%s[:%s + 1]" % (a, k),
                                 "%s[::-1]" % a, "%s[::2]" % a, "%s[%s::-1]" % (a, k),
                                 "%s[%s::2]" % (a, k)])
        else:
            if not two_d:
                return self.st_new_var()
            a = self.r.choice(two_d)
            dtype = self.pg.types[a][1]
            k = "(%s %% %s.shape[0])" % (self.reduce_int(*self.int_expr(d), LIM_INT // 2)[0], a)
            src = "%s[%s]" % (a, k)
        ty = ("array", dtype, 1)
        self.pg.types[z] = ty
        self.pg.shapes[z] = None
        self.declare(z, ty)
        return [Stmt("%s = %s" % (z, src))]

    def st_list(self):
        """A list made in compiled code and folded into an int: built by appends in a loop, as a
        literal, or (CPython 3.11, whose comprehensions pyjit compiles) by a comprehension, of
        items in 0..1008; changed by pop, insert, item assignment, sort (also reversed),
        reverse, += and *; read by index, len, sum, min, max, in, sorted. The list holds at
        least three items before at most two pops, so that nothing raises; the int is below
        2**20."""
        d = max(self.pg.expr_depth - 1, 0)
        lst, x, i = self.new_name("l"), self.new_name("n"), self.new_name("i_")
        e = lambda: self.reduce_int(*self.int_expr(d), LIM_INT // 2)[0]
        n = "((%s %% 5) + 3)" % e()
        item = "((%s * 7 + %s) %% 1009)" % (i, e())
        r = self.r.random()
        if r < 0.2 and sys.version_info < (3, 12):
            out = [Stmt("%s = [%s for %s in range(%s)]" % (lst, item, i, n))]
        elif r < 0.35:
            out = [Stmt("%s = [%s]" % (lst, ", ".join(str(self.r.randrange(1009)) for _ in range(3))))]
        else:
            out = [Stmt("%s = []" % lst),
                   Stmt("for %s in range(%s):" % (i, n), [Stmt("%s.append(%s)" % (lst, item))])]
        k = lambda: "(%s %% len(%s))" % (e(), lst)
        changes = [lambda: "%s.pop()" % lst, lambda: "%s.pop(%s)" % (lst, k()),
                   lambda: "%s.insert(%s, %s %% 1009)" % (lst, k(), e()),
                   lambda: "%s[%s] = %s %% 1009" % (lst, k(), e()),
                   lambda: "%s.sort()" % lst, lambda: "%s.sort(reverse=True)" % lst,
                   lambda: "%s.reverse()" % lst, lambda: "%s += [%s %% 1009]" % (lst, e()),
                   lambda: "%s = %s * 2" % (lst, lst)]
        for _ in range(self.r.randint(0, 2)):   # at most two pops from two or more items
            out.append(Stmt(self.r.choice(changes)()))
        reads = ["len(%s)" % lst, "sum(%s)" % lst, "max(%s)" % lst, "min(%s)" % lst,
                 "%s[%s]" % (lst, k()), "%s[-1]" % lst, "int((%s %% 1009) in %s)" % (e(), lst),
                 "sorted(%s)[0]" % lst, "%s.count(%s[0])" % (lst, lst)]
        picked = self.r.sample(reads, 3)
        out.append(Stmt("%s = %s" % (x, " + ".join(picked))))
        self.declare(x, INT)
        return out

    # code points of the three widths CPython stores strings in (1, 2 and 4 bytes)
    STR_PIECES = ["a", "b", "ab", " ", "é", "Z", "中", "😀", ","]

    def st_str(self):
        """A string made in compiled code and folded into an int: from a literal (at least three
        code points, of one to four bytes each) grown by += of pieces and of str() of ints, then
        changed by upper, lower, replace, slicing, reversal, rotation, * and f-strings; read by
        len, count, find, startswith, split, ord of an item, in and hash (the same in both runs:
        they share the process). It never shrinks, so indexing it cannot raise; the int is below
        2**20."""
        d = max(self.pg.expr_depth - 1, 0)
        s, x, i = self.new_name("s"), self.new_name("n"), self.new_name("i_")
        e = lambda: self.reduce_int(*self.int_expr(d), LIM_INT // 2)[0]
        piece = lambda: repr(self.r.choice(self.STR_PIECES))
        start = "".join(self.r.choice(self.STR_PIECES) for _ in range(3))
        out = [Stmt("%s = %r" % (s, start)),
               Stmt("for %s in range((%s %% 4) + 1):" % (i, e()),
                    [Stmt("%s += %s" % (s, self.r.choice([piece(), "str(%s %% 100)" % i])))])]
        changes = [lambda: "%s = %s.upper()" % (s, s), lambda: "%s = %s.lower()" % (s, s),
                   lambda: "%s = %s.replace(%s, %s)" % (s, s, piece(), piece()),
                   lambda: "%s = %s[::-1]" % (s, s), lambda: "%s = %s[1:] + %s[:1]" % (s, s, s),
                   lambda: "%s = %s * 2" % (s, s), lambda: "%s = f\"{%s %% 10}{%s}\"" % (s, e(), s)]
        for _ in range(self.r.randint(0, 2)):
            out.append(Stmt(self.r.choice(changes)()))
        k = "(%s %% len(%s))" % (e(), s)
        reads = ["len(%s)" % s, "%s.count(%s)" % (s, piece()), "%s.find(%s)" % (s, piece()),
                 "int(%s.startswith(%s))" % (s, piece()), "len(%s.split(%s))" % (s, piece()),
                 "ord(%s[%s]) %% 1009" % (s, k), "int(%s in %s)" % (piece(), s),
                 "hash(%s) %% 1009" % s, "len(%s.split())" % s]
        out.append(Stmt("%s = %s" % (x, " + ".join(self.r.sample(reads, 3)))))
        self.declare(x, INT)
        return out

    def st_dict(self):
        """A dict or set made in compiled code and folded into an int. A dict of keys in 0..12:
        counted by d[k] = d.get(k, 0) + v in a loop, a literal or (CPython 3.11) a comprehension;
        changed by pop with a default, setdefault, update and del of a key found; read by len,
        get, in, sorted and a loop over its keys. A set of such items: built by add in a loop, a
        literal or a comprehension; changed by add, discard, |= and -=; read by len, in, |, &
        and sorted. Values stay in 0..1008 and sums of at most 13 of them: the int is below
        2**20, and nothing raises."""
        d = max(self.pg.expr_depth - 1, 0)
        t, x, i, k = self.new_name("d"), self.new_name("n"), self.new_name("i_"), self.new_name("k_")
        e = lambda: self.reduce_int(*self.int_expr(d), LIM_INT // 2)[0]
        key = lambda: "(%s %% 13)" % e()
        small = lambda: str(self.r.randrange(13))
        n = "((%s %% 5) + 3)" % e()
        item = "((%s * 7 + %s) %% 13)" % (i, e())
        comp = self.r.random() < 0.2 and sys.version_info < (3, 12)
        literal = self.r.random() < 0.2
        if self.r.random() < 0.4:
            if comp:
                out = [Stmt("%s = {%s for %s in range(%s)}" % (t, item, i, n))]
            elif literal:
                out = [Stmt("%s = {%s}" % (t, ", ".join(small() for _ in range(3))))]
            else:
                out = [Stmt("%s = set()" % t),
                       Stmt("for %s in range(%s):" % (i, n), [Stmt("%s.add(%s)" % (t, item))])]
            changes = [lambda: "%s.add(%s)" % (t, key()), lambda: "%s.discard(%s)" % (t, key()),
                       lambda: "%s |= {%s, %s}" % (t, small(), small()),
                       lambda: "%s -= {%s}" % (t, small())]
            reads = ["len(%s)" % t, "int(%s in %s)" % (key(), t), "len(%s | {1, 2})" % t,
                     "len(%s & {3, 4, 5})" % t, "sum(sorted(%s))" % t]
        else:
            value = "(%s %% 1009)" % e()
            if comp:
                out = [Stmt("%s = {%s: %s %% 1009 for %s in range(%s)}" % (t, item, i, i, n))]
            elif literal:
                out = [Stmt("%s = {%s: %s, %s: %s}" % (t, small(), value, small(), value))]
            else:
                out = [Stmt("%s = {}" % t),
                       Stmt("for %s in range(%s):" % (i, n),
                            [Stmt("%s[%s] = %s.get(%s, 0) + %s" % (t, item, t, item, value))])]
            changes = [lambda: "%s.pop(%s, 0)" % (t, key()),
                       lambda: "%s.setdefault(%s, %s)" % (t, key(), value),
                       lambda: "%s.update({%s: %s})" % (t, small(), value)]
            if self.r.random() < 0.5:
                out.append(Stmt("%s = %s" % (k, key())))
                out.append(Stmt("if %s in %s:" % (k, t), [Stmt("del %s[%s]" % (t, k))]))
                self.declare(k, INT)
            reads = ["len(%s)" % t, "%s.get(%s, -1)" % (t, key()), "int(%s in %s)" % (key(), t),
                     "sum(sorted(%s))" % t]
        for _ in range(self.r.randint(0, 2)):
            out.append(Stmt(self.r.choice(changes)()))
        picked = self.r.sample(reads, 3)
        out.append(Stmt("%s = %s" % (x, " + ".join(picked))))
        self.declare(x, INT)
        return out

    def st_print(self):
        """print of ints, floats and bools: compiled code must write what CPython writes."""
        parts = []
        for _ in range(self.r.randint(1, 3)):
            ty = self.r.choice([INT, FLT, FLT, BOOL])
            names = self.visible(lambda t, ty=ty: t == ty)
            if names and self.r.random() < 0.7:
                parts.append(self.r.choice(names))
            else:
                parts.append(self.typed_expr(max(self.pg.expr_depth - 1, 0), ty))
        return [Stmt("print(%s)" % ", ".join(parts))]

    def st_unpack(self):
        r = self.r.random()
        if r < 0.3:
            # swap two variables of one type
            ty = self.r.choice([INT, FLT])
            names = self.assignable(ty)
            if len(names) >= 2:
                a, b = self.r.sample(names, 2)
                return [Stmt("%s, %s = %s, %s" % (a, b, b, a))]
        tups = self.visible(is_tuple)
        if tups and r < 0.7:
            t = self.r.choice(tups)
            elems = self.pg_tuple(t)
            src = t
        else:
            elems = self.r.choice([(INT, FLT), (FLT, FLT), (INT, INT, FLT)])
            src = self.typed_expr(self.pg.expr_depth, tuple_ty(elems))
        used, declared = set(), []
        targets = [self.unpack_target(e, used, declared) for e in elems]
        for name, e in declared:
            self.declare(name, e)
        return [Stmt("%s%s = %s" % (", ".join(targets), "," if len(targets) == 1 else "", src))]

    def unpack_target(self, e, used, declared):
        """A target for an item of type e: a variable of its type, or for a nested tuple also a
        parenthesised pattern that unpacks it in turn (`(n3, x4), x5 = t`)."""
        if is_tuple(e) and self.r.random() < 0.6:
            inner = [self.unpack_target(x, used, declared) for x in e[1]]
            return "(%s%s)" % (", ".join(inner), "," if len(inner) == 1 else "")
        names = [n for n in self.assignable(e) if n not in used] if not is_tuple(e) else []
        if names and self.r.random() < 0.4:
            name = self.r.choice(names)
        else:
            name = self.new_name({INT: "n", FLT: "x", BOOL: "b"}.get(e, "t"))
            declared.append((name, e))
        used.add(name)
        return name

    def st_if(self, depth):
        d = self.pg.expr_depth
        head = "if %s:" % self.condition(d)
        body = self.block(depth + 1, self.r.randint(1, 3))
        more = []
        for _ in range(self.r.choice([0, 0, 1, 2])):
            more.append(("elif %s:" % self.condition(d), self.block(depth + 1, self.r.randint(1, 3))))
        if self.r.random() < 0.5:
            more.append(("else:", self.block(depth + 1, self.r.randint(1, 3))))
        return Stmt(head, body, more)

    def range_args(self):
        d = max(self.pg.expr_depth - 1, 0)
        r = self.r.random()
        small = lambda k: "(%s %% %d)" % (self.int_expr(d)[0], k)
        if r < 0.35:
            return str(self.r.randint(0, 9))
        if r < 0.55:
            return small(self.r.choice([5, 9, 12]))
        if r < 0.75:
            return "%s, %s" % (small(5) if self.r.random() < 0.5 else str(self.r.randint(-3, 3)),
                               str(self.r.randint(0, 10)))
        step = self.r.choice([1, 2, 3, -1, -2, -3])
        if step > 0:
            return "%d, %s, %d" % (self.r.randint(-5, 3), small(11), step)
        return "%s, %d, %d" % (small(11), self.r.randint(-5, 2), step)

    def st_for(self, depth):
        i = self.new_name("i_")
        arrs = self.visible(lambda t: is_array(t) and t[2] == 1)
        r = self.r.random()
        self.loop_depth += 1
        self.scopes.append(_Scope())
        if arrs and r < 0.3:
            a = self.r.choice(arrs)
            v = self.new_name("i_")
            self.declare(v, INT if self.pg.types[a][1] == "int64" else FLT)
            if r < 0.15:
                head = "for %s in %s:" % (v, a)
            else:
                head = "for %s, %s in enumerate(%s):" % (i, v, a)
                self.declare(i, INT)
        else:
            head = "for %s in range(%s):" % (i, self.range_args())
            self.declare(i, INT)
        body = self.block(depth + 1, self.r.randint(1, 4))
        self.scopes.pop()
        self.loop_depth -= 1
        more = [("else:", self.block(depth + 1, 1))] if self.r.random() < 0.1 else []
        return Stmt(head, body, more)

    def st_while(self, depth):
        c = self.new_name("w")
        limit = self.r.randint(1, 10)
        self.loop_depth += 1
        if self.r.random() < 0.5:
            head = "while %s < %d and %s:" % (c, limit, self.bool_expr(self.pg.expr_depth - 1))
            guard = []
        else:
            cond = self.condition(self.pg.expr_depth - 1) if self.r.random() < 0.8 else "True"
            head = "while %s:" % cond
            guard = [Stmt("if %s > %d:" % (c, limit), [Stmt("break", keep=True)], keep=True)]
        body = [Stmt("%s += 1" % c, keep=True)] + guard + self.block(depth + 1, self.r.randint(1, 4))
        self.loop_depth -= 1
        return [Stmt(head, body, pre=["%s = 0" % c])]

    def st_break_continue(self):
        kw = self.r.choice(["break", "continue"])
        return Stmt("if %s:" % self.bool_expr(self.pg.expr_depth - 1), [Stmt(kw)])

    def st_early_return(self):
        return Stmt("if %s:" % self.bool_expr(self.pg.expr_depth - 1),
                    [Stmt("return %s" % self.return_value())])

    def return_value(self):
        ret = self.func.ret
        if ret == "result":
            return "(%s,)" % ", ".join(self.pg.results) if len(self.pg.results) == 1 else \
                "(%s)" % ", ".join(self.pg.results)
        return self.typed_expr(self.pg.expr_depth, ret)


class ProgramGen:
    """Makes one program from a random.Random."""

    def __init__(self, rng, expr_depth=3, max_stmts=18, avoid=()):
        self.r = rng
        self.avoid = set(avoid)     # math functions left out ("math.log"), to get past a gap
        # one program in eight converts edge floats to ints, where both sides may raise
        self.edges = rng.random() < 0.125 and "edges" not in self.avoid
        self.globals = []
        self.expr_depth = expr_depth
        self.max_stmts = max_stmts
        self.counter = 0
        self.types = {}             # array name -> type
        self.shapes = {}            # array name -> shape
        self.results = []

    def add_global(self, value):
        name = "K%d" % len(self.globals)
        self.globals.append((name, value))
        return name

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def make_arrays(self):
        arrays = []
        for k in range(self.r.randint(0, 3)):
            dtype = self.r.choice(["float64", "float64", "int64"])
            ndim = 1 if self.r.random() < 0.8 else 2
            shape = tuple(self.r.randint(1, 6) for _ in range(ndim))
            size = 1
            for s in shape:
                size *= s
            if dtype == "float64":
                vals = [round(self.r.uniform(-10, 10), self.r.choice([1, 3, 17])) for _ in range(size)]
            else:
                vals = [self.r.randint(-100, 100) for _ in range(size)]
            import numpy as np
            arr = np.array(vals, dtype=dtype).reshape(shape)
            name = "a%d" % k
            self.types[name] = ("array", dtype, ndim)
            self.shapes[name] = shape
            arrays.append((name, arr))
        return arrays

    def make_helpers(self, arrays):
        helpers = []
        for k in range(self.r.randint(0, 3) if self.r.random() < 0.85 else 0):
            params = []
            for j in range(self.r.randint(1, 3)):
                params.append(("p%d" % j, self.r.choice([INT, FLT, INT, FLT, BOOL,
                                                         tuple_ty((INT, FLT)),
                                                         nest(self.r.choice(NESTED))])))
            if arrays and self.r.random() < 0.3:
                name, _ = self.r.choice(arrays)
                q = "q%d" % k
                params.append((q, self.types[name]))
                self.types[q] = self.types[name]
                self.shapes[q] = None
            ret = self.r.choice([INT, FLT, FLT, BOOL, tuple_ty((INT, FLT)), tuple_ty((FLT, FLT)),
                                 nest(self.r.choice(NESTED))])
            f = Func("h%d" % k, params, ret)
            fg = FuncGen(self, f, list(helpers), max_depth=2, n_stmts=self.r.randint(1, 6))
            f.body = self.helper_body(fg)
            helpers.append(f)
        if self.r.random() < 0.2:
            helpers.append(self.recursive_helper(helpers))
        return helpers

    def recursive_helper(self, helpers):
        """r0(n, p0): returns at n <= 0, else combines r0(n - 1, ...) (and r0(n - 2, ...)) with
        an expression, reduced so that any depth keeps the bounds. Callers pass n below
        REC_DEPTH, so it recurses at most that deep (twice that many calls when it branches).
        Without a signature, the recursive calls pass p0 on as it is or with a literal (pyjit
        types the recursion from the base case for one specialisation: a strong argument where
        the caller's was weak, a Python float, would ask for a second one); with a signature,
        any expression."""
        ret = self.r.choice([INT, FLT])
        pty = self.r.choice([INT, FLT])
        f = Func("r0", [("n", INT), ("p0", pty)], ret)
        f.recursive = True
        if self.r.random() < 0.5:
            name = {INT: "int64", FLT: "float64"}
            f.signature = "%s(int64, %s)" % (name[ret], name[pty])
        fg = FuncGen(self, f, list(helpers), max_depth=1, n_stmts=self.r.randint(0, 3))
        d = max(self.expr_depth - 1, 1)
        body = [Stmt("if n <= 0:", [Stmt("return %s" % fg.typed_expr(d, ret), keep=True)],
                     keep=True)]     # the reducer keeps the way out
        if fg.budget > 0:
            body.extend(fg.block(0, fg.budget))

        def passed_on():
            if f.signature:
                return fg.typed_expr(d - 1, pty)
            if pty == INT:
                return self.r.choice(["p0", "((p0 + 3) %% %d)" % MOD, "(p0 // 2)"])
            return self.r.choice(["p0", "(p0 * 0.5)", "(p0 - 1.25)"])
        calls = ["r0(n - %d, %s)" % (k, passed_on())
                 for k in ((1, 2) if self.r.random() < 0.4 else (1,))]
        extra = fg.typed_expr(d - 1, ret)
        if ret == INT:
            value = "((%s + %s) %% %d)" % (" - ".join(calls), extra, MOD)
        elif self.r.random() < 0.5:
            value = "math.atan(%s + %s)" % (" * 0.5 + ".join(calls), extra)
        else:
            value = "((%s * 0.5 - %s) %% 1000.0)" % (" + ".join(calls), extra)
        body.append(Stmt("return %s" % value))
        f.body = body
        return f

    def helper_body(self, fg):
        body = fg.block(0, fg.budget)
        body.append(Stmt("return %s" % fg.return_value()))
        return body

    def program(self):
        for k in range(self.r.choice([0, 0, 1, 2])):
            v = self.r.choice([self.r.randint(-50, 50), self.r.randint(-VB_INT, VB_INT),
                               round(self.r.uniform(-20, 20), 2), self.r.uniform(-1, 1)])
            self.globals.append(("G%d" % k, v))
        arrays = self.make_arrays()
        helpers = self.make_helpers(arrays)
        params, args = [], []
        for k in range(self.r.randint(1, 3)):
            if self.r.random() < 0.5:
                params.append(("m%d" % k, INT))
                args.append(("int", self.r.choice([0, 1, 2, 3, 7, -1, -5, self.r.randint(-1000, 1000)])))
            else:
                params.append(("y%d" % k, FLT))
                args.append(("float", self.r.choice([0.0, 1.0, -0.5, 2.5,
                                                     round(self.r.uniform(-50, 50), 4)])))
        for name, arr in arrays:
            params.append((name, self.types[name]))
            args.append(("array", arr))
        main = Func("f", params, "result")
        fg = FuncGen(self, main, helpers, max_depth=3, n_stmts=self.r.randint(4, self.max_stmts))
        # result variables, made first so that every return can name them
        body = []
        for _ in range(self.r.randint(1, 4)):
            body.extend(fg.st_new_var())
        self.results = [n for n in fg.scopes[0].vars if n not in dict(params)]
        result_types = [fg.scopes[0].vars[n] for n in self.results]
        body.extend(fg.block(0, fg.budget))
        body.append(Stmt("return %s" % fg.return_value()))
        main.body = body
        prog = Program(helpers + [main], args, self.globals)
        prog.result_types = result_types
        if self.edges:
            prog.allowed = ("ZeroDivisionError", "OverflowError", "ValueError")
        return prog


def generate(seed, index, **kw):
    """The program number `index` of the run with seed `seed` (deterministic)."""
    rng = random.Random("pyjit-fuzz:%s:%s" % (seed, index))
    kw.setdefault("expr_depth", rng.choice([2, 3, 3, 4]))
    kw.setdefault("max_stmts", rng.choice([8, 18, 18, 30]))
    return ProgramGen(rng, **kw).program()


if __name__ == "__main__":
    import sys
    # python gen.py SEED INDEX: print one program
    argv = [int(a) for a in sys.argv[1:3]] + [0, 0]
    p = generate(argv[0], argv[1])
    print(p.source())
    print("# args:", p.args_source())
