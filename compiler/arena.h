/* arena.h: one arena per compilation.
 *
 * Everything a compilation allocates (IR, types of that compilation, strings) comes from its arena
 * and is freed at once by arena_free. The arena also runs deferred releases (Python references,
 * LLVM handles) registered with arena_defer, newest first, so nothing is freed piecemeal and nothing
 * leaks across compilations. Plain C: no Python here. */
#ifndef PYJIT_ARENA_H
#define PYJIT_ARENA_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct Arena Arena;
struct Diag;

/* NULL if even the arena cannot be had (the caller raises MemoryError). */
Arena *arena_new(void);
void arena_free(Arena *arena);

/* Zeroed memory, aligned for any scalar, never NULL. If malloc fails the arena is marked failed
 * and serves the request from its reserve (arena.c), so the compilation goes on to its end and
 * the driver reports it with arena_check. */
void *arena_alloc(Arena *arena, size_t size);
bool arena_failed(const Arena *arena);
/* 0, or -1 with diag set to DIAG_MEMORY (replacing any earlier error) if the arena failed. */
int arena_check(const Arena *arena, struct Diag *diag);
/* Test hook: the arena's (n+1)-th chunk malloc from now fails (n = 0: the next one). */
void arena_fail_after(Arena *arena, int n);
char *arena_strdup(Arena *arena, const char *s);
char *arena_printf(Arena *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *arena, const char *fmt, va_list ap);

/* Runs fn(arg) when the arena is freed (newest first). */
void arena_defer(Arena *arena, void (*fn)(void *), void *arg);

/* A growable array of pointers living in an arena. */
typedef struct PtrVec {
    void **items;
    int len, cap;
} PtrVec;

void vec_push(Arena *arena, PtrVec *vec, void *item);

#endif
