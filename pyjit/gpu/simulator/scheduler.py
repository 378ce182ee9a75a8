"""Running a grid: one thread after another, or with barriers and warps switched explicitly.

run_sequential is for kernels with no barrier and no warp operation (the common case): each
simulated thread is a plain call of the kernel's Python function, blocks and threads in order.

run_concurrent is for the others. Each thread of a block is a coroutine: a generator made from
the kernel by transform.py (a switch is a send(), a fraction of a microsecond), or where the
kernel could not be rewritten a greenlet, or without the greenlet package an OS thread of which
only one runs at a time. The scheduler runs every runnable thread until it suspends at a barrier
or warp operation or returns; then it completes what can be completed:
  - a warp operation, once every live lane of the warp named in its mask waits on it (the lanes
    then get their results together: real warp semantics for shuffles, votes, syncwarp);
  - activemask(), once every live lane of the warp waits somewhere (it returns who waits on it);
  - syncthreads(), once every live (not yet returned) thread of the block waits at the same one.
If nothing can be completed and threads still wait, the block is deadlocked: that is reported
with the threads and where each waits, instead of hanging.
"""
import threading

import numpy as np

from . import intrinsics as I
from .state import S, SimulatorError, threadIdx, blockIdx

try:
    import greenlet as _greenlet_mod
    _greenlet = _greenlet_mod.greenlet
    _getcurrent = _greenlet_mod.getcurrent
except ImportError:            # pragma: no cover - depends on the environment
    _greenlet = None

BACKEND = "greenlet" if _greenlet is not None else "threads"


class BarrierError(SimulatorError):
    """Threads of a block wait at barriers or warp operations that can never complete."""


BarrierError.__module__ = "pyjit.gpu"


def _no_sync(req):
    raise SimulatorError(
        "a barrier or warp operation ran in a kernel that pyjit's simulator runs one thread "
        "after another (it found no syncthreads/shfl/... name in the kernel or what it calls); "
        "call these intrinsics through the gpu module (gpu.syncthreads()) or a name bound to them")


def run_sequential(fn, args, griddim, blockdim, nwarps):
    S.suspend = _no_sync
    T, B = threadIdx, blockIdx
    gx, gy, gz = griddim
    bx, by, bz = blockdim
    xs = range(bx)
    for z in range(gz):
        B.z = z
        for y in range(gy):
            B.y = y
            for x in range(gx):
                B.x = x
                S.new_block(nwarps)
                for tz in range(bz):
                    T.z = tz
                    for ty in range(by):
                        T.y = ty
                        for tx in xs:
                            T.x = tx
                            fn(*args)


class _Thread:
    __slots__ = ("g", "x", "y", "z", "tid", "req", "result", "done")

    def __init__(self, x, y, z, tid):
        self.g = None
        self.x, self.y, self.z, self.tid = x, y, z, tid
        self.req = None
        self.result = None
        self.done = False


def run_concurrent(fn, args, griddim, blockdim, nwarps, kernel, generator=False):
    """Runs a grid whose kernel synchronises: fn is a generator function (transform.py) when
    generator is true, else a plain function run on greenlets (or OS threads).

    Blocks run one after another, each to its end, unless it reaches a grid barrier
    (gpu.cg.this_grid().sync()): it is then parked, with its block's state, and the next block
    starts. Once every block has started, the parked ones are resumed together, in order, one
    grid barrier at a time; a block that returned while others wait there is a deadlock."""
    run_block = _run_block_gen if generator else _run_block
    gx, gy, gz = griddim
    parked, waiting, finished = [], [], 0
    try:
        for z in range(gz):
            for y in range(gy):
                for x in range(gx):
                    blockIdx.x, blockIdx.y, blockIdx.z = x, y, z
                    S.new_block(nwarps)
                    finished += _advance(run_block(fn, args, blockdim, kernel), parked)
        while parked:
            if finished:
                raise BarrierError(_grid_deadlock_message(parked, finished, kernel))
            waiting, parked = parked, []
            while waiting:
                block = waiting.pop(0)
                block.restore()
                finished += _advance(block.runner, parked)
    except BaseException:
        for block in parked + waiting:
            block.runner.close()
        raise


class _ParkedBlock:
    """A block waiting at a grid barrier: its runner (a generator) and its block's state."""

    __slots__ = ("runner", "index", "shared", "dyn_shared", "static_bytes", "epoch",
                 "warp_epochs", "where")

    def __init__(self, runner, where):
        self.runner = runner
        self.index = (blockIdx.x, blockIdx.y, blockIdx.z)
        self.shared, self.dyn_shared, self.static_bytes = S.shared, S.dyn_shared, S.static_bytes
        self.epoch, self.warp_epochs = S.epoch, S.warp_epochs
        self.where = where

    def restore(self):
        blockIdx.x, blockIdx.y, blockIdx.z = self.index
        S.shared, S.dyn_shared, S.static_bytes = self.shared, self.dyn_shared, self.static_bytes
        S.epoch, S.warp_epochs = self.epoch, self.warp_epochs


def _advance(runner, parked):
    """Runs a block until it returns (1) or waits at a grid barrier (0, parked)."""
    try:
        where = next(runner)
    except StopIteration:
        return 1
    parked.append(_ParkedBlock(runner, where))
    return 0


def _grid_deadlock_message(parked, finished, kernel):
    shown = ", ".join(str(b.index) for b in parked[:8]) + (", ..." if len(parked) > 8 else "")
    return (f"kernel '{kernel}': deadlock: {len(parked)} block(s) wait at the grid barrier "
            f"{parked[0].where} ({shown}), but {finished} block(s) returned without reaching it "
            "(on the GPU this hangs)")


def _at_grid_barrier(threads):
    """Every live thread of the block waits at a grid barrier."""
    return all(t.done or t.req[0] == I.GRID for t in threads)


def _check_block_arrives(threads, kernel):
    """A block's first thread arrives at the grid barrier for its block (on the GPU as in
    CUDA's own barrier): if it returned, the others would wait for ever."""
    if threads[0].done:
        raise BarrierError(_deadlock_message(
            [t for t in threads if not t.done], kernel, "the block's thread (0, 0, 0) returned, "
            "so the block never arrives at the grid barrier its other threads wait at (every "
            "thread of the grid must reach gpu.cg.this_grid().sync())"))


def _leave_grid_barrier(threads):
    waiting = [t for t in threads if not t.done]
    for t in waiting:
        t.result = None
    S.epoch += 1
    return waiting


def _make_threads(blockdim):
    bx, by, bz = blockdim
    return [_Thread(tid % bx, (tid // bx) % by, tid // (bx * by), tid)
            for tid in range(bx * by * bz)]


def _run_block(fn, args, blockdim, kernel):
    threads = _make_threads(blockdim)
    if _greenlet is not None:
        parent = _getcurrent()
        S.suspend = parent.switch
        new = _greenlet
    else:
        parent = None
        S.suspend = _os_suspend
        new = _OSThreadLet
    T = threadIdx
    BAR = I.BAR
    pending = threads
    live = len(threads)
    at_warp_ops = 0             # live threads waiting at something other than syncthreads
    try:
        while True:
            for t in pending:
                T.x = t.x
                T.y = t.y
                T.z = t.z
                g = t.g
                if g is None:
                    g = t.g = new(fn, parent)
                    req = g.switch(*args)
                else:
                    req = g.switch(t.result)
                if g.dead:
                    t.done = True
                    live -= 1
                else:
                    t.req = req
                    if req[0] != BAR:
                        at_warp_ops += 1
            if live == 0:
                return
            if at_warp_ops and _at_grid_barrier(threads):
                _check_block_arrives(threads, kernel)
                yield _where(next(t for t in threads if not t.done))   # run_concurrent resumes
                pending = _leave_grid_barrier(threads)
                at_warp_ops = 0
            elif at_warp_ops == 0:
                pending = _release_barrier([t for t in threads if not t.done], kernel)
            else:
                pending = _resolve(threads, kernel)
                at_warp_ops -= len(pending)
    except BaseException:
        _kill(threads)
        raise


def _run_block_gen(fn, args, blockdim, kernel):
    """_run_block for generator kernels: a switch is a send(), a finished thread yields _DONE."""
    threads = _make_threads(blockdim)
    S.suspend = _gen_suspend
    S.pending = None
    T = threadIdx
    BAR = I.BAR
    pending = threads
    live = len(threads)
    at_warp_ops = 0
    try:
        while True:
            for t in pending:
                T.x = t.x
                T.y = t.y
                T.z = t.z
                g = t.g
                if g is None:
                    g = t.g = _thread_main(fn, args)
                    req = g.send(None)
                else:
                    req = g.send(t.result)
                if req is _DONE:
                    if S.pending is not None:
                        _not_yielded()
                    t.done = True
                    live -= 1
                    continue
                S.pending = None
                t.req = req
                if req[0] != BAR:
                    at_warp_ops += 1
            if live == 0:
                return
            if at_warp_ops and _at_grid_barrier(threads):
                _check_block_arrives(threads, kernel)
                yield _where(next(t for t in threads if not t.done))   # run_concurrent resumes
                pending = _leave_grid_barrier(threads)
                at_warp_ops = 0
            elif at_warp_ops == 0:
                pending = _release_barrier([t for t in threads if not t.done], kernel)
            else:
                pending = _resolve(threads, kernel)
                at_warp_ops -= len(pending)
    except BaseException:
        for t in threads:
            if t.g is not None and not t.done:
                try:
                    t.g.close()
                except BaseException:  # noqa: BLE001 - the launch already failed; keep that error
                    pass
        raise


_DONE = (3,)


def _thread_main(fn, args):
    """One simulated thread of a generator kernel. It ends by yielding _DONE, not by raising
    StopIteration into the scheduler's frame: pdb, while stepping with `next` in a generator,
    would stop at that StopIteration (in the simulator's code) instead of in the kernel."""
    yield from fn(*args)
    yield _DONE


def _gen_suspend(req):
    if S.pending is not None:
        _not_yielded()
    S.pending = req
    return req


def _not_yielded():
    S.pending = None
    raise SimulatorError(
        "a barrier or warp operation was reached through a call the simulator could not see "
        "(a device function called through an attribute or a variable?): it would not "
        "synchronise here; call synchronising device functions by their global name")


def _kill(threads):
    saved = threadIdx.x, threadIdx.y, threadIdx.z
    S.suspend = _no_sync
    for t in threads:
        if t.g is not None and not t.g.dead:
            try:
                t.g.throw()
            except BaseException:  # noqa: BLE001 - the launch already failed; keep that error
                pass
    threadIdx.x, threadIdx.y, threadIdx.z = saved


# --- completing what waits ------------------------------------------------------------------

def _resolve(threads, kernel):
    """Completes the warp operations that can complete; raises when none can (a deadlock)."""
    woken = []
    for w in range(0, len(threads), 32):
        woken.extend(_resolve_warp(threads[w:w + 32], w >> 5))
    if woken:
        woken.sort(key=lambda t: t.tid)
        return woken
    waiting = [t for t in threads if not t.done]
    raise BarrierError(_deadlock_message(waiting, kernel,
                                         "threads wait at warp operations that cannot complete"))


def _resolve_warp(lanes, warp):
    live = [t for t in lanes if not t.done]
    ops = [t for t in live if t.req[0] == I.WARP]
    woken = []
    groups = {}
    for t in ops:
        groups.setdefault(t.req[2], []).append(t)
    for mask, group in groups.items():
        have = {t.tid & 31 for t in group}
        need = {t.tid & 31 for t in live if (mask >> (t.tid & 31)) & 1}
        if need <= have:
            _warp_results(group)
            woken.extend(group)
    if not woken:
        sites = {}
        for t in live:
            if t.req[0] == I.ACTIVE:     # lanes at one activemask() call are converged there
                sites.setdefault((t.req[1].f_code, t.req[1].f_lasti), []).append(t)
        for active in sites.values():
            bits = np.uint32(sum(1 << (t.tid & 31) for t in active))
            for t in active:
                t.result = bits
            woken.extend(active)
    if woken:
        S.warp_epochs[warp] += 1
    return woken


def _warp_results(group):
    op = group[0].req[1]
    for t in group:
        if t.req[1] != op:
            raise BarrierError(_deadlock_message(
                group, S.kernel, "lanes of a warp with the same mask wait at different warp "
                "operations"))
    vals = {t.tid & 31: t.req[3] for t in group}
    if op == "syncwarp":
        for t in group:
            t.result = None
    elif op in ("shfl", "shfl_up", "shfl_down", "shfl_xor"):
        for t in group:
            lane = t.tid & 31
            src = _shfl_source(op, lane, t.req[4])
            t.result = vals.get(src, t.req[3]) if src is not None else t.req[3]
    else:
        _vote_results(op, group, vals)


def _shfl_source(op, lane, arg):
    if op == "shfl":
        return arg & 31
    if op == "shfl_up":
        src = lane - arg
        return src if src >= 0 else None
    if op == "shfl_down":
        src = lane + arg
        return src if src < 32 else None
    src = lane ^ arg
    return src if src < 32 else None


def _vote_results(op, group, vals):
    if op == "ballot":
        r = np.uint32(sum(1 << lane for lane, v in vals.items() if v))
    elif op == "all":
        r = all(vals.values())
    elif op == "any":
        r = any(vals.values())
    elif op == "eq":
        first = next(iter(vals.values()))
        r = all(v == first for v in vals.values())
    elif op == "match_all":
        first = next(iter(vals.values()))
        same = all(v == first for v in vals.values())
        r = (np.uint32(sum(1 << lane for lane in vals)) if same else np.uint32(0), same)
    else:   # match_any: each lane gets the lanes holding its value
        for t in group:
            v = t.req[3]
            t.result = np.uint32(sum(1 << lane for lane, w in vals.items() if w == v))
        return
    for t in group:
        t.result = r


def _release_barrier(waiting, kernel):
    """Every live thread waits at a syncthreads(): lets them all go, if it is the same one."""
    first = waiting[0].req
    code, lasti = first[3].f_code, first[4]
    for t in waiting:
        r = t.req
        if r[4] != lasti or r[3].f_code is not code:
            raise BarrierError(_deadlock_message(
                waiting, kernel, "threads of the block wait at different syncthreads() calls"))
    variant = first[1]
    if variant:
        preds = [bool(t.req[2]) for t in waiting]
        r = sum(preds) if variant == 1 else int(all(preds) if variant == 2 else any(preds))
    else:
        r = None
    for t in waiting:
        t.result = r
    S.epoch += 1
    return waiting


def _where(t):
    req = t.req
    if req[0] == I.BAR:
        name = ("syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or")[req[1]]
        f = req[3]
    elif req[0] == I.WARP:
        name = {"shfl": "shfl_sync", "shfl_up": "shfl_up_sync", "shfl_down": "shfl_down_sync",
                "shfl_xor": "shfl_xor_sync", "ballot": "ballot_sync", "all": "all_sync",
                "any": "any_sync", "eq": "eq_sync", "syncwarp": "syncwarp",
                "match_any": "match_any_sync", "match_all": "match_all_sync"}[req[1]]
        name += f"(mask=0x{req[2]:08x})"
        f = req[5]
    elif req[0] == I.GRID:
        name, f = "gpu.cg.this_grid().sync", req[1]
    else:
        name, f = "activemask", req[1]
    if not name.endswith(")"):
        name += "()"
    return f"{name} at {f.f_code.co_filename}:{f.f_lineno}"


def _deadlock_message(waiting, kernel, why):
    groups = {}
    for t in waiting:
        groups.setdefault(_where(t), []).append((t.x, t.y, t.z))
    parts = []
    for where, ts in groups.items():
        shown = ", ".join(str(p) for p in ts[:8]) + (", ..." if len(ts) > 8 else "")
        parts.append(f"{len(ts)} thread(s) wait at {where}: {shown}")
    b = (blockIdx.x, blockIdx.y, blockIdx.z)
    return (f"kernel '{kernel}', block {b}: deadlock: {why} (on the GPU this hangs or is "
            "undefined); " + "; ".join(parts))


# --- OS threads standing in for greenlets ---------------------------------------------------

_os_current = None


class _Kill(BaseException):
    pass


class _OSThreadLet:
    """A kernel thread on an OS thread; the scheduler and it hand control back and forth."""

    def __init__(self, fn, parent=None):
        self.fn = fn
        self.dead = False
        self._go = threading.Semaphore(0)
        self._back = threading.Semaphore(0)
        self._msg = None
        self._exc = None
        self._killed = False
        self._thread = None
        self._state = None

    def switch(self, *args):
        global _os_current
        _os_current = self
        if self._thread is None:
            self._args = args
            self._thread = threading.Thread(target=self._main, daemon=True)
            self._thread.start()
        else:
            self._msg = args[0] if args else None
            self._go.release()
        self._back.acquire()
        if self._exc is not None:
            e, self._exc = self._exc, None
            raise e
        return self._msg

    def _main(self):
        try:
            self._msg = self.fn(*self._args)
        except _Kill:
            pass
        except BaseException as e:  # noqa: BLE001 - handed to the scheduler's thread
            self._exc = e
        self.dead = True
        self._back.release()

    def suspend(self, req):
        self._msg = req
        self._back.release()
        self._go.acquire()
        if self._killed:
            raise _Kill()
        return self._msg

    def throw(self):
        self._killed = True
        self._go.release()
        self._back.acquire()


def _os_suspend(req):
    return _os_current.suspend(req)
