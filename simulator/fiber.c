/* fiber.c: the threads of a simulated block that has barriers, as fibers (simulator/sim.h).
 *
 * A barrier only ever hands the core from one thread of a block to the next, on one OS thread,
 * so the switch needs no kernel and no signal mask: on x86-64 it saves the callee-saved
 * registers on the running stack and loads the other stack pointer (a few nanoseconds, where
 * swapcontext's signal-mask system call costs about a microsecond). Elsewhere ucontext does it.
 * Stacks are mapped once per OS thread, for the largest block seen, and reused by every block. */
#define _GNU_SOURCE
#include "simulator/sim.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static __thread SimFiber *starting;   /* the fiber fiber_start runs (set just before the switch) */

#if defined(__x86_64__)
/* sim_switch(void **save, void *to): saves this context's stack pointer at *save, resumes to.
 * It leaves by an indirect jump, not ret: a ret into the other stack's caller would throw the
 * CPU's return-address predictor out of step, and the returns after it would mispredict too
 * (a quarter of a barrier's cost). */
void sim_switch(void **save, void *to);
__asm__(".text\n"
        ".globl sim_switch\n"
        ".type sim_switch, @function\n"
        "sim_switch:\n"
        "    pushq %rbp\n    pushq %rbx\n    pushq %r12\n    pushq %r13\n    pushq %r14\n    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n    popq %r14\n    popq %r13\n    popq %r12\n    popq %rbx\n    popq %rbp\n"
        "    popq %rax\n"
        "    jmpq *%rax\n"
        ".size sim_switch, .-sim_switch\n");

static void fiber_start(void);

/* A fresh stack whose first switch "returns" into fiber_start with the stack aligned as a call
 * would leave it: six zero registers, then fiber_start's address, then a null return address. */
static void *initial_sp(char *top)
{
    uintptr_t *sp = (uintptr_t *)((uintptr_t)top & ~(uintptr_t)15);
    *--sp = 0;
    *--sp = (uintptr_t)fiber_start;
    for (int i = 0; i < 6; i++)
        *--sp = 0;
    return sp;
}

void sim_fiber_resume(SimFiber *f)
{
    sim_switch(&f->back, f->sp);
}

void sim_fiber_yield(SimFiber *f)
{
    sim_switch(&f->sp, f->back);
}

void sim_fiber_init(SimFiber *f)
{
    f->sp = initial_sp(f->stack + f->stack_size);
}

static void fiber_start(void)
{
    SimFiber *f = starting;
    sim_fiber_run(f);
    for (;;)   /* a finished fiber is never resumed */
        sim_fiber_yield(f);
}

void sim_fiber_first(SimFiber *f)
{
    starting = f;
    sim_fiber_resume(f);
}
#else
static void fiber_start(void)
{
    SimFiber *f = starting;
    sim_fiber_run(f);
    for (;;)
        sim_fiber_yield(f);
}

void sim_fiber_init(SimFiber *f)
{
    getcontext(&f->ctx);
    f->ctx.uc_stack.ss_sp = f->stack;
    f->ctx.uc_stack.ss_size = f->stack_size;
    f->ctx.uc_link = NULL;
    makecontext(&f->ctx, fiber_start, 0);
}

void sim_fiber_resume(SimFiber *f)
{
    swapcontext(&f->back_ctx, &f->ctx);
}

void sim_fiber_yield(SimFiber *f)
{
    swapcontext(&f->ctx, &f->back_ctx);
}

void sim_fiber_first(SimFiber *f)
{
    starting = f;
    sim_fiber_resume(f);
}
#endif

/* n stacks of SIM_STACK_BYTES, each above a guard page (an overflow faults, rather than writing
 * into the next thread's stack). NULL when the memory cannot be had. */
char *sim_stacks_map(int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), each = SIM_STACK_BYTES + page;
    char *m = mmap(NULL, each * (size_t)n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    for (int i = 0; i < n; i++)
        mprotect(m + each * (size_t)i, page, PROT_NONE);
    return m;
}

void sim_stacks_unmap(char *m, int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (m)
        munmap(m, (SIM_STACK_BYTES + page) * (size_t)n);
}

char *sim_stack_of(char *m, int i)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return m + (SIM_STACK_BYTES + page) * (size_t)i + page;
}
