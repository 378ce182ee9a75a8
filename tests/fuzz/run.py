"""Long differential fuzzing run: python -m tests.fuzz.run --count 10000 --seed S

Programs come from gen.generate(seed, index) for index in [start, start + count). They run in
worker subprocesses, a batch each, so that a crash of the interpreter (a segfault in compiled
code) or a hang only costs that program: the parent records it as a crash and starts a new
worker after it. Each mismatch is printed with its reduced reproducer (--no-reduce to skip), and
with --save DIR written as a regression test there. The last line is the summary:
  fuzz: N programs, seed S, backend B: ok A, mismatch B, compile-error C, crash D, invalid E
(compile-error: the compiler refused a program of its subset; invalid: CPython itself failed,
a generator bug). The exit status is 1 when anything but ok and compile-error was seen.
"""
import argparse
import collections
import json
import os
import queue
import subprocess
import sys
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "fuzz"

from . import gen, harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("ok", "mismatch", "compile-error", "crash", "invalid")


# ---- worker side ---------------------------------------------------------------------------

def worker(args):
    backend = harness.Backend(args.backend)
    for i in range(args.start, args.start + args.count):
        print("START %d" % i, flush=True)
        program = gen.generate(args.seed, i, avoid=_avoid(args))
        out = harness.check_program(program, backend)
        rec = {"i": i, "kind": out.kind, "detail": out.detail[:4000]}
        if out.kind == "mismatch":
            rec.update(mismatch_record(program, backend, out, args.reduce))
        print("RESULT " + json.dumps(rec), flush=True)


def _avoid(args):
    return [a for a in (args.avoid or "").split(",") if a]


def mismatch_record(program, backend, out, reduce):
    """Source (reduced when asked), arguments and CPython's answer for a mismatch."""
    if reduce:
        from .reduce import reduce_program
        try:
            reduce_program(program, backend)
            out = harness.check_program(program, backend)
        except Exception as exc:  # noqa: BLE001 - keep the unreduced program then
            print("reduce failed: %r" % exc, file=sys.stderr)
    exp, arrays = harness.run_cpython(program.source(), program.main, program.make_args(),
                                      program.allowed)
    return {"source": program.source(), "args": program.args_source(), "main": program.main,
            "expected": repr(exp), "expected_arrays": repr([a.tolist() for a in arrays]),
            "detail": out.detail[:4000]}


# ---- parent side ---------------------------------------------------------------------------

def _pythonpath():
    root = os.path.dirname(HERE)          # the folder holding the fuzz package
    if __package__.startswith("tests."):
        root = os.path.dirname(root)
    return root


def _spawn(args, start, count):
    cmd = [sys.executable, "-m", __package__ + ".run", "--worker", "--seed", str(args.seed),
           "--start", str(start), "--count", str(count), "--backend", args.backend]
    if not args.reduce:
        cmd.append("--no-reduce")
    if args.avoid:
        cmd += ["--avoid", args.avoid]
    env = dict(os.environ)
    env["PYTHONPATH"] = _pythonpath() + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    lines = queue.Queue()

    def pump(stream, tag):
        for line in stream:
            lines.put((tag, line))
        lines.put((tag, None))
    threading.Thread(target=pump, args=(proc.stdout, "out"), daemon=True).start()
    err = []
    threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True).start()
    return proc, lines, err


def run_batch(args, start, count, report):
    """Runs programs [start, start+count) in workers until each has an outcome."""
    nxt = start
    end = start + count
    while nxt < end:
        proc, lines, err = _spawn(args, nxt, end - nxt)
        current = None
        while True:
            try:
                tag, line = lines.get(timeout=args.timeout)
            except queue.Empty:
                proc.kill()
                proc.wait()
                report(current if current is not None else nxt,
                       {"kind": "crash", "detail": "no progress in %d s (hang?)" % args.timeout})
                nxt = (current if current is not None else nxt) + 1
                break
            if line is None:
                rc = proc.wait()
                if current is not None:
                    report(current, {"kind": "crash", "detail": "worker died, status %d: %s"
                                     % (rc, "".join(err)[-2000:])})
                    nxt = current + 1
                else:
                    if rc != 0 and nxt < end:
                        report(nxt, {"kind": "crash", "detail": "worker failed, status %d: %s"
                                     % (rc, "".join(err)[-2000:])})
                        nxt += 1
                    else:
                        nxt = end
                break
            if line.startswith("START "):
                current = int(line.split()[1])
            elif line.startswith("RESULT "):
                rec = json.loads(line[7:])
                report(rec["i"], rec)
                current = None
                nxt = rec["i"] + 1


def write_regression(directory, seed, i, rec):
    """A pytest file that runs the reproducer compiled and compares with CPython's answer."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "test_fuzzreg_s%s_%d.py" % (seed, i))
    first = rec["detail"].splitlines()[0][:200] if rec["detail"] else ""
    with open(path, "w") as fh:
        fh.write('"""Fuzz regression: seed %s, program %d. Found: %s"""\n' % (seed, i,
                                                                            first.replace('"', "'")))
        fh.write("from fuzz.harness import check_regression\n\n")
        fh.write("SOURCE = %s\n\n" % _triple(rec["source"]))
        fh.write("ARGS = %r\n" % rec["args"])
        fh.write("EXPECTED = %r\n" % rec["expected"])
        fh.write("EXPECTED_ARRAYS = %r\n\n\n" % rec["expected_arrays"])
        fh.write("def test_fuzz_regression():\n")
        fh.write("    check_regression(SOURCE, %r, ARGS, EXPECTED, EXPECTED_ARRAYS)\n"
                 % rec["main"])
    return path


def _triple(text):
    assert "'''" not in text and "\\" not in text
    return "'''\\\n" + text + "'''"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--backend", default="pyjit", choices=["pyjit", "numba"])
    ap.add_argument("--batch", type=int, default=250, help="programs per worker process")
    ap.add_argument("--timeout", type=int, default=120, help="seconds without progress = hang")
    ap.add_argument("--no-reduce", dest="reduce", action="store_false")
    ap.add_argument("--save", metavar="DIR", help="write each mismatch as a regression test")
    ap.add_argument("--show-compile-errors", action="store_true")
    ap.add_argument("--avoid", metavar="LIST", help="math functions to leave out, e.g. math.log")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return 0

    counts = collections.Counter()
    compile_msgs = collections.Counter()
    t0 = time.time()

    def report(i, rec):
        kind = rec["kind"]
        counts[kind] += 1
        if kind == "ok":
            return
        if kind == "compile-error":
            msg = rec["detail"].strip().splitlines()
            compile_msgs[msg[0][:160] if msg else "?"] += 1
            if not args.show_compile_errors:
                return
        print("=" * 78)
        print("%s: seed %d, program %d: %s" % (kind.upper(), args.seed, i, rec["detail"][:3000]))
        src = rec.get("source") or gen.generate(args.seed, i, avoid=_avoid(args)).source()
        print(src)
        print("# args:", rec.get("args") or gen.generate(args.seed, i, avoid=_avoid(args)).args_source())
        if kind == "mismatch" and args.save:
            print("# saved as", write_regression(args.save, args.seed, i, rec))
        sys.stdout.flush()

    for start in range(args.start, args.start + args.count, args.batch):
        run_batch(args, start, min(args.batch, args.start + args.count - start), report)
        done = sum(counts.values())
        print("... %d/%d programs, %s, %.0f s" % (done, args.count, dict(counts),
                                                 time.time() - t0), file=sys.stderr, flush=True)
    if compile_msgs:
        print("compile errors by message:")
        for msg, n in compile_msgs.most_common(20):
            print("  %5d  %s" % (n, msg))
    print("fuzz: %d programs, seed %d, backend %s: %s (%.0f s)"
          % (sum(counts.values()), args.seed, args.backend,
             ", ".join("%s %d" % (k, counts[k]) for k in KINDS), time.time() - t0))
    bad = counts["mismatch"] + counts["crash"] + counts["invalid"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
