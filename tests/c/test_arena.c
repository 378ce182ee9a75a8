/* test_arena.c: the arena (compiler/arena.c) when malloc fails: allocation goes on from the
 * reserve, the arena is marked failed, and arena_check turns that into DIAG_MEMORY, replacing
 * the error it caused. */
#include "compiler/arena.h"
#include "compiler/diag.h"

#include <stdio.h>
#include <string.h>

#include "tests/c/check.h"

static void test_plain(void)
{
    Arena *a = arena_new();
    char *s = arena_printf(a, "%s-%d", "x", 42);
    CHECK(strcmp(s, "x-42") == 0);
    for (int i = 0; i < 100; i++)
        CHECK(arena_alloc(a, 10000) != NULL);   /* several chunks */
    Diag diag = {0};
    CHECK(!arena_failed(a) && arena_check(a, &diag) == 0 && diag.kind == DIAG_NONE);
    arena_free(a);
}

static void test_malloc_fails(void)
{
    Arena *a = arena_new();
    arena_fail_after(a, 1);   /* the first chunk is had, the second is not */
    unsigned char *first = arena_alloc(a, 1000);
    CHECK(first && !arena_failed(a));
    unsigned char *big = arena_alloc(a, 100 * 1024);   /* needs a new chunk: served by the reserve */
    CHECK(big && arena_failed(a));
    CHECK(big[0] == 0 && big[100 * 1024 - 1] == 0);   /* zeroed, and usable */
    memset(big, 0xab, 100 * 1024);
    CHECK(first[999] == 0);
    PtrVec v = {0};
    for (int i = 0; i < 1000; i++)
        vec_push(a, &v, big);
    CHECK(v.len == 1000 && v.items[999] == big);
    Diag diag = {0};
    diag_error(&diag, DIAG_TYPING, "f", "f.py", 3, -1, -1, "a consequence of the failure");
    CHECK(arena_check(a, &diag) == -1);
    CHECK(diag.kind == DIAG_MEMORY && strstr(diag.message, "out of memory"));
    arena_free(a);
}

int main(void)
{
    test_plain();
    test_malloc_fails();
    return check_report("test_arena");
}
