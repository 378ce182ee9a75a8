/* For the static build only (PYJIT_STATIC_LLVM): LLVM's Support library asks terminfo whether a
 * terminal takes colours, and Debian's libtinfo.a is not position-independent, so it cannot go
 * into a shared module. These stand-ins answer "no terminal", as an LLVM built without terminfo
 * does: LLVM then prints no colour codes, which pyjit never asks for anyway. */
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
