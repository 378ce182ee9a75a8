/* str.c: run-time strings for compiled code (abi.h's StrPayload), and their crossing to and from
 * Python.
 *
 * A string is a MemInfo (nrt.c) whose data is the payload: length, cached hash, kind and the code
 * points, as CPython keeps a compact str (PEP 393). Every string made here has the narrowest kind
 * that holds its code points, as CPython's have, so equality is a byte compare and the hash is
 * CPython's _Py_HashBytes over the same bytes: hash(s) in compiled code equals hash(s) in Python.
 * The functions compiled code calls are plain C and run without the GIL; the character classes
 * come from CPython's Unicode database (pure table lookups, no interpreter state). */
#include "runtime/runtime.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static StrPayload *payload(MemInfo *mi)
{
    return (StrPayload *)mi->data;
}

static uint32_t read_cp(const StrPayload *p, int64_t i)
{
    switch (p->kind) {
    case 1: return ((const uint8_t *)p->data)[i];
    case 2: return ((const uint16_t *)p->data)[i];
    default: return ((const uint32_t *)p->data)[i];
    }
}

static void write_cp(StrPayload *p, int64_t i, uint32_t c)
{
    switch (p->kind) {
    case 1: ((uint8_t *)p->data)[i] = (uint8_t)c; break;
    case 2: ((uint16_t *)p->data)[i] = (uint16_t)c; break;
    default: ((uint32_t *)p->data)[i] = c; break;
    }
}

static bool is_space(uint32_t c)
{
    return Py_UNICODE_ISSPACE(c);
}

static int32_t kind_for(uint32_t maxchar)
{
    return maxchar < 0x100 ? 1 : maxchar < 0x10000 ? 2 : 4;
}

/* A new string of len code points of the given kind, not yet written (its zero end is). */
static MemInfo *str_new(int64_t len, int32_t kind)
{
    if (len < 0 || (uint64_t)len > ((uint64_t)INT64_MAX - sizeof(StrPayload)) / 4 - 1)
        return NULL;
    MemInfo *mi = rt_nrt_alloc_small((int64_t)sizeof(StrPayload) + (len + 1) * kind);
    if (!mi)
        return NULL;
    StrPayload *p = payload(mi);
    p->length = len;
    p->hash = -1;
    p->kind = kind;
    p->unused = 0;
    write_cp(p, len, 0);
    return mi;
}

/* The largest code point of p[start : start + n*step : step]. */
static uint32_t max_cp(const StrPayload *p, int64_t start, int64_t step, int64_t n)
{
    uint32_t m = 0;
    if (p->kind == 1 && step == 1) {
        const uint8_t *d = (const uint8_t *)p->data + start;
        for (int64_t i = 0; i < n && m < 0x80; i++)
            m = d[i] > m ? d[i] : m;
        return m < 0x80 ? m : 0xff;   /* the kind is what matters */
    }
    for (int64_t i = 0; i < n; i++) {
        uint32_t c = read_cp(p, start + i * step);
        m = c > m ? c : m;
    }
    return m;
}

/* The strings of one Latin-1 code point, made once and never freed, as CPython keeps them:
 * `for ch in s` and s[i] then allocate nothing. */
typedef struct Latin1Char {
    MemInfo mi;
    _Alignas(8) char payload[sizeof(StrPayload) + 2];
} Latin1Char;
static Latin1Char latin1[256];
static pthread_once_t latin1_once = PTHREAD_ONCE_INIT;

static void latin1_init(void)
{
    for (int c = 0; c < 256; c++) {
        StrPayload *p = (StrPayload *)latin1[c].payload;
        *p = (StrPayload){.length = 1, .hash = -1, .kind = 1};
        p->data[0] = (char)c;
        p->data[1] = 0;
        latin1[c].mi = (MemInfo){.refcount = ABI_STR_IMMORTAL, .data = p,
                                 .size = (int64_t)sizeof latin1[c].payload};
    }
}

/* ---- constants ----
 * A string constant of compiled code is made here, once per process for each text, and never
 * freed: values made from it (a dict key, a list item, a result) may outlive the compiled module
 * that named it. A module keeps the pointer in a slot of its own, filled on first use. */

typedef struct Interned {
    MemInfo *mi;
    struct Interned *next;
} Interned;

static Interned *interned[1024];
static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;

MemInfo *pj_str_intern(const void *data, int64_t length, int32_t kind)
{
    size_t nbytes = (size_t)length * (size_t)kind;
    uint64_t h = 1469598103934665603u;   /* FNV-1a of the code points' bytes */
    for (size_t i = 0; i < nbytes; i++)
        h = (h ^ ((const unsigned char *)data)[i]) * 1099511628211u;
    Interned **bucket = &interned[h % (sizeof interned / sizeof *interned)];
    pthread_mutex_lock(&interned_lock);
    Interned *e = *bucket;
    while (e && !(payload(e->mi)->length == length && payload(e->mi)->kind == kind &&
                  memcmp(payload(e->mi)->data, data, nbytes) == 0))
        e = e->next;
    if (!e && (e = malloc(sizeof *e)) && (e->mi = str_new(length, kind))) {
        memcpy(payload(e->mi)->data, data, nbytes);
        e->mi->refcount = ABI_STR_IMMORTAL;
        e->next = *bucket;
        *bucket = e;
    } else if (e && !e->mi) {
        free(e);
        e = NULL;
    }
    pthread_mutex_unlock(&interned_lock);
    return e ? e->mi : NULL;
}

static MemInfo *latin1_char(uint32_t c)
{
    pthread_once(&latin1_once, latin1_init);
    pj_nrt_incref(&latin1[c].mi);   /* as for any string handed out (never reaching zero) */
    return &latin1[c].mi;
}

MemInfo *pj_str_slice(MemInfo *s, int64_t start, int64_t step, int64_t n)
{
    StrPayload *p = payload(s);
    if (n == 1 && read_cp(p, start) < 256)
        return latin1_char(read_cp(p, start));
    if (n == p->length && step == 1) {
        pj_nrt_incref(s);   /* strings are immutable: the whole one is itself */
        return s;
    }
    MemInfo *mi = str_new(n, kind_for(max_cp(p, start, step, n)));
    if (!mi)
        return NULL;
    StrPayload *q = payload(mi);
    if (q->kind == p->kind && step == 1)
        memcpy(q->data, p->data + start * p->kind, (size_t)(n * p->kind));
    else
        for (int64_t i = 0; i < n; i++)
            write_cp(q, i, read_cp(p, start + i * step));
    return mi;
}

int64_t pj_str_char(MemInfo *s, int64_t i)
{
    return read_cp(payload(s), i);
}

MemInfo *pj_str_chr(int64_t cp)
{
    if (cp < 256)
        return latin1_char((uint32_t)cp);
    MemInfo *mi = str_new(1, kind_for((uint32_t)cp));
    if (mi)
        write_cp(payload(mi), 0, (uint32_t)cp);
    return mi;
}

/* An element of a NumPy unicode array ('U<n>': n UCS4 code points, NUL padded) as a str, its
 * trailing NULs dropped, as NumPy reads it. */
MemInfo *pj_str_from_ucs4(const uint32_t *p, int64_t n)
{
    while (n > 0 && p[n - 1] == 0)
        n--;
    if (n == 1)
        return pj_str_chr(p[0]);
    uint32_t maxchar = 0;
    for (int64_t i = 0; i < n; i++)
        maxchar = p[i] > maxchar ? p[i] : maxchar;
    MemInfo *mi = str_new(n, kind_for(maxchar));
    if (mi)
        for (int64_t i = 0; i < n; i++)
            write_cp(payload(mi), i, p[i]);
    return mi;
}

/* s stored into an element of a unicode array: its first n code points, NUL padded. */
void pj_str_to_ucs4(MemInfo *s, uint32_t *p, int64_t n)
{
    const StrPayload *q = payload(s);
    for (int64_t i = 0; i < n; i++)
        p[i] = i < q->length ? read_cp(q, i) : 0;
}

/* Copies p's code points into q from index at (q's kind is at least p's). */
static void copy_into(StrPayload *q, int64_t at, const StrPayload *p)
{
    if (q->kind == p->kind)
        memcpy(q->data + at * q->kind, p->data, (size_t)(p->length * p->kind));
    else
        for (int64_t i = 0; i < p->length; i++)
            write_cp(q, at + i, read_cp(p, i));
}

MemInfo *pj_str_concat(MemInfo *a, MemInfo *b)
{
    StrPayload *p = payload(a), *q = payload(b);
    if (q->length == 0 || p->length == 0) {
        MemInfo *whole = q->length == 0 ? a : b;
        pj_nrt_incref(whole);
        return whole;
    }
    MemInfo *mi = str_new(p->length + q->length, p->kind > q->kind ? p->kind : q->kind);
    if (!mi)
        return NULL;
    copy_into(payload(mi), 0, p);
    copy_into(payload(mi), p->length, q);
    return mi;
}

MemInfo *pj_str_repeat(MemInfo *s, int64_t n)
{
    StrPayload *p = payload(s);
    if (n < 0)
        n = 0;
    if (p->length && n > INT64_MAX / 4 / p->length)
        return NULL;
    MemInfo *mi = str_new(p->length * n, p->kind);
    for (int64_t k = 0; mi && k < n; k++)
        copy_into(payload(mi), k * p->length, p);
    return mi;
}

int32_t pj_str_compare(MemInfo *a, MemInfo *b)
{
    StrPayload *p = payload(a), *q = payload(b);
    int64_t n = p->length < q->length ? p->length : q->length;
    if (p->kind == 1 && q->kind == 1) {
        int c = memcmp(p->data, q->data, (size_t)n);
        if (c)
            return c < 0 ? -1 : 1;
    } else {
        for (int64_t i = 0; i < n; i++) {
            uint32_t x = read_cp(p, i), y = read_cp(q, i);
            if (x != y)
                return x < y ? -1 : 1;
        }
    }
    return p->length < q->length ? -1 : p->length > q->length;
}

int32_t pj_str_equal(MemInfo *a, MemInfo *b)
{
    StrPayload *p = payload(a), *q = payload(b);
    if (a == b)
        return 1;
    if (p->length != q->length || p->kind != q->kind ||
        (p->hash != -1 && q->hash != -1 && p->hash != q->hash))
        return 0;
    return memcmp(p->data, q->data, (size_t)(p->length * p->kind)) == 0;
}

int64_t pj_str_hash(MemInfo *s)
{
    StrPayload *p = payload(s);
    if (p->hash == -1)   /* racing threads store the same value */
        p->hash = _Py_HashBytes(p->data, (Py_ssize_t)(p->length * p->kind));
    return p->hash;
}

static int compare_items(const void *a, const void *b)
{
    return pj_str_compare(*(MemInfo *const *)a, *(MemInfo *const *)b);
}

/* Equal strings cannot be told apart, so an unstable sort gives what list.sort() gives. */
void pj_str_sort(MemInfo **items, int64_t n)
{
    qsort(items, (size_t)n, sizeof *items, compare_items);
}

/* ---- searching ---- */

/* Whether sub occurs in p at i (i + sub's length within p). */
static bool matches_at(const StrPayload *p, int64_t i, const StrPayload *sub)
{
    if (p->kind == sub->kind)
        return memcmp(p->data + i * p->kind, sub->data, (size_t)(sub->length * sub->kind)) == 0;
    for (int64_t k = 0; k < sub->length; k++)
        if (read_cp(p, i + k) != read_cp(sub, k))
            return false;
    return true;
}

/* start and end as Python's slice rules clip them to [0, len]. */
static void clip(int64_t len, int64_t *start, int64_t *end)
{
    if (*end > len)
        *end = len;
    else if (*end < 0 && (*end += len) < 0)
        *end = 0;
    if (*start < 0 && (*start += len) < 0)
        *start = 0;
}

int64_t pj_str_find(MemInfo *s, MemInfo *sub, int64_t start, int64_t end, int32_t how)
{
    StrPayload *p = payload(s), *q = payload(sub);
    clip(p->length, &start, &end);
    int64_t m = q->length, last = end - m;   /* the last index sub may start at */
    if (how == 3 || how == 4)
        return start <= last && matches_at(p, how == 3 ? start : last, q);
    if (start > last)
        return how == 2 ? 0 : -1;
    if (m == 0)
        return how == 2 ? last - start + 1 : how == 1 ? last : start;
    if (q->kind > p->kind)   /* sub holds a code point s cannot */
        return how == 2 ? 0 : -1;
    if (how == 1) {
        for (int64_t i = last; i >= start; i--)
            if (matches_at(p, i, q))
                return i;
        return -1;
    }
    int64_t count = 0;
    uint32_t first = read_cp(q, 0);
    for (int64_t i = start; i <= last; i++) {
        if (read_cp(p, i) != first || !matches_at(p, i, q))
            continue;
        if (how == 0)
            return i;
        count++;
        i += m - 1;   /* counted occurrences do not overlap */
    }
    return how == 2 ? count : -1;
}

/* ---- numbers from strings ---- */

/* The ASCII form of s without surrounding whitespace, each decimal digit (any script's) as
 * '0'..'9', into buf (room for n + 1 bytes); false when another non-ASCII code point is in it. */
static bool ascii_number(const StrPayload *p, char *buf, int64_t *n)
{
    int64_t i = 0, j = p->length, k = 0;
    while (i < j && is_space(read_cp(p, i)))
        i++;
    while (j > i && is_space(read_cp(p, j - 1)))
        j--;
    for (; i < j; i++) {
        uint32_t c = read_cp(p, i);
        int d = c < 0x80 ? -1 : Py_UNICODE_TODECIMAL(c);
        if (c >= 0x80 && d < 0)
            return false;
        buf[k++] = d >= 0 ? (char)('0' + d) : (char)c;
    }
    buf[k] = 0;
    *n = k;
    return true;
}

/* Drops the underscores of PEP 515 (one between two digits) from buf; false if one is misplaced. */
static bool drop_underscores(char *buf)
{
    char *o = buf;
    for (char *p = buf; *p; p++) {
        if (*p != '_') {
            *o++ = *p;
            continue;
        }
        if (p == buf || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]))
            return false;
    }
    *o = 0;
    return true;
}

int32_t pj_str_to_int(MemInfo *s, int64_t *out)
{
    StrPayload *p = payload(s);
    char small[64], *buf = p->length < 64 ? small : malloc((size_t)p->length + 1);
    int64_t n;
    int32_t rc = -1;
    if (buf && ascii_number(p, buf, &n) && drop_underscores(buf)) {
        const char *d = buf + (buf[0] == '-' || buf[0] == '+');
        uint64_t v = 0, limit = (uint64_t)INT64_MAX + (buf[0] == '-');
        rc = *d ? 0 : -1;
        for (; *d && rc == 0; d++) {
            if (!isdigit((unsigned char)*d))
                rc = -1;
            else if (v > (limit - (uint64_t)(*d - '0')) / 10)
                rc = -2;
            else
                v = v * 10 + (uint64_t)(*d - '0');
        }
        *out = buf[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
    }
    if (buf != small)
        free(buf);
    return rc;
}

int32_t pj_str_to_float(MemInfo *s, double *out)
{
    StrPayload *p = payload(s);
    char small[64], *buf = p->length < 64 ? small : malloc((size_t)p->length + 1);
    int64_t n;
    int32_t rc = -1;
    if (buf && ascii_number(p, buf, &n) && drop_underscores(buf)) {
        const char *d = buf + (buf[0] == '-' || buf[0] == '+');
        bool special = strcasecmp(d, "inf") == 0 || strcasecmp(d, "infinity") == 0 ||
                       strcasecmp(d, "nan") == 0;
        char *end;
        /* strtod also reads hex and "infinityx": only decimal numbers and the special words */
        if ((special || (*d && strspn(d, "0123456789.eE+-") == strlen(d))) &&
            (*out = strtod(buf, &end), end == buf + strlen(buf)))
            rc = 0;
    }
    if (buf != small)
        free(buf);
    return rc;
}

/* ---- making strings from others ---- */

static MemInfo *str_from_ascii(const char *s, size_t n)
{
    MemInfo *mi = str_new((int64_t)n, 1);
    if (mi)
        memcpy(payload(mi)->data, s, n);
    return mi;
}

MemInfo *pj_str_from_int(int64_t v)
{
    char buf[32];
    return str_from_ascii(buf, (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v));
}

MemInfo *pj_str_from_uint(uint64_t v)
{
    char buf[32];
    return str_from_ascii(buf, (size_t)snprintf(buf, sizeof buf, "%llu", (unsigned long long)v));
}

MemInfo *pj_str_from_float(double v)
{
    char buf[64];
    rt_float_repr(v, true, buf, sizeof buf);
    return str_from_ascii(buf, strlen(buf));
}

MemInfo *pj_str_join(MemInfo *sep, MemInfo *const *items, int64_t n)
{
    StrPayload *s = payload(sep);
    int64_t len = n > 0 ? (n - 1) * s->length : 0;
    int32_t kind = n > 1 ? s->kind : 1;
    for (int64_t i = 0; i < n; i++) {
        StrPayload *p = payload(items[i]);
        len += p->length;
        kind = p->kind > kind ? p->kind : kind;
    }
    MemInfo *mi = str_new(len, kind);
    if (!mi)
        return NULL;
    StrPayload *q = payload(mi);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) {
            copy_into(q, at, s);
            at += s->length;
        }
        copy_into(q, at, payload(items[i]));
        at += payload(items[i])->length;
    }
    return mi;
}

/* sep.join(s) for a string s: its characters with sep between them (the kind is s's, or sep's
 * when wider and used, so the result is as narrow as CPython's). */
MemInfo *pj_str_join_chars(MemInfo *sep, MemInfo *s)
{
    StrPayload *p = payload(s), *q = payload(sep);
    int64_t n = p->length;
    int32_t kind = n > 1 && q->kind > p->kind ? q->kind : p->kind;
    MemInfo *mi = str_new(n > 0 ? n + (n - 1) * q->length : 0, n > 0 ? kind : 1);
    if (!mi)
        return NULL;
    StrPayload *out = payload(mi);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) {
            copy_into(out, at, q);
            at += q->length;
        }
        write_cp(out, at++, read_cp(p, i));
    }
    return mi;
}

/* Appends the string s[start:stop] to the list(str) list; -1 when out of memory. */
static int append_piece(MemInfo *list, MemInfo *s, int64_t start, int64_t stop)
{
    ListPayload *l = (ListPayload *)list->data;
    if (pj_list_reserve(list, l->len + 1) < 0)
        return -1;
    MemInfo *piece = pj_str_slice(s, start, 1, stop - start);
    if (!piece)
        return -1;
    ((MemInfo **)l->items)[l->len++] = piece;
    return 0;
}

/* s.split(): runs of whitespace separate, none at the ends; at most maxsplit splits (< 0: all). */
static int split_whitespace(MemInfo *list, MemInfo *s, int64_t maxsplit)
{
    StrPayload *p = payload(s);
    int64_t i = 0, n = p->length;
    for (;;) {
        while (i < n && is_space(read_cp(p, i)))
            i++;
        if (i == n)
            return 0;
        int64_t j = i;
        if (maxsplit-- == 0)   /* the rest, its trailing whitespace kept */
            return append_piece(list, s, i, n);
        while (j < n && !is_space(read_cp(p, j)))
            j++;
        if (append_piece(list, s, i, j) < 0)
            return -1;
        i = j;
    }
}

static int split_sep(MemInfo *list, MemInfo *s, MemInfo *sep, int64_t maxsplit)
{
    int64_t n = payload(s)->length, m = payload(sep)->length, i = 0;
    while (maxsplit-- != 0) {
        int64_t at = pj_str_find(s, sep, i, n, 0);
        if (at < 0)
            break;
        if (append_piece(list, s, i, at) < 0)
            return -1;
        i = at + m;
    }
    return append_piece(list, s, i, n);
}

MemInfo *pj_str_split(MemInfo *s, MemInfo *sep, int64_t maxsplit)
{
    static const int32_t refs[1] = {0};
    MemInfo *list = pj_list_new((int64_t)sizeof(MemInfo *), 0, refs, 1);
    if (!list)
        return NULL;
    int rc = sep ? split_sep(list, s, sep, maxsplit) : split_whitespace(list, s, maxsplit);
    if (rc < 0) {
        pj_nrt_decref(list);
        return NULL;
    }
    return list;
}

/* Whether c is one of chars' code points (chars NULL: whitespace). */
static bool strips(const StrPayload *chars, uint32_t c)
{
    if (!chars)
        return is_space(c);
    for (int64_t k = 0; k < chars->length; k++)
        if (read_cp(chars, k) == c)
            return true;
    return false;
}

MemInfo *pj_str_strip(MemInfo *s, MemInfo *chars, int32_t sides)
{
    StrPayload *p = payload(s), *cp = chars ? payload(chars) : NULL;
    int64_t i = 0, j = p->length;
    while ((sides & 1) && i < j && strips(cp, read_cp(p, i)))
        i++;
    while ((sides & 2) && j > i && strips(cp, read_cp(p, j - 1)))
        j--;
    return pj_str_slice(s, i, 1, j - i);
}

/* CPython's full case mappings (one code point may become up to three: 'ß'.upper() is 'SS') and
 * character properties, exported by libpython in 3.11 and 3.12; plain table lookups. */
int _PyUnicode_ToUpperFull(Py_UCS4 ch, Py_UCS4 *res);
int _PyUnicode_ToLowerFull(Py_UCS4 ch, Py_UCS4 *res);
int _PyUnicode_ToTitleFull(Py_UCS4 ch, Py_UCS4 *res);
int _PyUnicode_ToFoldedFull(Py_UCS4 ch, Py_UCS4 *res);
int _PyUnicode_IsCased(Py_UCS4 ch);
int _PyUnicode_IsCaseIgnorable(Py_UCS4 ch);

enum { CASE_LOWER, CASE_UPPER, CASE_CAPITALIZE, CASE_TITLE, CASE_SWAPCASE, CASE_CASEFOLD };

/* Whether the capital sigma at index i ends a word, lowering to 'ς' rather than 'σ' (CPython's
 * rule): a cased code point comes before it and none after, case-ignorable ones (apostrophes,
 * combining marks) skipped both ways. */
static bool final_sigma(StrPayload *p, int64_t i)
{
    int64_t j = i - 1;
    while (j >= 0 && _PyUnicode_IsCaseIgnorable(read_cp(p, j)))
        j--;
    if (j < 0 || !_PyUnicode_IsCased(read_cp(p, j)))
        return false;
    j = i + 1;
    while (j < p->length && _PyUnicode_IsCaseIgnorable(read_cp(p, j)))
        j++;
    return j == p->length || !_PyUnicode_IsCased(read_cp(p, j));
}

static int to_lower(StrPayload *p, int64_t i, uint32_t c, Py_UCS4 *mapped)
{
    if (c == 0x3a3) {
        mapped[0] = final_sigma(p, i) ? 0x3c2 : 0x3c3;
        return 1;
    }
    return _PyUnicode_ToLowerFull(c, mapped);
}

/* The code point at index i mapped by `how` (a CASE_*): up to three code points in mapped. */
static int map_case(StrPayload *p, int64_t i, int32_t how, Py_UCS4 *mapped)
{
    uint32_t c = read_cp(p, i);
    switch (how) {
    case CASE_UPPER:
        return _PyUnicode_ToUpperFull(c, mapped);
    case CASE_CAPITALIZE:
        return i == 0 ? _PyUnicode_ToTitleFull(c, mapped) : to_lower(p, i, c, mapped);
    case CASE_TITLE:
        return i > 0 && _PyUnicode_IsCased(read_cp(p, i - 1)) ? to_lower(p, i, c, mapped)
                                                               : _PyUnicode_ToTitleFull(c, mapped);
    case CASE_SWAPCASE:
        if (Py_UNICODE_ISUPPER(c))
            return to_lower(p, i, c, mapped);
        if (Py_UNICODE_ISLOWER(c))
            return _PyUnicode_ToUpperFull(c, mapped);
        mapped[0] = c;
        return 1;
    case CASE_CASEFOLD:
        return _PyUnicode_ToFoldedFull(c, mapped);
    default:
        return to_lower(p, i, c, mapped);
    }
}

static bool ascii_letter(uint8_t c)
{
    return (c | 32) >= 'a' && (c | 32) <= 'z';
}

/* pj_str_case of an ASCII string: one code point each, no table. */
static MemInfo *ascii_case(StrPayload *p, int32_t how)
{
    MemInfo *mi = str_new(p->length, 1);
    if (!mi)
        return NULL;
    const uint8_t *from = (const uint8_t *)p->data;
    uint8_t *to = (uint8_t *)payload(mi)->data;
    for (int64_t i = 0; i < p->length; i++) {
        uint8_t c = from[i];
        bool up = how == CASE_UPPER || (how == CASE_CAPITALIZE && i == 0) ||
                  (how == CASE_TITLE && (i == 0 || !ascii_letter(from[i - 1]))) ||
                  (how == CASE_SWAPCASE && c >= 'a' && c <= 'z');
        if (up && c >= 'a' && c <= 'z')
            c -= 32;
        else if (!up && c >= 'A' && c <= 'Z')
            c += 32;
        to[i] = c;
    }
    return mi;
}

MemInfo *pj_str_case(MemInfo *s, int32_t how)
{
    StrPayload *p = payload(s);
    if (p->kind == 1 && max_cp(p, 0, 1, p->length) < 0x80)
        return ascii_case(p, how);
    Py_UCS4 mapped[3];
    int64_t len = 0;
    uint32_t maxc = 0;
    for (int64_t i = 0; i < p->length; i++) {
        int n = map_case(p, i, how, mapped);
        for (int k = 0; k < n; k++)
            maxc = mapped[k] > maxc ? mapped[k] : maxc;
        len += n;
    }
    MemInfo *mi = str_new(len, kind_for(maxc));
    if (!mi)
        return NULL;
    int64_t at = 0;
    for (int64_t i = 0; i < p->length; i++) {
        int n = map_case(p, i, how, mapped);
        for (int k = 0; k < n; k++)
            write_cp(payload(mi), at++, mapped[k]);
    }
    return mi;
}

/* mi itself, or (its reference passed on) a copy of the narrowest kind when replacing took out
 * every wide code point: CPython's strings always have the narrowest. */
static MemInfo *narrowest(MemInfo *mi)
{
    StrPayload *q = payload(mi);
    if (q->kind == 1 || kind_for(max_cp(q, 0, 1, q->length)) == q->kind)
        return mi;
    MemInfo *copy = str_new(q->length, kind_for(max_cp(q, 0, 1, q->length)));
    for (int64_t i = 0; copy && i < q->length; i++)
        write_cp(payload(copy), i, read_cp(q, i));
    pj_nrt_decref(mi);
    return copy;
}

MemInfo *pj_str_replace(MemInfo *s, MemInfo *old, MemInfo *new_, int64_t count)
{
    StrPayload *p = payload(s), *o = payload(old), *r = payload(new_);
    int64_t found = pj_str_find(s, old, 0, p->length, 2);
    if (o->length == 0)
        found = p->length + 1;   /* between every two code points and at both ends */
    if (count >= 0 && found > count)
        found = count;
    if (found == 0) {
        pj_nrt_incref(s);
        return s;
    }
    int32_t kind = p->kind > r->kind ? p->kind : r->kind;
    MemInfo *mi = str_new(p->length + found * (r->length - o->length), kind);
    if (!mi)
        return NULL;
    StrPayload *q = payload(mi);
    int64_t i = 0, at = 0;
    for (int64_t k = 0; k < found; k++) {
        int64_t next = o->length == 0 ? i + (k > 0) : pj_str_find(s, old, i, p->length, 0);
        for (; i < next; i++)
            write_cp(q, at++, read_cp(p, i));
        copy_into(q, at, r);
        at += r->length;
        i += o->length;
    }
    for (; i < p->length; i++)
        write_cp(q, at++, read_cp(p, i));
    return narrowest(mi);
}

static bool char_is(uint32_t c, int32_t what)
{
    switch (what) {
    case 0: return Py_UNICODE_ISDIGIT(c);
    case 1: return Py_UNICODE_ISALPHA(c);
    case 2: return Py_UNICODE_ISSPACE(c);
    case 3: return Py_UNICODE_ISALNUM(c);
    case 6: return Py_UNICODE_ISDECIMAL(c);
    default: return Py_UNICODE_ISNUMERIC(c);
    }
}

/* str.isidentifier: a first code point that may start a name (XID_Start or '_') and the others
 * that may continue one, from CPython's Unicode database, as its own isidentifier reads it (3.13
 * made those lookups internal: there, letters, '_' and decimal digits after the first). */
#if PY_VERSION_HEX >= 0x030D0000
static int _PyUnicode_IsXidStart(Py_UCS4 c)
{
    return Py_UNICODE_ISALPHA(c);
}

static int _PyUnicode_IsXidContinue(Py_UCS4 c)
{
    return c == '_' || Py_UNICODE_ISALPHA(c) || Py_UNICODE_ISDECIMAL(c);
}
#endif

static int32_t is_identifier(const StrPayload *p)
{
    for (int64_t i = 0; i < p->length; i++) {
        uint32_t c = read_cp(p, i);
        if (i == 0 ? !(c == '_' || _PyUnicode_IsXidStart(c)) : !_PyUnicode_IsXidContinue(c))
            return 0;
    }
    return p->length > 0;
}

int32_t pj_str_is(MemInfo *s, int32_t what)
{
    StrPayload *p = payload(s);
    if (what == 8)
        return is_identifier(p);
    if (what == 4 || what == 5) {   /* cased: at least one cased code point, none of the other case */
        bool cased = false;
        for (int64_t i = 0; i < p->length; i++) {
            uint32_t c = read_cp(p, i);
            if (what == 4 ? (Py_UNICODE_ISUPPER(c) || Py_UNICODE_ISTITLE(c)) : (Py_UNICODE_ISLOWER(c) || Py_UNICODE_ISTITLE(c)))
                return 0;
            cased |= what == 4 ? Py_UNICODE_ISLOWER(c) : Py_UNICODE_ISUPPER(c);
        }
        return cased;
    }
    for (int64_t i = 0; i < p->length; i++)
        if (!char_is(read_cp(p, i), what))
            return 0;
    return p->length > 0;
}

/* A new string of n code points (the narrowest kind that holds them). */
static MemInfo *str_from_ucs4(const uint32_t *cps, int64_t n)
{
    uint32_t maxc = 0;
    for (int64_t i = 0; i < n; i++)
        maxc = cps[i] > maxc ? cps[i] : maxc;
    MemInfo *mi = str_new(n, kind_for(maxc));
    for (int64_t i = 0; mi && i < n; i++)
        write_cp(payload(mi), i, cps[i]);
    return mi;
}

/* Appends the escape of c as repr writes it: \xhh, \uhhhh or \Uhhhhhhhh; the new count. */
static int64_t escape_hex(uint32_t *out, int64_t n, uint32_t c)
{
    static const char hex[] = "0123456789abcdef";
    int digits = c <= 0xff ? 2 : c <= 0xffff ? 4 : 8;
    out[n++] = '\\';
    out[n++] = digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
    for (int k = digits - 1; k >= 0; k--)
        out[n++] = (uint32_t)hex[(c >> (4 * k)) & 0xf];
    return n;
}

MemInfo *pj_str_repr(MemInfo *s)
{
    StrPayload *p = payload(s);
    bool single = false, dbl = false;
    for (int64_t i = 0; i < p->length; i++) {
        uint32_t c = read_cp(p, i);
        single |= c == '\'';
        dbl |= c == '"';
    }
    uint32_t quote = single && !dbl ? '"' : '\'';
    uint32_t *out = malloc(sizeof *out * (size_t)(10 * p->length + 2));
    if (!out)
        return NULL;
    int64_t n = 0;
    out[n++] = quote;
    for (int64_t i = 0; i < p->length; i++) {
        uint32_t c = read_cp(p, i);
        if (c == quote || c == '\\') {
            out[n++] = '\\';
            out[n++] = c;
        } else if (c == '\t' || c == '\n' || c == '\r') {
            out[n++] = '\\';
            out[n++] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
        } else if (c < ' ' || c == 0x7f || (c > 0x7f && !Py_UNICODE_ISPRINTABLE(c))) {
            n = escape_hex(out, n, c);
        } else {
            out[n++] = c;
        }
    }
    out[n++] = quote;
    MemInfo *mi = str_from_ucs4(out, n);
    free(out);
    return mi;
}

/* ---- output ---- */

static size_t utf8_encode(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xc0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xe0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

void pj_str_print(MemInfo *s, int32_t quoted)
{
    MemInfo *shown = quoted ? pj_str_repr(s) : s;
    if (!shown)
        return;   /* out of memory: nothing printed */
    StrPayload *p = payload(shown);
    char buf[4];
    for (int64_t i = 0; i < p->length; i++)
        fwrite(buf, 1, utf8_encode(read_cp(p, i), buf), stdout);
    if (quoted)
        pj_nrt_decref(shown);
}

/* ---- to and from Python ---- */

int rt_unbox_str(PyObject *obj, MemInfo **out)
{
    int64_t n = PyUnicode_GET_LENGTH(obj);
    int32_t kind = (int32_t)PyUnicode_KIND(obj);
    MemInfo *mi = str_new(n, kind);
    if (!mi) {
        PyErr_NoMemory();
        return -1;
    }
    StrPayload *p = payload(mi);
    memcpy(p->data, PyUnicode_DATA(obj), (size_t)(n * kind));
    p->hash = ((PyASCIIObject *)obj)->hash;   /* -1 when Python has not computed it either */
    *out = mi;
    return 0;
}

PyObject *rt_box_str(MemInfo *mi)
{
    StrPayload *p = payload(mi);
    PyObject *s = PyUnicode_FromKindAndData(p->kind, p->data, (Py_ssize_t)p->length);
    pj_nrt_decref(mi);   /* the reference the value carried */
    return s;
}
