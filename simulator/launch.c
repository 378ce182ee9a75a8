/* launch.c: a launch of a kernel compiled for the CPU (PYJIT_SIMULATOR=cpu).
 *
 * pyjit/gpu/cpu.py gives the launch's configuration (sim_configure) and calls the kernel's
 * dispatcher, which unboxes the arguments as for any @njit call and, for a dispatcher of a
 * simulated kernel, calls rt_sim_launch instead of the wrapper. The blocks are handed out to the
 * thread pool of parallel=True (runtime/pool.c). Each OS thread keeps its own workspace (shared
 * memory, the AbiSimThreads and fiber stacks of a block), made for the largest block it has run
 * and reused.
 *
 * A block is one call of the kernel's block function, which loops over the threads; in a kernel
 * with barriers or warp operations, that loop is cut at each (compiler/lower_sim_regions.c): it
 * runs the threads to their next one, calls pj_sim_regions_sync (which completes warps' operations
 * and holds the other threads back a round, or releases a barrier), and goes round again. A
 * kernel whose barrier the cut could not reach runs its threads as fibers in rounds: each round
 * resumes, in thread order, every thread not finished, until it reaches a barrier or returns;
 * then the warps whose lanes all wait at warp operations (shuffles, votes, syncwarp) complete
 * them, lockstep, and the next round starts; when none can, every waiting thread must wait at the
 * same barrier (else the block would hang on a GPU: BarrierError), whose result
 * (syncthreads_count/and/or) they are given, and the next round starts. Threads that returned
 * do not count, as on the GPU.
 *
 * A kernel that syncs its grid runs its blocks as fibers on the launching OS thread, all at once
 * (run_grid), each with its own workspace. Under PYJIT_SIMULATOR_RACECHECK, pj_sim_race checks
 * each access of shared memory against a shadow entry per byte.
 *
 * The first thread to raise stops the launch: the other blocks do not start, its block stops,
 * and its exception is raised from the launch naming the kernel, the thread and the block, as
 * the GPU path raises it at the next synchronisation (runtime/kernel_errors.c). */
#include "runtime/runtime.h"
#include "simulator/sim.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The offsets compiler/lower_sim.c reads at (its struct follows ExcInfo as LLVM lays it out). */
_Static_assert(offsetof(AbiSimThread, tid) == sizeof(ExcInfo) &&
               offsetof(AbiSimThread, shared) == sizeof(ExcInfo) + 48 &&
               offsetof(AbiSimThread, fiber) == sizeof(ExcInfo) + 72,
               "AbiSimThread's layout is lower_sim.c's");

typedef struct SimConfig {
    uint32_t grid[3], block[3];
    int64_t dynbytes;
    int64_t co_resident;    /* the most blocks the simulated GPU runs at once, for this block */
    bool set;
} SimConfig;

/* sim_configure's, for the next launch on this thread: the dispatcher's call path (dispatch.c),
 * which unboxes the kernel's arguments, has no room for a launch configuration, so pyjit/gpu/
 * cpu.py sets it just before calling the kernel's dispatcher, on the same thread. */
static __thread SimConfig pending;
static PyObject *barrier_error;             /* pyjit.gpu's BarrierError (sim_configure) */
static PyObject *race_error;                /* and its RaceError */

typedef struct SimLaunch {
    const char *kname;
    AbiSimBlock fn;         /* the block as a loop over its threads */
    AbiWrapper thread_fn;   /* one thread (of a fiber), with its AbiSimThread as the ExcInfo */
    void **args;
    SimConfig cfg;
    int64_t shared_bytes;   /* static, rounded to 16 */
    int nthreads;           /* per block */
    bool sync;
    atomic_int claimed;     /* the first failure's, below */
    uint32_t fault_thread[3], fault_block[3];
    bool fault_barrier;     /* the failure is a barrier error (its text in barrier_text) */
    char barrier_text[768];
    atomic_int race_claimed;   /* the first race found: its text */
    char race_text[768];
} SimLaunch;

/* What rt_sim_name_thread names, from the last failed launch of this thread. */
static __thread struct { bool thread; uint32_t tid[3], block[3]; } last_fault;

/* PYJIT_SIMULATOR_RACECHECK: what is known of a byte of shared memory within a barrier interval
 * (its epoch): the thread that last wrote it and the first two that read it since, each with
 * its warp's epoch then and the access (threads are linear indices + 1, 0 none). */
typedef struct SimShadow {
    uint32_t epoch;
    int32_t writer, readers[2];
    uint32_t wwarp, rwarp[2];
    const AbiSimRaceSite *wsite, *rsite[2];
} SimShadow;

typedef struct SimWorker {
    char *shared;
    size_t shared_cap;
    SimShadow *shadow;      /* a byte's, of shared memory (the race detector's) */
    size_t shadow_cap;
    uint32_t epoch;         /* barriers passed and blocks started: entries of others are stale */
    uint32_t *warp_epoch;   /* warp operations each warp of the block has passed */
    int warp_cap;
    AbiSimThread *threads;
    SimFiber *fibers;
    char *stacks;
    int cap;                /* threads (and fibers, and stacks) made */
    char *scratch;          /* pj_sim_scratch's */
    size_t scratch_cap;
} SimWorker;

static __thread SimWorker worker;
/* The workspace of the block running now when the grid's blocks are fibers (each keeps its own
 * shared memory and arrays across a grid barrier); NULL otherwise, the OS thread's. */
static __thread SimWorker *block_worker;
static __thread SimFiber *block_fiber;   /* that block's fiber */

static SimWorker *current_worker(void)
{
    return block_worker ? block_worker : &worker;
}

typedef struct SimBlockRun {
    SimLaunch *L;
    SimFiber *fibers;       /* the worker's, n of them */
    int n;
} SimBlockRun;

/* ---- the workspace ---- */

static int worker_fit(SimWorker *w, int nthreads, size_t shared, bool fibers)
{
    if (shared > w->shared_cap) {
        char *m = aligned_alloc(64, (shared + 63) / 64 * 64);
        if (!m)
            return -1;
        free(w->shared);
        w->shared = m;
        w->shared_cap = shared;
    }
    if (fibers && nthreads > w->cap) {
        AbiSimThread *t = calloc((size_t)nthreads, sizeof *t);
        SimFiber *f = calloc((size_t)nthreads, sizeof *f);
        char *stacks = sim_stacks_map(nthreads);
        if (!t || !f || !stacks) {
            free(t);
            free(f);
            sim_stacks_unmap(stacks, nthreads);
            return -1;
        }
        free(w->threads);
        free(w->fibers);
        sim_stacks_unmap(w->stacks, w->cap);
        w->threads = t;
        w->fibers = f;
        w->stacks = stacks;
        w->cap = nthreads;
    }
    return 0;
}

static void worker_free(SimWorker *w)
{
    free(w->shadow);
    free(w->warp_epoch);
    free(w->shared);
    free(w->threads);
    free(w->fibers);
    sim_stacks_unmap(w->stacks, w->cap);
    free(w->scratch);
    memset(w, 0, sizeof *w);
}

/* ---- failures ---- */

static void set_exc(ExcInfo *exc, const ExcInfo *from)
{
    void *limit = exc->stack_limit;
    *exc = *from;
    exc->stack_limit = limit;
}

/* The first failing thread's exception, thread and block; later ones are dropped. */
static int32_t fail_thread(SimLaunch *L, const AbiSimThread *t, ExcInfo *exc)
{
    if (atomic_exchange(&L->claimed, 1) == 0) {
        memcpy(L->fault_thread, t->tid, sizeof L->fault_thread);
        memcpy(L->fault_block, t->ctaid, sizeof L->fault_block);
    }
    set_exc(exc, &t->exc);
    return ABI_STATUS_ERROR;
}

static void out_of_memory(ExcInfo *exc)
{
    ExcInfo e = {.kind = ABI_EXC_MEMORY};
    set_exc(exc, &e);
}

/* ---- a block with barriers: fibers ---- */

static int32_t run_block(SimLaunch *L, int64_t b, ExcInfo *exc);

void sim_fiber_run(SimFiber *f)
{
    if (!f->run) {   /* a block of a grid that syncs */
        f->status = run_block(f->launch, f->value, f->exc);
        f->state = SIM_DONE;
        return;
    }
    SimLaunch *L = f->run->L;
    _Alignas(16) char ret[16];   /* a kernel returns nothing */
    f->status = L->thread_fn(L->args, ret, &f->thread->exc);
    f->state = SIM_DONE;
}

int32_t pj_sim_barrier(AbiSimThread *t, int32_t op, int32_t pred, int32_t site)
{
    SimFiber *f = t->fiber;
    if (!f)   /* not reached: a kernel with a barrier always runs on fibers */
        return pred;
    f->op = op;
    f->pred = pred;
    f->site = site;
    f->state = SIM_WAITING;
    sim_fiber_yield(f);
    return f->result;
}

int64_t pj_sim_warp(AbiSimThread *t, int32_t kind, int32_t mask, int64_t value, int32_t arg,
                    int32_t site)
{
    SimFiber *f = t->fiber;
    if (!f)
        return value;
    f->op = kind;
    f->mask = (uint32_t)mask;
    f->value = value;
    f->pred = arg;
    f->site = site;
    f->state = SIM_WARP;
    sim_fiber_yield(f);
    return f->wresult;
}

/* Lane l's result of the warp operation the lanes of `at` (a bit per lane) wait at; lane i is
 * w[i]. A lane outside the group (returned, or not named) gives the caller's own value. */
static int64_t warp_result(SimFiber *const *w, uint32_t at, int l)
{
    const SimFiber *me = w[l];
    uint32_t group = at & me->mask;
    int src = l;
    switch ((AbiSimWarpKind)me->op) {
    case ABI_WARP_SHFL_IDX: src = me->pred & 31; break;
    case ABI_WARP_SHFL_UP: src = l - me->pred; break;
    case ABI_WARP_SHFL_DOWN: src = l + me->pred; break;
    case ABI_WARP_SHFL_XOR: src = l ^ (me->pred & 31); break;
    default: break;
    }
    if (me->op <= ABI_WARP_SHFL_XOR)
        return src >= 0 && src < 32 && ((group >> src) & 1) ? w[src]->value : me->value;
    uint32_t yes = 0, same = 0, site = 0;
    for (int j = 0; j < 32; j++) {
        if (!((at >> j) & 1))
            continue;
        site |= (uint32_t)(w[j]->site == me->site) << j;
        if (!((group >> j) & 1))
            continue;
        yes |= (uint32_t)(w[j]->value != 0) << j;
        same |= (uint32_t)(w[j]->value == me->value) << j;
    }
    switch ((AbiSimWarpKind)me->op) {
    case ABI_WARP_BALLOT: return yes;
    case ABI_WARP_ALL: return yes == group;
    case ABI_WARP_ANY: return yes != 0;
    case ABI_WARP_EQ: return yes == 0 || yes == group;
    case ABI_WARP_MATCH_ANY: return same;
    case ABI_WARP_MATCH_ALL: return same == group ? group : 0;
    case ABI_WARP_ACTIVEMASK: return site;
    default: return 0;
    }
}

/* Completes the warp operations whose lanes have all arrived: a warp's waiting lanes go on once
 * every live lane named in each one's mask waits at a warp operation too. Whether any did. */
static bool release_warps(SimBlockRun *r)
{
    bool any = false;
    for (int base = 0; base < r->n; base += 32) {
        SimFiber *w[32];
        uint32_t at = 0, live = 0, need = 0;
        for (int l = 0; l < 32; l++) {
            w[l] = base + l < r->n ? &r->fibers[base + l] : NULL;
            if (!w[l] || w[l]->state == SIM_DONE)
                continue;
            live |= 1u << l;
            if (w[l]->state == SIM_WARP) {
                at |= 1u << l;
                need |= w[l]->mask;
            }
        }
        if (!at || (need & live & ~at))
            continue;
        for (int l = 0; l < 32; l++)
            if ((at >> l) & 1)
                w[l]->wresult = warp_result(w, at, l);
        for (int l = 0; l < 32; l++)
            if ((at >> l) & 1)
                w[l]->state = SIM_READY;
        SimWorker *wk = current_worker();
        if (wk->warp_epoch && base / 32 < wk->warp_cap)
            wk->warp_epoch[base / 32]++;
        any = true;
    }
    return any;
}

/* printf into buf at `at` (what it has so far), as far as size allows; the new length. */
static int append(char *buf, size_t size, int at, const char *fmt, ...)
{
    if (at < 0 || (size_t)at >= size)
        return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + at, size - (size_t)at, fmt, ap);
    va_end(ap);
    return n < 0 ? at : at + n;
}

/* What a thread of a deadlocked block waits at: SIM_WAITING a barrier, SIM_WARP a warp
 * operation (other states: nothing), and the line. */
typedef struct SimWait {
    SimState state;
    int32_t site;
} SimWait;

/* Waiting threads at different barriers: the BarrierError, its text as the interpreted simulator
 * words it, each line's threads (a few of them) listed; w[i] is thread i's (x fastest). */
static int32_t deadlock(SimLaunch *L, const SimWait *w, int n, const AbiSimThread *t0, ExcInfo *exc)
{
    static const char later[] = "deadlock: threads of a block wait at different barriers";
    ExcInfo e = {.kind = ABI_EXC_USER, .cls = barrier_error, .msg = later};
    if (atomic_exchange(&L->claimed, 1) != 0) {   /* another block's failure is the launch's */
        set_exc(exc, &e);
        return ABI_STATUS_ERROR;
    }
    L->fault_barrier = true;
    char *buf = L->barrier_text;
    size_t size = sizeof L->barrier_text;
    const uint32_t *nt = L->cfg.block;
    bool warp = false;
    for (int i = 0; i < n; i++)
        warp |= w[i].state == SIM_WARP;
    int at = append(buf, size, 0, "kernel '%s', block (%d, %d, %d): deadlock: %s", L->kname,
                    t0->ctaid[0], t0->ctaid[1], t0->ctaid[2],
                    warp ? "threads wait at a warp operation that lanes of its mask never reach"
                         : "threads of the block wait at different syncthreads() calls");
    for (int i = 0; i < n; i++) {
        if (w[i].state != SIM_WAITING && w[i].state != SIM_WARP)
            continue;
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = !(w[j].state == w[i].state && w[j].site == w[i].site);
        if (!first)
            continue;
        int count = 0;
        for (int j = i; j < n; j++)
            count += w[j].state == w[i].state && w[j].site == w[i].site;
        at = append(buf, size, at, "; %d thread(s) wait at the %s of line %d:", count,
                    w[i].state == SIM_WARP ? "warp operation" : "syncthreads()", w[i].site);
        for (int j = i, shown = 0; j < n && shown < 4; j++)
            if (w[j].state == w[i].state && w[j].site == w[i].site) {
                at = append(buf, size, at, " (%u, %u, %u)", (unsigned)j % nt[0],
                            (unsigned)j / nt[0] % nt[1], (unsigned)j / (nt[0] * nt[1]));
                shown++;
            }
    }
    e.msg = buf;
    set_exc(exc, &e);
    return ABI_STATUS_ERROR;
}

/* A BarrierError whose text is made here (the launch's first failure keeps it). */
static int32_t barrier_fail(SimLaunch *L, ExcInfo *exc, const char *fmt, ...)
{
    static const char later[] = "deadlock: blocks of the grid wait at different barriers";
    ExcInfo e = {.kind = ABI_EXC_USER, .cls = barrier_error, .msg = later};
    if (atomic_exchange(&L->claimed, 1) == 0) {
        L->fault_barrier = true;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->barrier_text, sizeof L->barrier_text, fmt, ap);
        va_end(ap);
        e.msg = L->barrier_text;
    }
    set_exc(exc, &e);
    return ABI_STATUS_ERROR;
}

/* The block of t0, all of whose threads that did not return wait at the grid barrier of `line`,
 * arrives there: its fiber waits until every block of the grid has (run_grid). As CUDA's
 * barrier, the block's thread (0, 0, 0) arrives for it: a block where it returned never does. */
static int32_t grid_wait(SimLaunch *L, const AbiSimThread *t0, int32_t line, bool first_live,
                         ExcInfo *exc)
{
    if (!first_live)
        return barrier_fail(L, exc, "kernel '%s', block (%d, %d, %d): deadlock: the block's thread "
                            "(0, 0, 0) returned, so the block never arrives at the grid barrier "
                            "its other threads wait at (every thread of the grid must reach "
                            "gpu.cg.this_grid().sync(), line %d)", L->kname, t0->ctaid[0],
                            t0->ctaid[1], t0->ctaid[2], line);
    SimFiber *f = block_fiber;
    SimWorker *w = block_worker;
    if (!f)   /* not reached: a kernel that syncs its grid runs its blocks as fibers */
        return ABI_STATUS_OK;
    f->state = SIM_WAITING;
    f->site = line;
    sim_fiber_yield(f);
    block_fiber = f;
    block_worker = w;
    w->epoch++;
    return ABI_STATUS_OK;
}

static int32_t diverged(SimLaunch *L, SimBlockRun *r, const AbiSimThread *t0, ExcInfo *exc)
{
    SimWait w[r->n];
    for (int i = 0; i < r->n; i++)
        w[i] = (SimWait){r->fibers[i].state, r->fibers[i].site};
    return deadlock(L, w, r->n, t0, exc);
}

/* The waiting threads' barrier: all at one site, each given its result; false when they differ
 * or when some wait at a warp operation instead. */
static bool release_barrier(SimBlockRun *r, int32_t *op, int32_t *site)
{
    SimFiber *fib = r->fibers;
    int first = -1, count = 0, all = 1, any = 0;
    for (int i = 0; i < r->n; i++) {
        if (fib[i].state == SIM_WARP)
            return false;
        if (fib[i].state != SIM_WAITING)
            continue;
        if (first < 0)
            first = i;
        else if (fib[i].site != fib[first].site || fib[i].op != fib[first].op)
            return false;
        count += fib[i].pred != 0;
        all &= fib[i].pred != 0;
        any |= fib[i].pred != 0;
    }
    int32_t result = first < 0 ? 0 : fib[first].op == 1 ? count : fib[first].op == 2 ? all : any;
    current_worker()->epoch++;   /* a new barrier interval */
    *op = first < 0 ? 0 : fib[first].op;
    *site = first < 0 ? 0 : fib[first].site;
    for (int i = 0; i < r->n; i++)
        if (fib[i].state == SIM_WAITING) {
            fib[i].result = result;
            fib[i].state = SIM_READY;
        }
    return true;
}

static int32_t run_fibers(SimLaunch *L, SimWorker *w, const AbiSimThread *proto, ExcInfo *exc)
{
    SimBlockRun r = {.L = L, .fibers = w->fibers, .n = L->nthreads};
    const uint32_t *nt = L->cfg.block;
    for (int i = 0; i < r.n; i++) {
        AbiSimThread *t = &w->threads[i];
        SimFiber *f = &r.fibers[i];
        *t = *proto;
        t->tid[0] = (int32_t)(i % nt[0]);
        t->tid[1] = (int32_t)(i / nt[0] % nt[1]);
        t->tid[2] = (int32_t)(i / (nt[0] * nt[1]));
        t->fiber = f;
        memset(f, 0, sizeof *f);
        f->stack = sim_stack_of(w->stacks, i);
        /* the tops of the stacks, a page multiple apart, would share the cache's sets: each
         * thread's starts at another line of the page */
        f->stack_size = SIM_STACK_BYTES - (size_t)(i % 64) * 64;
        f->thread = t;
        f->run = &r;
        sim_fiber_init(f);
    }
    for (bool started = false;; started = true) {
        int waiting = 0;
        for (int i = 0; i < r.n; i++) {
            SimFiber *f = &r.fibers[i];
            if (f->state != SIM_READY)
                continue;
            if (started)
                sim_fiber_resume(f);
            else
                sim_fiber_first(f);
            if (f->state == SIM_DONE && f->status != ABI_STATUS_OK)
                return fail_thread(L, f->thread, exc);
            waiting += f->state == SIM_WAITING || f->state == SIM_WARP;
        }
        if (waiting == 0)
            return ABI_STATUS_OK;
        if (release_warps(&r))
            continue;
        int32_t op, site;
        if (!release_barrier(&r, &op, &site))
            return diverged(L, &r, proto, exc);
        if (op == ABI_SIM_GRID_BARRIER &&
            grid_wait(L, proto, site, r.fibers[0].state != SIM_DONE, exc) != ABI_STATUS_OK)
            return ABI_STATUS_ERROR;
    }
}

/* ---- a block with barriers: loops split at them (compiler/lower_sim_regions.c) ---- */

static __thread SimLaunch *running;   /* the launch whose block this OS thread runs */
static __thread bool deadlocked;      /* its block function failed with a BarrierError */

void *pj_sim_scratch(AbiSimThread *t, int64_t bytes)
{
    SimWorker *w = current_worker();
    if ((size_t)bytes > w->scratch_cap) {
        size_t cap = ((size_t)bytes + 4095) / 4096 * 4096;
        char *m = aligned_alloc(64, cap);
        if (!m) {
            out_of_memory(&t->exc);
            return NULL;
        }
        /* touched now: a masked store whose lanes are all off (the vectorised loops' stores
         * for threads that fail, usually none) takes a microcode assist on a page not yet
         * mapped, each time */
        memset(m, 0, cap);
        free(w->scratch);
        w->scratch = m;
        w->scratch_cap = cap;
    }
    return w->scratch;
}

/* A thread held back a round: it waits at a barrier, or at a warp operation its warp has not
 * completed, while other warps complete theirs (its block function skips it). */
#define SIM_HELD 0x40000000

/* The usual warp operation of a kernel cut into rounds: a shuffle that all 32 lanes of a full
 * warp wait at, the same call, each naming the whole warp, as a reduction's
 * shfl_down_sync(0xffffffff, v, off) does. Its results, warp_result's, come from one pass over
 * the lanes that reads their arrays directly; whether the warp at base was such (wres then holds
 * them). */
static bool full_warp_shuffle(int base, const int32_t *at, const int32_t *sites, const int64_t *wval,
                              int64_t *wres, const int32_t *wmask, const int32_t *warg)
{
    int32_t a0 = at[base], k0 = a0 & ~SIM_HELD;
    int op = k0 > 0 ? sites[2 * k0] : 0;
    if (op < ABI_SIM_WARP_OP || op - ABI_SIM_WARP_OP > ABI_WARP_SHFL_XOR)
        return false;
    bool full = true;   /* every lane at the same call (copies of a call take the general path) */
    for (int l = 0; l < 32; l++)
        full &= (at[base + l] == a0) & (wmask[base + l] == -1);
    if (!full)
        return false;
    const int64_t *v = wval + base;
    const int32_t *a = warg + base;
    int64_t *r = wres + base;
    switch ((AbiSimWarpKind)(op - ABI_SIM_WARP_OP)) {
    case ABI_WARP_SHFL_IDX:
        for (int l = 0; l < 32; l++)
            r[l] = v[a[l] & 31];
        break;
    case ABI_WARP_SHFL_UP:
    case ABI_WARP_SHFL_DOWN:
        for (int l = 0; l < 32; l++) {
            int64_t src = op - ABI_SIM_WARP_OP == ABI_WARP_SHFL_UP ? (int64_t)l - a[l]
                                                                   : (int64_t)l + a[l];
            r[l] = src >= 0 && src < 32 ? v[src] : v[l];
        }
        break;
    default:
        for (int l = 0; l < 32; l++)
            r[l] = v[l ^ (a[l] & 31)];
        break;
    }
    return true;
}

/* The warps whose live lanes all wait at warp operations complete them, as release_warps does for
 * fibers: each lane's result in wres. Whether any did; released[i] marks their lanes. */
static bool regions_warps(SimLaunch *L, int32_t *at, const int32_t *sites, const int64_t *wval,
                          int64_t *wres, const int32_t *wmask, const int32_t *warg, bool *released)
{
    int n = L->nthreads;
    bool any = false;
    SimWorker *wk = current_worker();
    for (int base = 0; base < n; base += 32) {
        if (base + 32 <= n && full_warp_shuffle(base, at, sites, wval, wres, wmask, warg)) {
            memset(released + base, 1, 32 * sizeof *released);
            if (wk->warp_epoch && base / 32 < wk->warp_cap)
                wk->warp_epoch[base / 32]++;
            any = true;
            continue;
        }
        SimFiber lanes[32], *w[32];
        uint32_t live = 0, waiting = 0, need = 0;
        for (int l = 0; l < 32; l++) {
            int i = base + l, k = i < n ? at[i] & ~SIM_HELD : 0;
            w[l] = i < n ? &lanes[l] : NULL;
            if (i >= n || at[i] == 0)
                continue;
            live |= 1u << l;
            if (k > 0 && sites[2 * k] >= ABI_SIM_WARP_OP) {
                waiting |= 1u << l;
                need |= (uint32_t)wmask[i];
                SimFiber *f = &lanes[l];   /* what warp_result reads */
                f->op = sites[2 * k] - ABI_SIM_WARP_OP;
                f->site = sites[2 * k + 1];
                f->mask = (uint32_t)wmask[i];
                f->value = wval[i];
                f->pred = warg[i];
            }
        }
        if (!waiting || (need & live & ~waiting))
            continue;
        for (int l = 0; l < 32; l++)
            if ((waiting >> l) & 1) {
                wres[base + l] = warp_result(w, waiting, l);
                released[base + l] = true;
            }
        if (wk->warp_epoch && base / 32 < wk->warp_cap)
            wk->warp_epoch[base / 32]++;
        any = true;
    }
    return any;
}

int64_t pj_sim_regions_sync(AbiSimThread *t, int32_t *at, const int32_t *pred, const int32_t *sites,
                            const int64_t *wval, int64_t *wres, const int32_t *wmask,
                            const int32_t *warg)
{
    SimLaunch *L = running;
    int n = L->nthreads, first = 0;
    if (wval) {   /* warps complete their operations first; the others are held back a round */
        bool released[n];
        memset(released, 0, sizeof released);
        if (regions_warps(L, at, sites, wval, wres, wmask, warg, released)) {
            for (int i = 0; i < n; i++)
                at[i] = released[i] || at[i] == 0 ? at[i] & ~SIM_HELD : at[i] | SIM_HELD;
            return 3;
        }
        for (int i = 0; i < n; i++)
            at[i] &= ~SIM_HELD;
    }
    for (int i = 0; i < n && !first; i++)
        first = at[i] > 0 ? at[i] : 0;
    if (!first)
        return 0;   /* every thread returned */
    /* a round usually ends with every thread at one barrier call: one pass, no branch */
    int other = 0, count = 0;
    for (int i = 0; i < n; i++)
        other |= at[i] != first && at[i] != 0;
    if (other || sites[2 * first] >= ABI_SIM_WARP_OP)   /* at other calls: the same barrier if at
                                                         * the same line (a copy of the code) */
        for (int i = 0; i < n; i++) {
            int k = at[i];
            if (k > 0 && (sites[2 * k] != sites[2 * first] ||
                          sites[2 * k + 1] != sites[2 * first + 1] ||
                          sites[2 * k] >= ABI_SIM_WARP_OP))
                goto diverged;
        }
    int op = sites[2 * first];
    current_worker()->epoch++;   /* a new barrier interval */
    if (op == ABI_SIM_GRID_BARRIER) {
        if (grid_wait(L, t, sites[2 * first + 1], at[0] > 0, &t->exc) == ABI_STATUS_OK)
            return 1;
        deadlocked = true;
        return 0xffffffff;
    }
    if (op)
        for (int i = 0; i < n; i++)
            count += at[i] > 0 && pred[i] != 0;
    int live = 0;
    if (op >= 2)
        for (int i = 0; i < n; i++)
            live += at[i] > 0;
    int64_t result = op == 1 ? count : op == 2 ? count == live : op == 3 ? count != 0 : 0;
    return (int64_t)((uint64_t)result << 32) | 1;
diverged:;
    SimWait w[n];
    for (int i = 0; i < n; i++) {
        int k = at[i];
        w[i] = (SimWait){k <= 0 ? SIM_DONE : sites[2 * k] >= ABI_SIM_WARP_OP ? SIM_WARP : SIM_WAITING,
                         k > 0 ? sites[2 * k + 1] : 0};
    }
    deadlocked = true;
    deadlock(L, w, n, t, &t->exc);
    return 0xffffffff;   /* -1 in the low half */
}

/* ---- the race detector (PYJIT_SIMULATOR_RACECHECK) ---- */

/* Two accesses race unless one thread made both, a barrier lies between them (the epoch), or
 * they are lanes of one warp with a warp operation of it between them: the interpreted
 * simulator's rule. */
static bool conflict(int32_t a, uint32_t awarp, int32_t b, uint32_t bwarp)
{
    return a && a != b && !((a - 1) >> 5 == (b - 1) >> 5 && awarp != bwarp);
}

static int32_t race(AbiSimThread *t, const AbiSimRaceSite *site, const int64_t *index, bool write,
                    const char *what, int32_t other, const AbiSimRaceSite *where)
{
    SimLaunch *L = running;
    char key[128];
    int at = 0;
    if (site->ndim == 1)
        at = append(key, sizeof key, 0, "%lld", (long long)index[0]);
    else
        for (int k = 0; k < site->ndim; k++)
            at = append(key, sizeof key, at, k >= 4 ? ", ...)" : "%s%lld%s", k ? ", " : "(",
                        (long long)index[k], k == site->ndim - 1 ? ")" : "");
    const int32_t *nt = t->ntid;
    int32_t o = other - 1;
    ExcInfo e = {.kind = ABI_EXC_USER, .cls = race_error, .msg = "data race on shared memory"};
    if (atomic_exchange(&L->race_claimed, 1) == 0) {
        snprintf(L->race_text, sizeof L->race_text, "data race on shared array '%s' at index %s: "
                 "%s here after being %s by thread (%d, %d, %d) at %s:%d with no syncthreads() "
                 "between them", site->name, key, write ? "written" : "read", what, o % nt[0],
                 o / nt[0] % nt[1], o / (nt[0] * nt[1]), where->file, where->line);
        e.msg = L->race_text;
    }
    set_exc(&t->exc, &e);
    return ABI_STATUS_ERROR;
}

int32_t pj_sim_race(AbiSimThread *t, char *p, int64_t size, int32_t write,
                    const AbiSimRaceSite *site, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
    SimLaunch *L = running;
    size_t total = (size_t)(L->shared_bytes + L->cfg.dynbytes);
    if (p < t->shared || p + size > t->shared + total)
        return ABI_STATUS_OK;   /* global memory, or local: not shared */
    SimWorker *w = current_worker();
    if (w->shadow_cap < total) {
        SimShadow *s = calloc(total, sizeof *s);
        if (!s) {
            out_of_memory(&t->exc);
            return ABI_STATUS_ERROR;
        }
        free(w->shadow);
        w->shadow = s;
        w->shadow_cap = total;
    }
    int nwarps = (L->nthreads + 31) / 32;
    if (w->warp_cap < nwarps) {
        uint32_t *we = calloc((size_t)nwarps, sizeof *we);
        if (!we) {
            out_of_memory(&t->exc);
            return ABI_STATUS_ERROR;
        }
        free(w->warp_epoch);
        w->warp_epoch = we;
        w->warp_cap = nwarps;
    }
    const int32_t *nt = t->ntid;
    int32_t me = t->tid[0] + nt[0] * (t->tid[1] + nt[1] * t->tid[2]) + 1;
    uint32_t warp = w->warp_epoch[(me - 1) >> 5];
    int64_t index[4] = {i0, i1, i2, i3};
    for (int64_t k = 0; k < size; k++) {
        SimShadow *s = &w->shadow[p + k - t->shared];
        if (s->epoch != w->epoch)
            *s = (SimShadow){.epoch = w->epoch};
        if (conflict(s->writer, s->wwarp, me, warp))
            return race(t, site, index, write, "written", s->writer, s->wsite);
        if (write) {
            for (int r = 0; r < 2; r++)
                if (conflict(s->readers[r], s->rwarp[r], me, warp))
                    return race(t, site, index, write, "read", s->readers[r], s->rsite[r]);
            *s = (SimShadow){.epoch = w->epoch, .writer = me, .wwarp = warp, .wsite = site};
        } else if (s->readers[0] == 0 || (s->readers[0] != me && s->readers[1] == 0)) {
            int r = s->readers[0] == 0 ? 0 : 1;
            s->readers[r] = me;
            s->rwarp[r] = warp;
            s->rsite[r] = site;
        } else if (s->readers[0] == me) {   /* its latest read, as the interpreter keeps */
            s->rwarp[0] = warp;
            s->rsite[0] = site;
        } else if (s->readers[1] == me) {
            s->rwarp[1] = warp;
            s->rsite[1] = site;
        }
    }
    return ABI_STATUS_OK;
}

/* ---- blocks ---- */

static int32_t run_block(SimLaunch *L, int64_t b, ExcInfo *exc)
{
    const uint32_t *g = L->cfg.grid;
    AbiSimThread t;
    memset(&t, 0, sizeof t);   /* no stack limit: a kernel's recursion is not checked */
    t.ctaid[0] = (int32_t)(b % g[0]);
    t.ctaid[1] = (int32_t)(b / g[0] % g[1]);
    t.ctaid[2] = (int32_t)(b / ((int64_t)g[0] * g[1]));
    for (int k = 0; k < 3; k++) {
        t.ntid[k] = (int32_t)L->cfg.block[k];
        t.nctaid[k] = (int32_t)g[k];
    }
    size_t shared = (size_t)(L->shared_bytes + L->cfg.dynbytes);
    SimWorker *w = current_worker();
    if (worker_fit(w, L->nthreads, shared, L->sync) < 0) {
        out_of_memory(exc);
        return ABI_STATUS_ERROR;
    }
    if (shared)   /* (not with w->shared NULL: a masked store there takes a microcode assist) */
        memset(w->shared, 0, shared);   /* as the interpreted simulator's (a GPU's is undefined) */
    w->epoch++;                     /* what the race detector knows is of the last block */
    if (w->warp_epoch)
        memset(w->warp_epoch, 0, (size_t)w->warp_cap * sizeof *w->warp_epoch);
    t.shared = w->shared;
    t.dynshared = w->shared + L->shared_bytes;
    t.dynbytes = L->cfg.dynbytes;
    running = L;   /* for pj_sim_scratch, pj_sim_regions_sync and pj_sim_race */
    deadlocked = false;
    if (L->sync)
        return run_fibers(L, w, &t, exc);
    if (L->fn(L->args, &t) == ABI_STATUS_OK)
        return ABI_STATUS_OK;
    if (!deadlocked)
        return fail_thread(L, &t, exc);
    set_exc(exc, &t.exc);
    return ABI_STATUS_ERROR;
}

static int32_t run_blocks(void *ctx, int64_t lo, int64_t hi, int64_t slot, ExcInfo *exc)
{
    SimLaunch *L = ctx;
    for (int64_t b = lo; b < hi; b++) {
        if (atomic_load_explicit(&L->claimed, memory_order_relaxed))
            return ABI_STATUS_OK;   /* another block failed: the launch stops */
        if (run_block(L, b, exc) != ABI_STATUS_OK)
            return ABI_STATUS_ERROR;
    }
    return ABI_STATUS_OK;
}

/* ---- a grid that syncs: its blocks as fibers ---- */

/* The blocks of a kernel with a grid barrier all run at once, as on the GPU's cooperative launch:
 * each is a fiber on this OS thread with its own workspace, run in order until it returns or
 * reaches the grid barrier; once every block waits there (a block that returned while others
 * wait would hang a GPU: BarrierError), they go on, in order, to the next. */
static int32_t run_grid(SimLaunch *L, int64_t nblocks, ExcInfo *exc)
{
    SimFiber *blocks = calloc((size_t)nblocks, sizeof *blocks);
    SimWorker *workers = calloc((size_t)nblocks, sizeof *workers);
    ExcInfo *excs = calloc((size_t)nblocks, sizeof *excs);
    char *stacks = nblocks <= INT32_MAX ? sim_stacks_map((int)nblocks) : NULL;
    int32_t status = ABI_STATUS_OK;
    if (!blocks || !workers || !excs || !stacks) {
        out_of_memory(exc);
        status = ABI_STATUS_ERROR;
        goto done;
    }
    running = L;
    for (int64_t b = 0; b < nblocks; b++) {
        SimFiber *f = &blocks[b];
        f->stack = sim_stack_of(stacks, (int)b);
        f->stack_size = SIM_STACK_BYTES - (size_t)(b % 64) * 64;
        f->value = b;
        f->launch = L;
        f->exc = &excs[b];
        excs[b].stack_limit = exc->stack_limit;
        sim_fiber_init(f);
    }
    int64_t returned = 0;
    for (bool started = false;; started = true) {
        int64_t waiting = 0, first = -1;
        for (int64_t b = 0; b < nblocks; b++) {
            SimFiber *f = &blocks[b];
            if (f->state != SIM_READY)
                continue;
            block_worker = &workers[b];
            block_fiber = f;
            if (started)
                sim_fiber_resume(f);
            else
                sim_fiber_first(f);
            block_worker = NULL;
            block_fiber = NULL;
            if (f->state == SIM_DONE) {
                worker_free(&workers[b]);
                returned++;
                if (f->status != ABI_STATUS_OK) {
                    set_exc(exc, f->exc);
                    status = ABI_STATUS_ERROR;
                    goto done;
                }
            }
        }
        for (int64_t b = 0; b < nblocks; b++)
            if (blocks[b].state == SIM_WAITING) {
                waiting++;
                first = first < 0 ? b : first;
            }
        if (waiting == 0)
            break;
        if (returned) {   /* the waiting blocks would wait for ever */
            char shown[160] = "";
            int at = 0;
            for (int64_t b = 0, n = 0; b < nblocks && n < 4; b++)
                if (blocks[b].state == SIM_WAITING) {
                    const uint32_t *g = L->cfg.grid;
                    at = append(shown, sizeof shown, at, "%s(%lld, %lld, %lld)", n ? ", " : "",
                                (long long)(b % g[0]), (long long)(b / g[0] % g[1]),
                                (long long)(b / ((int64_t)g[0] * g[1])));
                    n++;
                }
            status = barrier_fail(L, exc, "kernel '%s': deadlock: %lld block(s) wait at the grid "
                                  "barrier gpu.cg.this_grid().sync() of line %d (%s%s), but %lld "
                                  "block(s) returned without reaching it (on the GPU this hangs)",
                                  L->kname, (long long)waiting, blocks[first].site, shown,
                                  waiting > 4 ? ", ..." : "", (long long)returned);
            goto done;
        }
        for (int64_t b = 0; b < nblocks; b++)
            if (blocks[b].state == SIM_WAITING)
                blocks[b].state = SIM_READY;
    }
done:
    /* blocks left waiting after a failure are dropped with their stacks */
    for (int64_t b = 0; workers && b < nblocks; b++)
        worker_free(&workers[b]);
    if (stacks)
        sim_stacks_unmap(stacks, (int)nblocks);
    free(blocks);
    free(workers);
    free(excs);
    return status;
}

int32_t rt_sim_launch(RtDispatcher *d, RtVersion *v, void **args, ExcInfo *exc)
{
    SimLaunch L = {.kname = d->cname, .fn = (AbiSimBlock)v->code.simblock,
                   .thread_fn = v->code.wrapper, .args = args, .cfg = pending,
                   .shared_bytes = (v->sim_shared + 15) / 16 * 16, .sync = v->sim_sync};
    pending.set = false;
    last_fault.thread = false;
    if (!L.cfg.set) {   /* called as a function, not launched */
        static const char text[] = "a kernel is launched with a configuration, "
                                   "kernel[blocks, threads](...), not called";
        ExcInfo e = {.kind = ABI_EXC_TYPE, .msg = text};
        set_exc(exc, &e);
        return ABI_STATUS_ERROR;
    }
    atomic_init(&L.claimed, 0);
    atomic_init(&L.race_claimed, 0);
    L.nthreads = (int)(L.cfg.block[0] * L.cfg.block[1] * L.cfg.block[2]);
    int64_t nblocks = (int64_t)L.cfg.grid[0] * L.cfg.grid[1] * L.cfg.grid[2];
    if (v->sim_grid && nblocks > L.cfg.co_resident) {   /* the GPU refuses it too */
        static __thread char text[400];
        snprintf(text, sizeof text, "kernel '%s' syncs its grid (gpu.cg.this_grid().sync()), so "
                 "all its blocks must run at once: a grid of %lld blocks of %d threads is more "
                 "than the %lld GPU 0 holds together (kernel.max_cooperative_grid_blocks(blockdim) "
                 "gives that limit)", d->cname, (long long)nblocks, L.nthreads,
                 (long long)L.cfg.co_resident);
        ExcInfo e = {.kind = ABI_EXC_VALUE, .msg = text};
        set_exc(exc, &e);
        return ABI_STATUS_ERROR;
    }
    int32_t status = v->sim_grid ? run_grid(&L, nblocks, exc)
                                 : rt_pool_for(run_blocks, &L, nblocks, exc);
    if (status != ABI_STATUS_OK && !L.fault_barrier && atomic_load(&L.claimed)) {
        last_fault.thread = true;
        memcpy(last_fault.tid, L.fault_thread, sizeof last_fault.tid);
        memcpy(last_fault.block, L.fault_block, sizeof last_fault.block);
    }
    if (status != ABI_STATUS_OK && L.fault_barrier) {   /* the text outlives L: copied */
        static __thread char text[sizeof L.barrier_text];
        memcpy(text, L.barrier_text, sizeof text);
        exc->msg = text;
    }
    if (status != ABI_STATUS_OK && exc->msg == L.race_text) {
        static __thread char text[sizeof L.race_text];
        memcpy(text, L.race_text, sizeof text);
        exc->msg = text;
    }
    return status;
}

void rt_sim_name_thread(RtDispatcher *d)
{
    if (last_fault.thread)
        rt_kernel_name_thread(d->cname, last_fault.tid, last_fault.block);
}

/* _core.sim_configure(grid, block, sharedmem, barrier_error, co_resident, race_error): the next
 * launch's
 * configuration on this thread, each of grid and block three positive ints (checked by the
 * caller); co_resident, the most blocks the GPU runs at once (a grid barrier's limit). */
PyObject *rt_sim_configure(PyObject *self, PyObject *args)
{
    SimConfig c = {.set = true};
    long long dyn;
    PyObject *cls;
    long long most;
    PyObject *race_cls;
    if (!PyArg_ParseTuple(args, "(III)(III)LOLO:sim_configure", &c.grid[0], &c.grid[1],
                          &c.grid[2], &c.block[0], &c.block[1], &c.block[2], &dyn, &cls, &most,
                          &race_cls))
        return NULL;
    if (!race_error)
        race_error = Py_NewRef(race_cls);
    c.dynbytes = dyn;
    c.co_resident = most;
    if (!barrier_error)
        barrier_error = Py_NewRef(cls);
    pending = c;
    Py_RETURN_NONE;
}
