/* round.c: round(x, ndigits) for ndigits < 0, correctly rounded as CPython rounds it.
 *
 * Rounding to tens, hundreds, ... through a division by a power of ten rounds twice (the
 * quotient, then the product), which is off by an ulp for large |x| and can even move a value
 * across the halfway point (round(5e307, -308) is 1e308 in CPython: the double 5e307 is a little
 * above 5 * 10**307). Here the decimal expansion of |x| is written out exactly (a double >= 1
 * has at most 52 fractional digits, and glibc's printf is exact), rounded half to even as a
 * string, and read back with strtod (correctly rounded): one rounding, as in CPython's dtoa.
 * Plain C: it runs without the GIL. */
#include "compiler/abi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x finite, ndigits < 0. An infinite result (|x| near DBL_MAX) is the caller's OverflowError. */
double pj_round_neg(double x, int64_t ndigits)
{
    double ax = fabs(x);
    if (ax < 1.0 || ndigits < -400)     /* below half of 10**-ndigits: a zero of x's sign */
        return copysign(0.0, x);
    /* '0', then the integer digits, '.', 52 fractional digits: at most 1 + 309 + 1 + 52 */
    char buf[400];
    buf[0] = '0';    /* room for a carry out of the first digit */
    int len = snprintf(buf + 1, sizeof buf - 1, "%.52f", ax);
    if (len <= 0 || len >= (int)sizeof buf - 1)
        return x;
    char *point = strchr(buf, '.');
    int nint = (int)(point - buf);      /* integer digits, with the leading '0' */
    int64_t k = -ndigits;
    if (k >= nint)                      /* |x| < 10**(nint-1) <= 10**(k-1): under half */
        return copysign(0.0, x);
    int keep = nint - (int)k;           /* digits kept, >= 1 */
    /* the dropped part against one half: its first digit, then any nonzero digit after it */
    int cmp = buf[keep] - '5';
    for (const char *p = buf + keep + 1; cmp == 0 && *p; p++)
        if (*p != '0' && *p != '.')
            cmp = 1;
    if (cmp > 0 || (cmp == 0 && (buf[keep - 1] - '0') % 2 == 1)) {
        int i = keep - 1;
        while (buf[i] == '9')
            buf[i--] = '0';
        buf[i]++;
    }
    memset(buf + keep, '0', (size_t)k);
    buf[nint] = '\0';
    return copysign(strtod(buf, NULL), x);
}
