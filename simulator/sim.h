/* sim.h: the CPU simulator of GPU kernels (PYJIT_SIMULATOR=cpu), between its two files.
 *
 *   launch.c  a launch: blocks spread over the thread pool (runtime/pool.c); a block runs as the
 *             kernel's block function's loop over its threads (abi.h: AbiSimBlock), cut into
 *             rounds at barriers and warp operations (compiler/lower_sim_regions.c;
 *             pj_sim_regions_sync ends a round), or, when the cut cannot reach them, as one fiber
 *             per thread, switched at each; a kernel that syncs its grid runs its blocks as
 *             fibers too (run_grid)
 *   fiber.c   the fibers: their stacks and the switch
 *
 * The kernels themselves are compiled by the ordinary pipeline (compiler/lower_sim.c). */
#ifndef PYJIT_SIMULATOR_SIM_H
#define PYJIT_SIMULATOR_SIM_H

#include "compiler/abi.h"

#include <stddef.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#define SIM_STACK_BYTES (256 * 1024)   /* per simulated thread of a block on fibers */

/* SIM_WAITING: at a barrier; SIM_WARP: at a warp operation */
typedef enum SimState { SIM_READY, SIM_WAITING, SIM_WARP, SIM_DONE } SimState;

typedef struct SimFiber {
    /* what the scheduler and the barriers touch, first, in one cache line */
#if defined(__x86_64__)
    void *sp, *back;        /* its saved stack pointer; the scheduler's while it runs */
#endif
    AbiSimThread *thread;
    SimState state;
    int32_t status;         /* the thread's when SIM_DONE */
    int32_t op, pred, site; /* the barrier or warp operation it waits at (pj_sim_barrier's and */
    int32_t result;         /* pj_sim_warp's arguments); the barrier's result */
    uint32_t mask;
    int64_t value, wresult;
    char *stack;
    size_t stack_size;
    struct SimBlockRun *run;   /* launch.c's: the block it belongs to (NULL: the fiber is a
                                * block of a grid that syncs, block index `value`) */
    struct SimLaunch *launch;  /* a block's: its launch, and where its exception goes */
    ExcInfo *exc;
#if !defined(__x86_64__)
    ucontext_t ctx, back_ctx;
#endif
} SimFiber;

/* fiber.c */
void sim_fiber_init(SimFiber *f);          /* to start at sim_fiber_run(f) on its first resume */
void sim_fiber_first(SimFiber *f);         /* the first resume */
void sim_fiber_resume(SimFiber *f);        /* from the scheduler: runs f until it yields */
void sim_fiber_yield(SimFiber *f);         /* from f: back to the scheduler */
char *sim_stacks_map(int n);
void sim_stacks_unmap(char *m, int n);
char *sim_stack_of(char *m, int i);

/* launch.c: a fiber's body (runs its thread to the end, then marks it SIM_DONE). */
void sim_fiber_run(SimFiber *f);

#endif
