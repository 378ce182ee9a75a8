/* sort.c: np.sort, a.sort(), np.argsort, np.partition and np.argpartition in compiled code.
 *
 * Compiled code hands over `rows` rows of n contiguous elements (a C-contiguous buffer sorted
 * along its last axis) with the element type as an AbiSortKey. Every algorithm is written once
 * as a macro over an element type and a `less` expression and instantiated per type, so the
 * comparisons inline (no comparator callbacks): an introsort (median-of-three quicksort,
 * insertion sort below SMALL, heapsort past 2 log2 n levels) and an introselect for values, the
 * same two over (key, index) pairs for argpartition, and a bottom-up merge sort of pairs for
 * argsort (stable for every kind, a valid answer for each). Float NaNs are moved to the end
 * before sorting, so the sorts compare with plain `<` and NaNs end last, as in NumPy. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/abi.h"

enum { SMALL = 16 };   /* ranges this short are insertion-sorted */

static int64_t depth_limit(int64_t n)
{
    int64_t d = 0;
    for (; n > 1; n >>= 1)
        d += 2;
    return d;
}

/* ---- heapsort, introselect and introsort over E[0..n), ordered by LESS ----------------------------- */

#define DEFINE_SORTS(S, E, LESS)                                                                  \
    static void insertion_##S(E *a, int64_t n)                                                    \
    {                                                                                             \
        for (int64_t i = 1; i < n; i++) {                                                         \
            E v = a[i];                                                                           \
            int64_t j = i;                                                                        \
            for (; j > 0 && LESS(v, a[j - 1]); j--)                                               \
                a[j] = a[j - 1];                                                                  \
            a[j] = v;                                                                             \
        }                                                                                         \
    }                                                                                             \
                                                                                                  \
    static void sift_##S(E *a, int64_t root, int64_t n)                                           \
    {                                                                                             \
        E v = a[root];                                                                            \
        for (int64_t child; (child = 2 * root + 1) < n; root = child) {                           \
            if (child + 1 < n && LESS(a[child], a[child + 1]))                                    \
                child++;                                                                          \
            if (!LESS(v, a[child]))                                                               \
                break;                                                                            \
            a[root] = a[child];                                                                   \
        }                                                                                         \
        a[root] = v;                                                                              \
    }                                                                                             \
                                                                                                  \
    static void heapsort_##S(E *a, int64_t n)                                                     \
    {                                                                                             \
        for (int64_t i = n / 2 - 1; i >= 0; i--)                                                  \
            sift_##S(a, i, n);                                                                    \
        for (int64_t end = n - 1; end > 0; end--) {                                               \
            E v = a[0];                                                                           \
            a[0] = a[end];                                                                        \
            a[end] = v;                                                                           \
            sift_##S(a, 0, end);                                                                  \
        }                                                                                         \
    }                                                                                             \
                                                                                                  \
    /* Median-of-three partition of a[0..n) (n >= 3): returns p with a[..p] <= a[p] <= a[p+1..]; \
     * the scans stop on keys equal to the pivot, so ties split evenly. */                       \
    static int64_t partition_##S(E *a, int64_t n)                                                 \
    {                                                                                             \
        int64_t mid = (n - 1) >> 1, hi = n - 1, i = 0, j = hi - 1;                                \
        E t;                                                                                      \
        if (LESS(a[mid], a[0]))                                                                   \
            t = a[mid], a[mid] = a[0], a[0] = t;                                                  \
        if (LESS(a[hi], a[mid])) {                                                                \
            t = a[hi], a[hi] = a[mid], a[mid] = t;                                                \
            if (LESS(a[mid], a[0]))                                                               \
                t = a[mid], a[mid] = a[0], a[0] = t;                                              \
        }                                                                                         \
        E pivot = a[mid];                                                                         \
        a[mid] = a[hi - 1], a[hi - 1] = pivot;                                                    \
        for (;;) {                                                                                \
            while (LESS(a[++i], pivot))                                                           \
                ;                                                                                 \
            while (LESS(pivot, a[--j]))                                                           \
                ;                                                                                 \
            if (i >= j)                                                                           \
                break;                                                                            \
            t = a[i], a[i] = a[j], a[j] = t;                                                      \
        }                                                                                         \
        a[hi - 1] = a[i], a[i] = pivot;                                                           \
        return i;                                                                                 \
    }                                                                                             \
                                                                                                  \
    /* Reorders a[0..n) so that a[k] is what sorted order puts there, smaller ones before it and \
     * larger ones after. */                                                                      \
    static void select_##S(E *a, int64_t n, int64_t k)                                            \
    {                                                                                             \
        int64_t depth = depth_limit(n);                                                           \
        while (n > SMALL) {                                                                       \
            if (depth-- == 0) {                                                                   \
                heapsort_##S(a, n);                                                               \
                return;                                                                           \
            }                                                                                     \
            int64_t p = partition_##S(a, n);                                                      \
            if (k == p)                                                                           \
                return;                                                                           \
            if (k < p) {                                                                          \
                n = p;                                                                            \
            } else {                                                                              \
                a += p + 1, n -= p + 1, k -= p + 1;                                               \
            }                                                                                     \
        }                                                                                         \
        insertion_##S(a, n);                                                                      \
    }

/* Introsort of a[0..n), depth levels of quicksort left before heapsort. */
#define DEFINE_INTROSORT(S, E, LESS)                                                              \
    static void introsort_##S(E *a, int64_t n, int64_t depth)                                     \
    {                                                                                             \
        while (n > SMALL) {                                                                       \
            if (depth-- == 0) {                                                                   \
                heapsort_##S(a, n);                                                               \
                return;                                                                           \
            }                                                                                     \
            int64_t p = partition_##S(a, n);                                                      \
            if (p < n - 1 - p) {                                                                  \
                introsort_##S(a, p, depth);                                                       \
                a += p + 1, n -= p + 1;                                                           \
            } else {                                                                              \
                introsort_##S(a + p + 1, n - p - 1, depth);                                       \
                n = p;                                                                            \
            }                                                                                     \
        }                                                                                         \
        insertion_##S(a, n);                                                                      \
    }

/* ---- argsort: a stable bottom-up merge sort of (key, index) pairs ------------------------- */

/* Pairs travel with their keys, so merging reads memory in order (no a[idx[i]] lookups).
 * Sorts p[0..n), using tmp[0..n); returns where the sorted pairs are (p or tmp). */
#define DEFINE_MERGESORT(S, P, LESS)                                                                    \
    static P *mergesort_##S(P *p, P *tmp, int64_t n)                                              \
    {                                                                                             \
        for (int64_t s = 0; s < n; s += SMALL)                                                    \
            insertion_##S(p + s, n - s < SMALL ? n - s : SMALL);                                  \
        for (int64_t width = SMALL; width < n; width *= 2) {                                      \
            for (int64_t s = 0; s < n; s += 2 * width) {                                          \
                int64_t mid = s + width < n ? s + width : n;                                      \
                int64_t end = s + 2 * width < n ? s + 2 * width : n;                              \
                int64_t i = s, j = mid, k = s;                                                    \
                while (i < mid && j < end)                                                        \
                    tmp[k++] = LESS(p[j], p[i]) ? p[j++] : p[i++];                                \
                while (i < mid)                                                                   \
                    tmp[k++] = p[i++];                                                            \
                while (j < end)                                                                   \
                    tmp[k++] = p[j++];                                                            \
            }                                                                                     \
            P *swap = p;                                                                          \
            p = tmp, tmp = swap;                                                                  \
        }                                                                                         \
        return p;                                                                                 \
    }

/* ---- one row, per element type ------------------------------------------------------------ */

#define VALUE_LESS(x, y) ((x) < (y))
#define PAIR_LESS(x, y) ((x).key < (y).key)

/* FLOAT is 1 for float types, whose NaNs go last first, and for datetimes, whose NaTs do; NUM(x)
 * says x is not a NaN (not NaT). */
#define INT_NUM(x) ((void)(x), 1)
#define FLOAT_NUM(x) ((x) == (x))
#define NAT_NUM(x) ((x) != INT64_MIN)
#define DEFINE_TYPE(S, T, FLOAT, NUM) DEFINE_ORDERED(S, T, FLOAT, NUM, VALUE_LESS, PAIR_LESS)
#define DEFINE_ORDERED(S, T, FLOAT, NUM, VLESS, PLESS)                                            \
    DEFINE_SORTS(S, T, VLESS)                                                                     \
    DEFINE_INTROSORT(S, T, VLESS)                                                                 \
    typedef struct Pair_##S {                                                                     \
        T key;                                                                                    \
        int64_t idx;                                                                              \
    } Pair_##S;                                                                                   \
    DEFINE_SORTS(pair_##S, Pair_##S, PLESS)                                                       \
    DEFINE_MERGESORT(pair_##S, Pair_##S, PLESS)                                                   \
                                                                                                  \
    /* Moves the NaNs of a[0..n) to its end; returns how many are not NaN. */                    \
    static int64_t numbers_first_##S(T *a, int64_t n)                                             \
    {                                                                                             \
        int64_t m = n;                                                                            \
        if (!(FLOAT))                                                                             \
            return n;                                                                             \
        for (int64_t i = 0; i < m;) {                                                             \
            if (NUM(a[i])) {                                                                      \
                i++;                                                                              \
                continue;                                                                         \
            }                                                                                     \
            T t = a[i];                                                                           \
            a[i] = a[--m];                                                                        \
            a[m] = t;                                                                             \
        }                                                                                         \
        return m;                                                                                 \
    }                                                                                             \
                                                                                                  \
    /* The pairs of a[0..n): the numbers in index order, then the NaNs'; returns the numbers'    \
     * count. */                                                                                  \
    static int64_t pairs_##S(const T *a, int64_t n, Pair_##S *p)                                  \
    {                                                                                             \
        int64_t m = 0;                                                                            \
        for (int64_t i = 0; i < n; i++)                                                           \
            if (NUM(a[i]))                                                                        \
                p[m].key = a[i], p[m++].idx = i;                                                  \
        for (int64_t i = 0, k = m; (FLOAT) && i < n; i++)                                         \
            if (!NUM(a[i]))                                                                       \
                p[k].key = a[i], p[k++].idx = i;                                                  \
        return m;                                                                                 \
    }                                                                                             \
                                                                                                  \
    static void sort_##S(void *data, int64_t rows, int64_t n)                                     \
    {                                                                                             \
        for (int64_t r = 0; r < rows; r++) {                                                      \
            T *a = (T *)data + r * n;                                                             \
            int64_t m = numbers_first_##S(a, n);                                                  \
            introsort_##S(a, m, depth_limit(m));                                                  \
        }                                                                                         \
    }                                                                                             \
                                                                                                  \
    static void partition_rows_##S(void *data, int64_t rows, int64_t n, int64_t kth)              \
    {                                                                                             \
        for (int64_t r = 0; r < rows; r++) {                                                      \
            T *a = (T *)data + r * n;                                                             \
            int64_t m = numbers_first_##S(a, n);                                                  \
            if (kth < m)                                                                          \
                select_##S(a, m, kth);                                                            \
        }                                                                                         \
    }                                                                                             \
                                                                                                  \
    /* kth < 0: argsort (every pair sorted); else argpartition around kth. */                    \
    static int32_t arg_rows_##S(const void *data, int64_t rows, int64_t n, int64_t kth,           \
                                int64_t *out)                                                     \
    {                                                                                             \
        Pair_##S *p = malloc(sizeof *p * (size_t)(2 * n + 1));                                    \
        if (!p)                                                                                   \
            return -1;                                                                            \
        for (int64_t r = 0; r < rows; r++) {                                                      \
            int64_t m = pairs_##S((const T *)data + r * n, n, p);                                 \
            Pair_##S *sorted = p;                                                                 \
            if (kth < 0)                                                                          \
                sorted = mergesort_pair_##S(p, p + n, m);                                         \
            else if (kth < m)                                                                     \
                select_pair_##S(p, m, kth);                                                       \
            int64_t *o = out + r * n;                                                             \
            for (int64_t i = 0; i < m; i++)                                                       \
                o[i] = sorted[i].idx;                                                             \
            for (int64_t i = m; i < n; i++)                                                       \
                o[i] = p[i].idx;                                                                  \
        }                                                                                         \
        free(p);                                                                                  \
        return 0;                                                                                 \
    }

DEFINE_TYPE(i8, int8_t, 0, INT_NUM)
DEFINE_TYPE(i16, int16_t, 0, INT_NUM)
DEFINE_TYPE(i32, int32_t, 0, INT_NUM)
DEFINE_TYPE(i64, int64_t, 0, INT_NUM)
DEFINE_TYPE(u8, uint8_t, 0, INT_NUM)
DEFINE_TYPE(u16, uint16_t, 0, INT_NUM)
DEFINE_TYPE(u32, uint32_t, 0, INT_NUM)
DEFINE_TYPE(u64, uint64_t, 0, INT_NUM)
DEFINE_TYPE(f32, float, 1, FLOAT_NUM)
DEFINE_TYPE(f64, double, 1, FLOAT_NUM)
DEFINE_TYPE(dt, int64_t, 1, NAT_NUM)

/* ---- complex numbers: NumPy's lexicographic order ------------------------------------------
 *
 * By the real parts, then the imaginary ones, with NaNs last in NumPy's extended order
 * R + Rj < R + nanj < nan + Rj < nan + nanj (values with NaNs in the same places ordered by
 * their other part). The order is total, so no NaNs are moved aside first (FLOAT 0). */

typedef struct { float re, im; } Complex64;
typedef struct { double re, im; } Complex128;

/* Functions, not a macro: the sorts pass operands with side effects (a[++i]). */
#define DEFINE_COMPLEX_LESS(S, T)                                                                 \
    static inline int less_##S(T a, T b)                                                          \
    {                                                                                             \
        if (a.re < b.re)                                                                          \
            return a.im == a.im || b.im != b.im;                                                  \
        if (a.re > b.re)                                                                          \
            return b.im != b.im && a.im == a.im;                                                  \
        if (a.re == b.re || (a.re != a.re && b.re != b.re))                                       \
            return a.im < b.im || (b.im != b.im && a.im == a.im);                                 \
        return b.re != b.re;                                                                      \
    }
DEFINE_COMPLEX_LESS(c64, Complex64)
DEFINE_COMPLEX_LESS(c128, Complex128)
#define C64_PAIR_LESS(x, y) less_c64((x).key, (y).key)
#define C128_PAIR_LESS(x, y) less_c128((x).key, (y).key)

DEFINE_ORDERED(c64, Complex64, 0, INT_NUM, less_c64, C64_PAIR_LESS)
DEFINE_ORDERED(c128, Complex128, 0, INT_NUM, less_c128, C128_PAIR_LESS)

/* ---- float16: sorted as uint16 keys that order as the halfs do -------------------------------
 *
 * A half's bits become a key whose unsigned order is the numbers' order: a positive half gets
 * the top bit set, a negative one all its bits flipped (so larger magnitudes come first). The
 * map is one to one, so values sort in place as keys and map back exactly. For argsort, whose
 * ties keep index order, -0.0 takes +0.0's key and every NaN the largest key. */

static int half_is_nan(uint16_t h)
{
    return (h & 0x7fff) > 0x7c00;
}

static uint16_t half_key(uint16_t h)
{
    return (uint16_t)(h & 0x8000 ? ~h : h | 0x8000);
}

static uint16_t half_of_key(uint16_t k)
{
    return (uint16_t)(k & 0x8000 ? k & 0x7fff : ~k);
}

/* Moves the row's NaNs last and makes the rest keys; returns how many keys. */
static int64_t half_keys_first(uint16_t *a, int64_t n)
{
    int64_t m = n;
    for (int64_t i = 0; i < m;) {
        if (!half_is_nan(a[i])) {
            a[i] = half_key(a[i]);
            i++;
            continue;
        }
        uint16_t t = a[i];
        a[i] = a[--m];
        a[m] = t;
    }
    return m;
}

/* kth < 0: sorts each row; else partitions it around kth. */
static void order_rows_f16(void *data, int64_t rows, int64_t n, int64_t kth)
{
    for (int64_t r = 0; r < rows; r++) {
        uint16_t *a = (uint16_t *)data + r * n;
        int64_t m = half_keys_first(a, n);
        if (kth < 0)
            introsort_u16(a, m, depth_limit(m));
        else if (kth < m)
            select_u16(a, m, kth);
        for (int64_t i = 0; i < m; i++)
            a[i] = half_of_key(a[i]);
    }
}

static void sort_f16(void *data, int64_t rows, int64_t n)
{
    order_rows_f16(data, rows, n, -1);
}

static void partition_rows_f16(void *data, int64_t rows, int64_t n, int64_t kth)
{
    order_rows_f16(data, rows, n, kth);
}

static int32_t arg_rows_f16(const void *data, int64_t rows, int64_t n, int64_t kth, int64_t *out)
{
    const uint16_t *a = data;
    uint16_t *keys = malloc(sizeof *keys * (size_t)(rows * n + 1));
    if (!keys)
        return -1;
    for (int64_t i = 0; i < rows * n; i++)
        keys[i] = half_is_nan(a[i]) ? 0xffff : half_key((a[i] & 0x7fff) ? a[i] : 0);
    int32_t status = arg_rows_u16(keys, rows, n, kth, out);
    free(keys);
    return status;
}

/* ---- the entry points: a switch over the element type ------------------------------------- */

/* Calls S_##suffix args with S the instance for key (bool sorts as uint8: its bytes are 0, 1). */
#define DISPATCH(key, prefix, args)                                                               \
    switch (key) {                                                                                \
    case ABI_SORT_INT8: return prefix##i8 args;                                                   \
    case ABI_SORT_INT16: return prefix##i16 args;                                                 \
    case ABI_SORT_INT32: return prefix##i32 args;                                                 \
    case ABI_SORT_INT64: return prefix##i64 args;                                                 \
    case ABI_SORT_BOOL: case ABI_SORT_UINT8: return prefix##u8 args;                              \
    case ABI_SORT_UINT16: return prefix##u16 args;                                                \
    case ABI_SORT_UINT32: return prefix##u32 args;                                                \
    case ABI_SORT_UINT64: return prefix##u64 args;                                                \
    case ABI_SORT_FLOAT32: return prefix##f32 args;                                               \
    case ABI_SORT_FLOAT16: return prefix##f16 args;                                               \
    case ABI_SORT_DATETIME: return prefix##dt args;                                               \
    case ABI_SORT_COMPLEX64: return prefix##c64 args;                                             \
    case ABI_SORT_COMPLEX128: return prefix##c128 args;                                           \
    default: return prefix##f64 args;                                                             \
    }

void pj_sort(void *data, int64_t rows, int64_t n, int32_t key)
{
    DISPATCH(key, sort_, (data, rows, n))
}

void pj_partition(void *data, int64_t rows, int64_t n, int64_t kth, int32_t key)
{
    DISPATCH(key, partition_rows_, (data, rows, n, kth))
}

int32_t pj_argsort(const void *data, int64_t rows, int64_t n, int32_t key, int64_t *out)
{
    DISPATCH(key, arg_rows_, (data, rows, n, -1, out))
}

int32_t pj_argpartition(const void *data, int64_t rows, int64_t n, int64_t kth, int32_t key,
                        int64_t *out)
{
    DISPATCH(key, arg_rows_, (data, rows, n, kth, out))
}
