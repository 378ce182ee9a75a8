/* arena.c: bump allocation in chunks, plus deferred releases run when the arena goes.
 *
 * Out of memory: callers never check arena_alloc's result (the compiler allocates in hundreds of
 * places), so when malloc fails the arena marks itself failed and serves the rest of the
 * compilation from a reserve it set aside when it was made; the driver then turns the failed
 * arena into DIAG_MEMORY (arena_check), a MemoryError. The reserve costs no memory until used:
 * a block that size is mapped lazily by malloc. Only a compilation that outgrows the reserve
 * after malloc has failed has nowhere to go: it stops the process, with a message. */
#include "compiler/arena.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/diag.h"

#define CHUNK_SIZE (64 * 1024)
#define RESERVE_SIZE (1024 * 1024)

typedef struct Chunk {
    struct Chunk *next;
    size_t used, size;
    _Alignas(16) char data[];
} Chunk;

typedef struct Deferred {
    struct Deferred *next;
    void (*fn)(void *);
    void *arg;
} Deferred;

struct Arena {
    Chunk *chunks;
    Deferred *deferred;
    Chunk *reserve;     /* used once malloc has failed; NULL after it is taken into chunks */
    bool failed;
    int fail_after;     /* test hook: chunk mallocs left before one fails; -1 never */
};

static Chunk *new_chunk(size_t cap)
{
    Chunk *c = malloc(sizeof(Chunk) + cap);
    if (c) {
        c->used = 0;
        c->size = cap;
    }
    return c;
}

Arena *arena_new(void)
{
    Arena *arena = malloc(sizeof *arena);
    Chunk *reserve = new_chunk(RESERVE_SIZE);
    if (!arena || !reserve) {
        free(arena);
        free(reserve);
        return NULL;
    }
    arena->chunks = NULL;
    arena->deferred = NULL;
    arena->reserve = reserve;
    arena->failed = false;
    arena->fail_after = -1;
    return arena;
}

void arena_free(Arena *arena)
{
    if (!arena)
        return;
    for (Deferred *d = arena->deferred; d; d = d->next)
        d->fn(d->arg);
    for (Chunk *c = arena->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(arena->reserve);
    free(arena);
}

/* A chunk with room for size bytes: a new one, or the reserve once malloc fails. */
static Chunk *grow(Arena *arena, size_t size)
{
    size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
    Chunk *c = NULL;
    if (arena->fail_after != 0)
        c = new_chunk(cap);
    if (arena->fail_after > 0)
        arena->fail_after--;
    if (!c) {
        arena->failed = true;
        c = arena->reserve;
        arena->reserve = NULL;
        if (!c || size > c->size) {
            fprintf(stderr, "pyjit: out of memory allocating %zu bytes, and the compiler's "
                    "reserve is spent\n", size);
            abort();
        }
    }
    c->next = arena->chunks;
    arena->chunks = c;
    return c;
}

void *arena_alloc(Arena *arena, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    Chunk *c = arena->chunks;
    if (!c || c->used + size > c->size)
        c = grow(arena, size);
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strdup(Arena *arena, const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(arena_alloc(arena, n), s, n);
}

char *arena_vprintf(Arena *arena, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = arena_alloc(arena, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *arena_printf(Arena *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = arena_vprintf(arena, fmt, ap);
    va_end(ap);
    return s;
}

void arena_defer(Arena *arena, void (*fn)(void *), void *arg)
{
    Deferred *d = arena_alloc(arena, sizeof *d);
    d->fn = fn;
    d->arg = arg;
    d->next = arena->deferred;
    arena->deferred = d;
}

void vec_push(Arena *arena, PtrVec *vec, void *item)
{
    if (vec->len == vec->cap) {
        int cap = vec->cap ? vec->cap * 2 : 8;
        void **items = arena_alloc(arena, sizeof(void *) * (size_t)cap);
        if (vec->len)
            memcpy(items, vec->items, sizeof(void *) * (size_t)vec->len);
        vec->items = items;
        vec->cap = cap;
    }
    vec->items[vec->len++] = item;
}

bool arena_failed(const Arena *arena)
{
    return arena->failed;
}

int arena_check(const Arena *arena, Diag *diag)
{
    if (!arena->failed)
        return 0;
    /* Whatever went wrong after malloc failed is a consequence of it: MemoryError wins. */
    diag->kind = DIAG_NONE;
    return diag_error(diag, DIAG_MEMORY, NULL, NULL, 0, -1, -1,
                      "out of memory while compiling");
}

void arena_fail_after(Arena *arena, int n)
{
    arena->fail_after = n;
}
