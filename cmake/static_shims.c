/* For the static build only (PYJIT_STATIC_LLVM): stand-ins for two C library dependencies of
 * LLVM's and libstdc++'s archives that the wheel does without. */
#include <errno.h>
#include <sys/random.h>

/* LLVM's Support library asks terminfo whether a terminal takes colours, and Debian's libtinfo.a
 * is not position-independent, so it cannot go into a shared module. These answer "no
 * terminal", as an LLVM built without terminfo does: LLVM then prints no colour codes, which
 * pyjit never asks for anyway. */
struct term;

int setupterm(const char *term, int fd, int *err)
{
    if (err)
        *err = -1;
    return -1;
}

struct term *set_curterm(struct term *term)
{
    return 0;
}

int del_curterm(struct term *term)
{
    return 0;
}

int tigetnum(const char *name)
{
    return -2;
}

/* arc4random is glibc 2.36's, the only symbol that needs so new a glibc; the link renames the
 * archives' calls to it (--wrap=arc4random) to this one, on getrandom (glibc 2.25), so the wheel
 * installs down to glibc 2.35 (Ubuntu 22.04). */
unsigned int __wrap_arc4random(void)
{
    unsigned int value = 0;
    while (getrandom(&value, sizeof value, 0) != (long)sizeof value && errno == EINTR)
        continue;
    return value;
}
