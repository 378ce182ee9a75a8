/* random.c: the random number generator behind np.random in compiled code.
 *
 * Compiled code has a state of its own, as in Numba: np.random.seed(n) inside a compiled function
 * reseeds it, and it is independent of NumPy's global RandomState. The generator is xoshiro256**
 * with one state per thread (so threads never share or lock one), seeded from the OS the first
 * time a thread draws. Seeds are expanded to the 256-bit state through splitmix64, which keeps a
 * small seed such as 0 from starting in a weak (mostly zero) state. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "compiler/abi.h"

typedef struct RandomState {
    uint64_t s[4];
    int seeded;
    int has_gauss;       /* the polar method makes two normals; the second is kept here */
    double gauss;
} RandomState;

static _Thread_local RandomState state;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void seed_with(uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        state.s[i] = splitmix64(&seed);
    state.seeded = 1;
    state.has_gauss = 0;
}

/* Entropy from the OS; the clock and the state's address only if /dev/urandom cannot be read. */
static void seed_from_os(void)
{
    uint64_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&seed, sizeof seed, 1, f) != 1) {
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&state;
    }
    if (f)
        fclose(f);
    seed_with(seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t next_u64(void)
{
    if (!state.seeded)
        seed_from_os();
    uint64_t *s = state.s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void pj_random_seed(int64_t seed)
{
    seed_with((uint64_t)seed);
}

/* Uniform on [0, 1) with 53 random bits, as NumPy's random_sample. */
double pj_random_f64(void)
{
    return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal by Marsaglia's polar method. */
double pj_random_normal(void)
{
    if (state.has_gauss) {
        state.has_gauss = 0;
        return state.gauss;
    }
    double x, y, r2;
    do {
        x = 2.0 * pj_random_f64() - 1.0;
        y = 2.0 * pj_random_f64() - 1.0;
        r2 = x * x + y * y;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    state.gauss = f * x;
    state.has_gauss = 1;
    return f * y;
}

/* Uniform integer on [lo, hi) (the caller checks lo < hi), without modulo bias: draws above the
 * largest multiple of the range are rejected. */
int64_t pj_random_randint(int64_t lo, int64_t hi)
{
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    uint64_t limit = UINT64_MAX - UINT64_MAX % range, r;
    do
        r = next_u64();
    while (r >= limit);
    return (int64_t)((uint64_t)lo + r % range);
}

/* Fills n float64s: uniform on [0, 1), or standard normal when normal is nonzero. */
void pj_random_fill(double *data, int64_t n, int32_t normal)
{
    for (int64_t i = 0; i < n; i++)
        data[i] = normal ? pj_random_normal() : pj_random_f64();
}
