/* dict.c: the hash table behind dicts and sets (abi.h's DictPayload), and keys' hashes.
 *
 * The table is CPython's compact dict: entries in insertion order, and an index of open
 * addressing slots probed as CPython probes (perturbed by the hash's high bits). Compiled code
 * probes, inserts and deletes in place; it calls here to make a table, to grow it (rehashed from
 * the stored hashes, so no key is compared here), to copy and to clear it. The functions that
 * compiled code calls are plain C and run without the GIL.
 *
 * Hashes are CPython's, so a key hashes the same in compiled code, here and in Python: ints
 * modulo 2**61 - 1 with their sign, floats by _Py_HashDouble's algorithm (an integral float as
 * its int), tuples by CPython 3.11's xxHash-based combination. A NaN hashes to 0 (CPython hashes
 * a NaN by its object's address; compiled floats have none). dict_key_hash and dict_lookup are
 * what runtime/typed_dict.c uses from Python; lower_dict.c emits the same in LLVM. */
#include "runtime/runtime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HASH_BITS 61
#define HASH_MOD (((uint64_t)1 << HASH_BITS) - 1)
#define MIN_SLOTS 8

DictPayload *rt_dict_payload(MemInfo *mi)
{
    return (DictPayload *)mi->data;
}

static char *entry_at(DictPayload *p, int64_t ix)
{
    return p->entries + ix * p->entrysize;
}

static int64_t usable_of(int64_t slots)
{
    return slots * 2 / 3;   /* CPython's load factor */
}

static void release_entry(DictPayload *p, char *e)
{
    for (int k = 0; k < p->nrefs; k++)
        pj_nrt_decref(*(MemInfo **)(e + p->refs[k]));
}

static void retain_entry(DictPayload *p, char *e)
{
    for (int k = 0; k < p->nrefs; k++)
        pj_nrt_incref(*(MemInfo **)(e + p->refs[k]));
}

static void release_all(DictPayload *p)
{
    for (int64_t i = 0; i < p->nentries; i++)
        if (*(int64_t *)entry_at(p, i) != ABI_DICT_DELETED)
            release_entry(p, entry_at(p, i));
}

static void dict_dtor(MemInfo *mi)
{
    DictPayload *p = rt_dict_payload(mi);
    release_all(p);
    free(p->index);
    free(p->entries);
}

/* The first empty slot on hash h's probe path (the table has one: it is never full). */
static int64_t empty_slot(DictPayload *p, int64_t h)
{
    uint64_t perturb = (uint64_t)h, i = (uint64_t)h & (uint64_t)p->mask;
    while (p->index[i] != ABI_DICT_EMPTY) {
        perturb >>= 5;
        i = (i * 5 + perturb + 1) & (uint64_t)p->mask;
    }
    return (int64_t)i;
}

/* The table rebuilt with slots index slots, the live entries compacted in their order. */
static int rehash(DictPayload *p, int64_t slots)
{
    int64_t usable = usable_of(slots);
    int64_t *index = malloc(sizeof(int64_t) * (size_t)slots);
    char *entries = malloc((size_t)(p->entrysize * usable) + 1);
    if (!index || !entries) {
        free(index);
        free(entries);
        return -1;
    }
    memset(index, 0xff, sizeof(int64_t) * (size_t)slots);   /* every slot ABI_DICT_EMPTY */
    int64_t n = 0;
    for (int64_t i = 0; i < p->nentries; i++) {
        char *e = entry_at(p, i);
        if (*(int64_t *)e != ABI_DICT_DELETED)
            memcpy(entries + p->entrysize * n++, e, (size_t)p->entrysize);
    }
    free(p->index);
    free(p->entries);
    p->index = index;
    p->entries = entries;
    p->mask = slots - 1;
    p->usable = usable;
    p->nentries = n;
    for (int64_t i = 0; i < n; i++)
        index[empty_slot(p, *(int64_t *)entry_at(p, i))] = i;
    return 0;
}

/* The index size for room for n entries: a power of two whose two thirds hold them. */
static int64_t slots_for(int64_t n)
{
    int64_t slots = MIN_SLOTS;
    while (usable_of(slots) < n && slots < ((int64_t)1 << 60))
        slots <<= 1;
    return slots;
}

MemInfo *pj_dict_new(int64_t entrysize, int32_t valoff, const int32_t *refs, int32_t nrefs, int64_t n)
{
    if (entrysize < 8 || n < 0 || nrefs < 0 || nrefs > ABI_DICT_MAX_REFS)
        return NULL;
    MemInfo *mi = pj_nrt_alloc((int64_t)sizeof(DictPayload));
    if (!mi)
        return NULL;
    DictPayload *p = rt_dict_payload(mi);
    memset(p, 0, sizeof *p);
    p->entrysize = entrysize;
    p->valoff = valoff;
    p->nrefs = nrefs;
    if (nrefs)
        memcpy(p->refs, refs, sizeof(int32_t) * (size_t)nrefs);
    mi->dtor = dict_dtor;
    if (rehash(p, slots_for(n)) < 0) {
        pj_nrt_decref(mi);
        return NULL;
    }
    return mi;
}

int64_t pj_dict_grow_slot(MemInfo *mi, int64_t h)
{
    DictPayload *p = rt_dict_payload(mi);
    if (p->nentries >= p->usable && rehash(p, slots_for(p->used * 3 + 1)) < 0)   /* CPython's growth */
        return -1;
    return empty_slot(p, h);
}

MemInfo *pj_dict_copy(MemInfo *mi)
{
    DictPayload *p = rt_dict_payload(mi);
    MemInfo *out = pj_dict_new(p->entrysize, p->valoff, p->refs, p->nrefs, p->used);
    if (!out)
        return NULL;
    DictPayload *q = rt_dict_payload(out);
    for (int64_t i = 0; i < p->nentries; i++) {
        char *e = entry_at(p, i);
        if (*(int64_t *)e == ABI_DICT_DELETED)
            continue;
        memcpy(entry_at(q, q->nentries), e, (size_t)p->entrysize);
        retain_entry(q, e);
        q->index[empty_slot(q, *(int64_t *)e)] = q->nentries++;
        q->used++;
    }
    return out;
}

int64_t pj_dict_slot_of(MemInfo *mi, int64_t ix)
{
    DictPayload *p = rt_dict_payload(mi);
    int64_t h = *(int64_t *)entry_at(p, ix);
    uint64_t perturb = (uint64_t)h, i = (uint64_t)h & (uint64_t)p->mask;
    while (p->index[i] != ix) {   /* on h's probe path: inserting put it there */
        perturb >>= 5;
        i = (i * 5 + perturb + 1) & (uint64_t)p->mask;
    }
    return (int64_t)i;
}

void pj_dict_clear(MemInfo *mi)
{
    DictPayload *p = rt_dict_payload(mi);
    release_all(p);
    p->nentries = p->used = 0;
    memset(p->index, 0xff, sizeof(int64_t) * (size_t)(p->mask + 1));
}

/* ---- hashes ------------------------------------------------------------------------------ */

static int64_t hash_int(int64_t x)
{
    uint64_t a = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    int64_t h = (int64_t)(a % HASH_MOD);
    if (x < 0)
        h = -h;
    return h == -1 ? -2 : h;
}

int64_t pj_hash_double(double v)
{
    if (isnan(v))
        return 0;
    if (isinf(v))
        return v > 0 ? 314159 : -314159;
    int e;
    double m = frexp(v, &e);
    int sign = 1;
    if (m < 0) {
        sign = -1;
        m = -m;
    }
    uint64_t x = 0;
    while (m) {   /* 28 bits of the mantissa at a time, reduced modulo 2**61 - 1 */
        x = ((x << 28) & HASH_MOD) | x >> (HASH_BITS - 28);
        m *= 268435456.0;
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        x += y;
        if (x >= HASH_MOD)
            x -= HASH_MOD;
    }
    e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
    x = ((x << e) & HASH_MOD) | x >> (HASH_BITS - e);
    x = x * (uint64_t)(int64_t)sign;
    return (int64_t)x == -1 ? -2 : (int64_t)x;
}

/* CPython 3.11's tuplehash constants (xxHash's primes). */
#define XXPRIME_1 11400714785074694791ULL
#define XXPRIME_2 14029467366897019727ULL
#define XXPRIME_5 2870177450012600261ULL

int64_t rt_tuple_hash_step(int64_t acc, int64_t lane)
{
    uint64_t a = (uint64_t)acc + (uint64_t)lane * XXPRIME_2;
    a = (a << 31) | (a >> 33);
    return (int64_t)(a * XXPRIME_1);
}

int64_t rt_tuple_hash_end(int64_t acc, int64_t n)
{
    uint64_t a = (uint64_t)acc + ((uint64_t)n ^ (XXPRIME_5 ^ 3527539ULL));
    return (int64_t)a == -1 ? 1546275796 : (int64_t)a;
}

int64_t rt_tuple_hash_start(void)
{
    return (int64_t)XXPRIME_5;
}

int64_t dict_key_hash(Type *t, const void *at)
{
    switch (t->kind) {
    case TY_BOOL: return *(const uint8_t *)at != 0;
    case TY_INT8: return hash_int(*(const int8_t *)at);
    case TY_INT16: return hash_int(*(const int16_t *)at);
    case TY_INT32: return hash_int(*(const int32_t *)at);
    case TY_INT64: return hash_int(*(const int64_t *)at);
    case TY_UINT8: return *(const uint8_t *)at;
    case TY_UINT16: return *(const uint16_t *)at;
    case TY_UINT32: return *(const uint32_t *)at;
    case TY_UINT64: return (int64_t)(*(const uint64_t *)at % HASH_MOD);
    case TY_FLOAT32: return pj_hash_double(*(const float *)at);
    case TY_FLOAT64: return pj_hash_double(*(const double *)at);
    case TY_TUPLE: {
        int64_t acc = rt_tuple_hash_start();
        for (int i = 0; i < t->tuple.n; i++)
            acc = rt_tuple_hash_step(acc, dict_key_hash(t->tuple.items[i], (const char *)at +
                                                                            ty_tuple_offset(t, i)));
        return rt_tuple_hash_end(acc, t->tuple.n);
    }
    case TY_STR: return pj_str_hash(*(MemInfo *const *)at);   /* as lower_dict.c's hash_value */
    default:
        return 0;
    }
}

/* Python's == of two keys of type t: numbers by value (NaN unequal, -0.0 == 0.0). */
static bool keys_equal(Type *t, const void *a, const void *b)
{
    switch (t->kind) {
    case TY_FLOAT32: return *(const float *)a == *(const float *)b;
    case TY_FLOAT64: return *(const double *)a == *(const double *)b;
    case TY_TUPLE:
        for (int i = 0; i < t->tuple.n; i++) {
            int64_t off = ty_tuple_offset(t, i);
            if (!keys_equal(t->tuple.items[i], (const char *)a + off, (const char *)b + off))
                return false;
        }
        return true;
    case TY_STR: return pj_str_equal(*(MemInfo *const *)a, *(MemInfo *const *)b);
    default:
        return memcmp(a, b, (size_t)ty_mem_size(t)) == 0;
    }
}

int64_t dict_lookup(DictPayload *p, Type *key, const void *k, int64_t h, int64_t *slot)
{
    uint64_t perturb = (uint64_t)h, i = (uint64_t)h & (uint64_t)p->mask;
    for (;;) {
        int64_t ix = p->index[i];
        if (ix == ABI_DICT_EMPTY) {
            *slot = (int64_t)i;
            return -1;
        }
        char *e = ix >= 0 ? entry_at(p, ix) : NULL;
        if (e && *(int64_t *)e == h && keys_equal(key, e + 8, k)) {
            *slot = (int64_t)i;
            return ix;
        }
        perturb >>= 5;
        i = (i * 5 + perturb + 1) & (uint64_t)p->mask;
    }
}

char *dict_insert(MemInfo *mi, int64_t h, int64_t slot)
{
    DictPayload *p = rt_dict_payload(mi);
    if (p->nentries >= p->usable && (slot = pj_dict_grow_slot(mi, h)) < 0)
        return NULL;
    char *e = entry_at(p, p->nentries);
    *(int64_t *)e = h;
    p->index[slot] = p->nentries++;
    p->used++;
    return e;
}

void dict_delete(DictPayload *p, int64_t ix, int64_t slot)
{
    char *e = entry_at(p, ix);
    release_entry(p, e);
    *(int64_t *)e = ABI_DICT_DELETED;
    p->index[slot] = ABI_DICT_DUMMY;
    p->used--;
}

char *dict_entry(DictPayload *p, int64_t ix)
{
    return entry_at(p, ix);
}
