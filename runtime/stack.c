/* stack.c: the stack limit recursive compiled code checks against.
 *
 * A compiled function that is part of a call cycle compares its frame address with the limit
 * at entry and raises RecursionError below it (compiler/lower.c), so deep or endless recursion
 * raises instead of overflowing the stack. The wrapper of a Program with such a function asks
 * for the limit once per call from Python (abi.h's ExcInfo.stack_limit); it is computed once per
 * thread from the thread's own stack, so threads with smaller stacks get their own limit.
 * Plain C: it runs without the GIL. */
#define _GNU_SOURCE
#include "compiler/abi.h"

#include <pthread.h>
#include <stdint.h>

#define STACK_MARGIN_MAX (256 * 1024)   /* room left for the raise and the runtime's own calls */

static _Thread_local uintptr_t stack_limit_cached;

/* The lowest address compiled code may recurse down to: the stack's base plus a margin (an
 * eighth of the stack, at most STACK_MARGIN_MAX). 0 (no limit) when the stack is unknown. */
static uintptr_t stack_limit_compute(void)
{
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    int rc = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    if (rc != 0 || !addr || size == 0)
        return 0;
    size_t margin = size / 8 < STACK_MARGIN_MAX ? size / 8 : STACK_MARGIN_MAX;
    return (uintptr_t)addr + margin;
}

void *pj_stack_limit(void)
{
    if (!stack_limit_cached)
        stack_limit_cached = stack_limit_compute();
    return (void *)stack_limit_cached;
}
