/* sort.c: np.sort, a.sort() and np.argsort of 1-d arrays in compiled code.
 *
 * Compiled code passes the array's data, length and byte stride with a code for its element type
 * (abi.h: ABI_SORT_KEY). Elements are widened to one of three key kinds (int64, uint64, double,
 * all exact) next to their index and sorted with qsort; the index breaks ties, so the order is
 * stable and argsort lists equal values in index order. NaNs sort last, as in NumPy. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/abi.h"

typedef struct SortItem {
    union {
        int64_t i;
        uint64_t u;
        double f;
    } v;
    int64_t idx;
} SortItem;

static int by_index(const SortItem *x, const SortItem *y)
{
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_signed(const void *a, const void *b)
{
    const SortItem *x = a, *y = b;
    int r = (x->v.i > y->v.i) - (x->v.i < y->v.i);
    return r ? r : by_index(x, y);
}

static int cmp_unsigned(const void *a, const void *b)
{
    const SortItem *x = a, *y = b;
    int r = (x->v.u > y->v.u) - (x->v.u < y->v.u);
    return r ? r : by_index(x, y);
}

static int cmp_float(const void *a, const void *b)
{
    const SortItem *x = a, *y = b;
    bool xn = isnan(x->v.f), yn = isnan(y->v.f);
    int r = xn || yn ? (int)xn - (int)yn : (x->v.f > y->v.f) - (x->v.f < y->v.f);
    return r ? r : by_index(x, y);
}

/* Reads the element at p as the key of its kind. */
static void load_key(SortItem *it, const char *p, int32_t kind, int32_t size)
{
    switch (kind * 16 + size) {
    case ABI_SORT_SIGNED * 16 + 1: { int8_t v; memcpy(&v, p, 1); it->v.i = v; break; }
    case ABI_SORT_SIGNED * 16 + 2: { int16_t v; memcpy(&v, p, 2); it->v.i = v; break; }
    case ABI_SORT_SIGNED * 16 + 4: { int32_t v; memcpy(&v, p, 4); it->v.i = v; break; }
    case ABI_SORT_SIGNED * 16 + 8: memcpy(&it->v.i, p, 8); break;
    case ABI_SORT_UNSIGNED * 16 + 1: { uint8_t v; memcpy(&v, p, 1); it->v.u = v; break; }
    case ABI_SORT_UNSIGNED * 16 + 2: { uint16_t v; memcpy(&v, p, 2); it->v.u = v; break; }
    case ABI_SORT_UNSIGNED * 16 + 4: { uint32_t v; memcpy(&v, p, 4); it->v.u = v; break; }
    case ABI_SORT_UNSIGNED * 16 + 8: memcpy(&it->v.u, p, 8); break;
    case ABI_SORT_FLOAT * 16 + 4: { float v; memcpy(&v, p, 4); it->v.f = v; break; }
    default: memcpy(&it->v.f, p, 8); break;
    }
}

/* The items of the array, sorted; NULL when memory runs out. */
static SortItem *sorted_items(const void *data, int64_t n, int64_t stride, int32_t key)
{
    int32_t kind = key / 16, size = key % 16;
    SortItem *items = malloc(sizeof *items * (size_t)(n > 0 ? n : 1));
    if (!items)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        load_key(&items[i], (const char *)data + i * stride, kind, size);
        items[i].idx = i;
    }
    qsort(items, (size_t)n, sizeof *items,
          kind == ABI_SORT_SIGNED ? cmp_signed : kind == ABI_SORT_UNSIGNED ? cmp_unsigned : cmp_float);
    return items;
}

int32_t pj_sort(void *data, int64_t n, int64_t stride, int32_t key)
{
    int32_t size = key % 16;
    SortItem *items = sorted_items(data, n, stride, key);
    char *tmp = malloc((size_t)(n > 0 ? n : 1) * (size_t)size);
    if (!items || !tmp) {
        free(items);
        free(tmp);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)   /* gathered first: the sorted order reads the old values */
        memcpy(tmp + i * size, (char *)data + items[i].idx * stride, (size_t)size);
    for (int64_t i = 0; i < n; i++)
        memcpy((char *)data + i * stride, tmp + i * size, (size_t)size);
    free(tmp);
    free(items);
    return 0;
}

int32_t pj_argsort(const void *data, int64_t n, int64_t stride, int32_t key, int64_t *out)
{
    SortItem *items = sorted_items(data, n, stride, key);
    if (!items)
        return -1;
    for (int64_t i = 0; i < n; i++)
        out[i] = items[i].idx;
    free(items);
    return 0;
}
