/* pool.c: the threads that run the prange loops of @njit(parallel=True) functions and the
 * loops of target='parallel' ufuncs (runtime/ufunc.c).
 *
 * pyjit/_parallel.py outlines a prange loop into a chunk function taking (lo, hi, slot, ...);
 * the compiled caller calls pj_parfor with that function's uniform wrapper and the rest of its
 * arguments, and the iterations 0..n-1 are handed out here in chunks, dynamically (an atomic
 * counter), to the calling thread (slot 0) and the workers (slots 1..); a ufunc's loop comes
 * through rt_pool_for with a C function per chunk. The workers start on the
 * first region that needs them, never touch Python (the caller lets the GIL go while it takes
 * part), and a forked child starts its own. One region runs on the workers at a time: another
 * thread's region, or one nested inside a region, runs alone on its own thread.
 *
 * How many threads a region uses is the calling thread's own setting (set_num_threads is per
 * thread, as in Numba), at most the pool's size, fixed at import from NUMBA_NUM_THREADS /
 * PYJIT_NUM_THREADS or the cores this process may run on. */
#define _GNU_SOURCE
#include "runtime/runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#define PAR_MAX_THREADS 1024
#define PAR_CHUNKS_PER_THREAD 8     /* dynamic chunks per thread: uneven loops stay balanced */
#define PAR_MAX_ARGS 128    /* in step with compiler/infer_calls.c's MAX_ARGS */
#define PAR_PAUSES 4000             /* busy polls of a finished worker (tens of microseconds) */
#define PAR_SPIN 2000               /* then polls that yield the core, before it sleeps */

typedef struct ParJob {
    RtChunkFn fn;
    void *ctx;
    int nthreads;
    int64_t n, chunk, nchunks;
    atomic_llong next;      /* the next chunk handed out; chunks 0..nthreads-1 are the slots' own */
    atomic_int failed;
    ExcInfo exc;            /* written by the one thread that set failed */
} ParJob;

/* A worker's place to sleep, on a cache line of its own: the caller wakes only the sleepers of
 * its region, and reads a flag per slot to find them. */
typedef struct Sleeper {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_int asleep;
} __attribute__((aligned(64))) Sleeper;

/* A region's ticket: its generation and its thread count in one word, so that a worker reads
 * both at once and one left out of the region never touches the job (the caller may already
 * have returned from it). */
#define TICKET(generation, nthreads) ((generation) << 16 | (unsigned long)(nthreads))
#define TICKET_THREADS(ticket) ((int)((ticket) & 0xffff))

static struct {
    pthread_mutex_t lock, submit;
    pthread_cond_t done;
    ParJob *job;
    atomic_ulong ticket;
    unsigned long generation;   /* of the last region (changed with pool.submit held) */
    atomic_int active;      /* the region's workers not yet done with it */
    int nworkers;           /* started: slots 1..nworkers */
    atomic_int started;
    Sleeper sleeper[PAR_MAX_THREADS];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static int pool_size = 1;                    /* NUMBA_NUM_THREADS: the most a region may use */
static _Thread_local int my_threads;         /* set_num_threads of this thread; 0: pool_size */
static _Thread_local int my_slot;            /* 0: a caller; 1..: a worker */
static _Thread_local bool in_region;         /* a nested region runs alone */
static _Thread_local int64_t my_chunksize;   /* set_parallel_chunksize of this thread; 0: ours */

/* Runs chunks of job: first the slot's own (so a region with a chunk per thread takes no
 * shared counter), then the ones left, handed out dynamically. */
static void job_work(ParJob *job, int64_t slot)
{
    bool more = job->nchunks > job->nthreads;
    for (int64_t c = slot; c < job->nchunks;
         c = more ? atomic_fetch_add(&job->next, 1) : job->nchunks) {
        if (atomic_load_explicit(&job->failed, memory_order_relaxed))
            return;
        int64_t lo = c * job->chunk;
        int64_t hi = job->n - lo < job->chunk ? job->n : lo + job->chunk;
        ExcInfo exc = {0};
        if (job->fn(job->ctx, lo, hi, slot, &exc) != ABI_STATUS_OK &&
            !atomic_exchange(&job->failed, 1))
            job->exc = exc;
    }
}

/* A busy poll's pause: the core's other thread (and the power budget) get the time. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Whether ticket is a region, after the one seen, that this worker takes part in. */
static inline bool ticket_mine(unsigned long ticket, unsigned long seen)
{
    return ticket != seen && TICKET_THREADS(ticket) > my_slot;
}

/* Waits for the next region this worker takes part in: polls a while (a loop of regions then
 * wakes no one and takes no lock), then sleeps until the caller of such a region wakes it.
 * Regions that leave this worker out pass by without a word from it. */
static unsigned long worker_next(unsigned long seen)
{
    unsigned long ticket;
    for (int i = 0; i < PAR_PAUSES; i++) {
        if (ticket_mine(ticket = atomic_load(&pool.ticket), seen))
            return ticket;
        cpu_relax();
    }
    for (int i = 0; i < PAR_SPIN; i++) {
        if (ticket_mine(ticket = atomic_load(&pool.ticket), seen))
            return ticket;
        sched_yield();
    }
    /* asleep is set before the ticket is read again, and the caller publishes the ticket
     * before it reads asleep: one of the two sees the other (both sequentially consistent) */
    Sleeper *me = &pool.sleeper[my_slot];
    pthread_mutex_lock(&me->lock);
    atomic_store(&me->asleep, 1);
    while (!ticket_mine(ticket = atomic_load(&pool.ticket), seen))
        pthread_cond_wait(&me->wake, &me->lock);
    atomic_store(&me->asleep, 0);
    pthread_mutex_unlock(&me->lock);
    return ticket;
}

/* A worker's life: the job of a region it takes part in stays valid until it says it is done
 * (the caller waits for that), so it reads the job without a lock. */
static void *pool_worker(void *arg)
{
    my_slot = (int)(intptr_t)arg;
    in_region = true;
    unsigned long seen = 0;
    for (;;) {
        seen = worker_next(seen);
        job_work(pool.job, my_slot);
        /* only the last worker takes the lock, to wake a caller that went to sleep (it tests
         * active under the lock, so the signal cannot fall between its test and its wait) */
        if (atomic_fetch_sub(&pool.active, 1) == 1) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
    }
    return NULL;
}

static void sleepers_init(void)
{
    for (int i = 0; i < PAR_MAX_THREADS; i++) {
        pthread_mutex_init(&pool.sleeper[i].lock, NULL);
        pthread_cond_init(&pool.sleeper[i].wake, NULL);
        atomic_store(&pool.sleeper[i].asleep, 0);
    }
}

/* A forked child has none of the parent's workers, and the locks may have been held by a thread
 * that did not come along: start again there. */
static void pool_after_fork(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pthread_mutex_init(&pool.submit, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.job = NULL;
    atomic_store(&pool.ticket, 0);
    pool.generation = 0;
    atomic_store(&pool.active, 0);
    pool.nworkers = 0;
    atomic_store(&pool.started, 0);
    in_region = false;
}

/* Starts the workers, once per process; called with pool.submit held. */
static void pool_start(void)
{
    static atomic_int atfork_done;
    if (!atomic_exchange(&atfork_done, 1))
        pthread_atfork(NULL, NULL, pool_after_fork);
    sleepers_init();
    for (int i = 1; i < pool_size; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, pool_worker, (void *)(intptr_t)i) != 0)
            break;
        pthread_detach(t);
        pool.nworkers++;
    }
    atomic_store(&pool.started, 1);
}

/* Takes the pool for a region of n iterations: false (the region runs alone on this thread)
 * when it is small, nested, or another thread's region holds the pool. Otherwise the pool's
 * workers are started and job->nthreads is what the region will use, two at least. */
static bool pool_take(ParJob *job, int64_t n)
{
    if (job->nthreads < 2 || n < 2 || in_region || pthread_mutex_trylock(&pool.submit) != 0)
        return false;
    if (!atomic_load(&pool.started))
        pool_start();
    int most = (int)(n < pool.nworkers + 1 ? n : pool.nworkers + 1);
    if (job->nthreads > most)
        job->nthreads = most;
    if (job->nthreads < 2) {
        pthread_mutex_unlock(&pool.submit);
        return false;
    }
    return true;
}

/* Runs job on its workers and this thread; returns with each of them done with it. */
static void pool_run(ParJob *job)
{
    pool.job = job;
    atomic_store(&pool.active, job->nthreads - 1);
    atomic_store(&pool.ticket, TICKET(++pool.generation, job->nthreads));
    for (int i = 1; i < job->nthreads; i++) {
        Sleeper *s = &pool.sleeper[i];
        if (atomic_load(&s->asleep)) {
            pthread_mutex_lock(&s->lock);
            pthread_cond_signal(&s->wake);
            pthread_mutex_unlock(&s->lock);
        }
    }
    in_region = true;
    job_work(job, 0);
    in_region = false;
    /* the workers' last chunks usually end within microseconds */
    for (int i = 0; i < PAR_PAUSES && atomic_load(&pool.active) > 0; i++)
        cpu_relax();
    for (int i = 0; i < PAR_SPIN && atomic_load(&pool.active) > 0; i++)
        sched_yield();
    if (atomic_load(&pool.active) > 0) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load(&pool.active) > 0)
            pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
}

int64_t pj_num_threads(void)
{
    return my_threads ? my_threads : pool_size;
}

int64_t pj_thread_id(void)
{
    return my_slot;
}

int64_t pj_set_parallel_chunksize(int64_t n)
{
    int64_t old = my_chunksize;
    my_chunksize = n < 0 ? 0 : n;
    return old;
}

int64_t pj_get_parallel_chunksize(void)
{
    return my_chunksize;
}

int32_t rt_pool_for(RtChunkFn fn, void *ctx, int64_t n, ExcInfo *exc)
{
    if (n <= 0)
        return ABI_STATUS_OK;
    ParJob job = {.fn = fn, .ctx = ctx, .n = n, .nthreads = (int)pj_num_threads()};
    atomic_init(&job.failed, 0);
    int64_t chunksize = my_chunksize;   /* the region's own code sees 0, as in Numba */
    my_chunksize = 0;
    if (!pool_take(&job, n)) {
        job.nthreads = 1;
        job.chunk = n;
        job.nchunks = 1;
        atomic_init(&job.next, 1);
        job_work(&job, 0);
    } else {
        int64_t parts = (int64_t)job.nthreads * PAR_CHUNKS_PER_THREAD;
        job.chunk = chunksize > 0 ? chunksize : (n + parts - 1) / parts;
        job.nchunks = (n + job.chunk - 1) / job.chunk;
        atomic_init(&job.next, job.nthreads);
        PyThreadState *ts = PyGILState_Check() ? PyEval_SaveThread() : NULL;
        pool_run(&job);
        pthread_mutex_unlock(&pool.submit);
        if (ts)
            PyEval_RestoreThread(ts);
    }
    my_chunksize = chunksize;
    if (!atomic_load(&job.failed))
        return ABI_STATUS_OK;
    void *limit = exc->stack_limit;
    *exc = job.exc;
    exc->stack_limit = limit;
    return ABI_STATUS_ERROR;
}

/* The outlined loop of an array expression or a reduction (compiler/lower_parallel.c). */
int32_t pj_pool_for(void *fn, void *ctx, int64_t n, ExcInfo *exc)
{
    return rt_pool_for((RtChunkFn)fn, ctx, n, exc);
}

/* What a prange loop's chunks share: the chunk function's wrapper and its arguments. */
typedef struct ParCall {
    AbiWrapper wrapper;
    void **argv;            /* argv[3..nargs) set by the caller; 0..2 are lo, hi, slot */
    int nargs;
} ParCall;

static int32_t call_chunk(void *ctx, int64_t lo, int64_t hi, int64_t slot, ExcInfo *exc)
{
    const ParCall *call = ctx;
    void *argv[PAR_MAX_ARGS];
    memcpy(argv, call->argv, sizeof(void *) * (size_t)call->nargs);
    argv[0] = &lo;
    argv[1] = &hi;
    argv[2] = &slot;
    _Alignas(16) char ret[64];
    return call->wrapper(argv, ret, exc);
}

/* The prange loop of a compiled function: iterations [0, n) of the chunk function whose
 * wrapper is given, argv[3..nargs) its other arguments. */
int32_t pj_parfor(void *wrapper, void **argv, int32_t nargs, int64_t n, ExcInfo *exc)
{
    if (nargs > PAR_MAX_ARGS) {
        exc->kind = ABI_EXC_VALUE;
        exc->nargs = 0;
        exc->msg = "a prange loop passes its chunk more than 128 values";
        return ABI_STATUS_ERROR;
    }
    ParCall call = {(AbiWrapper)wrapper, argv, nargs};
    return rt_pool_for(call_chunk, &call, n, exc);
}

/* _core.ufunc_threads(): the most threads a parallel loop uses (the caller included). */
PyObject *rt_ufunc_threads(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(pool_size);
}

/* ---- the Python side: pyjit.set_num_threads and friends (pyjit/_parallel.py) ---- */

/* _core.parallel_configure(n): the pool's size, before any region; False once the pool has
 * started (its size is then fixed). */
PyObject *rt_parallel_configure(PyObject *self, PyObject *arg)
{
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 1 || n > PAR_MAX_THREADS)
        return PyErr_Format(PyExc_ValueError, "the number of threads must be between 1 and %d, "
                            "not %ld", PAR_MAX_THREADS, n);
    if (atomic_load(&pool.started))
        Py_RETURN_FALSE;
    pool_size = (int)n;
    Py_RETURN_TRUE;
}

/* _core.parallel_started(): whether the pool's threads run (pyjit.threading_layer()). */
PyObject *rt_parallel_started(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(atomic_load(&pool.started));
}

/* _core.parallel_set_threads(n): this thread's regions use n threads (checked by the caller). */
PyObject *rt_parallel_set_threads(PyObject *self, PyObject *arg)
{
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    my_threads = n < 1 ? 1 : n > pool_size ? pool_size : (int)n;
    Py_RETURN_NONE;
}

/* _core.parallel_chunksize(n): this thread's prange loops hand out chunks of n iterations (0:
 * pyjit's own choice, eight per thread); n < 0 only reads it. Returns the setting before. */
PyObject *rt_parallel_chunksize(PyObject *self, PyObject *arg)
{
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(n < 0 ? my_chunksize : pj_set_parallel_chunksize(n));
}

PyObject *rt_parallel_get_threads(PyObject *self, PyObject *unused)
{
    return PyLong_FromLongLong(pj_num_threads());
}

PyObject *rt_parallel_thread_id(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(my_slot);
}
