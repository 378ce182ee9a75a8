/* arena.c: bump allocation in chunks, plus deferred releases run when the arena goes. */
#include "compiler/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (64 * 1024)

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
};

static void *xmalloc(size_t size)
{
    void *p = malloc(size);
    if (!p) {
        fprintf(stderr, "pyjit: out of memory allocating %zu bytes\n", size);
        abort();
    }
    return p;
}

Arena *arena_new(void)
{
    Arena *arena = xmalloc(sizeof *arena);
    arena->chunks = NULL;
    arena->deferred = NULL;
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
    free(arena);
}

void *arena_alloc(Arena *arena, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    Chunk *c = arena->chunks;
    if (!c || c->used + size > c->size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = xmalloc(sizeof(Chunk) + cap);
        c->used = 0;
        c->size = cap;
        c->next = arena->chunks;
        arena->chunks = c;
    }
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
