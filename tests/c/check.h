/* check.h: the one CHECK macro of the C unit tests, and their summary line.
 * Each test file includes it once: a failed CHECK prints its place and counts, and
 * check_report() prints "name: ok" or the count and gives main's exit status. */
#ifndef PYJIT_TESTS_CHECK_H
#define PYJIT_TESTS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static int check_report(const char *name)
{
    if (failures)
        fprintf(stderr, "%s: %d failure(s)\n", name, failures);
    else
        printf("%s: ok\n", name);
    return failures != 0;
}

#endif
