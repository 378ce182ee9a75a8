/* random.c: the random number generator behind np.random in compiled code.
 *
 * Compiled code has a state of its own, as in Numba: np.random.seed(n) inside a compiled function
 * reseeds it, and it is independent of NumPy's global RandomState. It is NumPy's legacy
 * generator, so that after the same seed compiled code draws the very numbers
 * np.random.RandomState(seed) draws: the Mersenne Twister (MT19937) seeded as RandomState.seed
 * seeds it, doubles of 53 bits from two 32-bit words, Marsaglia's polar method for normals (the
 * second normal kept for the next call), bounded integers by masked rejection, and the legacy
 * algorithms of the other distributions, each consuming the stream as NumPy's does. One state per
 * thread (threads never share or lock one), seeded from the OS the first time a thread draws. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/runtime.h"

#define MT_N 624
#define MT_M 397

/* The legacy binomial's set-up for its last (n, p), reused while they stay the same. */
typedef struct Binomial {
    int valid;
    int64_t n, m;
    double p, r, q, fm, p1, xm, xl, xr, c, laml, lamr, p2, p3, p4;
} Binomial;

typedef struct RandomState {
    uint32_t key[MT_N];
    int pos;
    int seeded;
    int has_gauss;       /* the polar method makes two normals; the second is kept here */
    double gauss;
    Binomial binomial;
} RandomState;

static _Thread_local RandomState state;

static void seed_state(RandomState *s, uint32_t seed)
{
    for (int i = 0; i < MT_N; i++) {
        s->key[i] = seed;
        seed = 1812433253u * (seed ^ (seed >> 30)) + (uint32_t)i + 1;
    }
    s->pos = MT_N;
    s->seeded = 1;
    s->has_gauss = 0;
    s->binomial.valid = 0;
}

/* Entropy from the OS; the clock and the state's address only if /dev/urandom cannot be read. */
static void seed_from_os(RandomState *s)
{
    uint32_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&seed, sizeof seed, 1, f) != 1) {
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        seed = (uint32_t)(ts.tv_sec * 1000000007LL ^ ts.tv_nsec ^ (intptr_t)s);
    }
    if (f)
        fclose(f);
    seed_state(s, seed);
}

/* The next MT_N words of the state, all at once. */
static void regenerate(RandomState *s)
{
    uint32_t *k = s->key;
    for (int i = 0; i < MT_N; i++) {
        uint32_t y = (k[i] & 0x80000000u) | (k[(i + 1) % MT_N] & 0x7fffffffu);
        k[i] = k[(i + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1) ? 0x9908b0dfu : 0);
    }
    s->pos = 0;
}

/* The calling thread's state, seeded on first use: fetched once per draw (a thread-local's
 * address costs a call in a shared library). */
static RandomState *my_state(void)
{
    RandomState *s = &state;
    if (!s->seeded)
        seed_from_os(s);
    return s;
}

static uint32_t next_u32(RandomState *s)
{
    if (s->pos == MT_N)
        regenerate(s);
    uint32_t y = s->key[s->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static uint64_t next_u64(RandomState *s)
{
    uint64_t hi = next_u32(s);
    return hi << 32 | next_u32(s);
}

void pj_random_seed(int64_t seed)
{
    seed_state(&state, (uint32_t)seed);
}

/* Uniform on [0, 1) with 53 random bits: 27 of one word and 26 of the next, as NumPy's. */
static double next_f64(RandomState *s)
{
    uint32_t a = next_u32(s) >> 5, b = next_u32(s) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

double pj_random_f64(void)
{
    return next_f64(my_state());
}

/* Python's random module in compiled code draws from a state of its own, as in Numba: seeding
 * np.random does not move it, and random.seed(n) seeds it as Numba's does, as np.random.seed(n)
 * seeds NumPy's (the Mersenne Twister's init_genrand of n's low 32 bits), so a program's numbers
 * are the ones it drew under Numba (not CPython's: its random.seed takes init_by_array).
 * pyjit/lib/pyrandom.py builds the module's functions on its words, doubles and gauss, as
 * Lib/random.py does. One per thread, seeded from the OS on first use. */
static _Thread_local RandomState py_state;

void pj_py_random_seed(int64_t seed)
{
    seed_state(&py_state, (uint32_t)seed);
}

static RandomState *my_py_state(void)
{
    RandomState *s = &py_state;
    if (!s->seeded)
        seed_from_os(s);
    return s;
}

double pj_py_random_random(void)
{
    return next_f64(my_py_state());
}

uint32_t pj_py_random_next32(void)
{
    return next_u32(my_py_state());
}

/* random.gauss's standard normal: Box-Muller, the second normal kept for the next call (random.seed
 * forgets it, as CPython's gauss_next). */
double pj_py_random_gauss(void)
{
    RandomState *s = my_py_state();
    if (s->has_gauss) {
        s->has_gauss = 0;
        return s->gauss;
    }
    double x2pi = next_f64(s) * (2.0 * 3.141592653589793);
    double g2rad = sqrt(-2.0 * log(1.0 - next_f64(s)));
    s->gauss = sin(x2pi) * g2rad;
    s->has_gauss = 1;
    return cos(x2pi) * g2rad;
}

/* Standard normal by Marsaglia's polar method. */
static double next_normal(RandomState *s)
{
    if (s->has_gauss) {
        s->has_gauss = 0;
        return s->gauss;
    }
    double x, y, r2;
    do {
        x = 2.0 * next_f64(s) - 1.0;
        y = 2.0 * next_f64(s) - 1.0;
        r2 = x * x + y * y;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    s->gauss = f * x;
    s->has_gauss = 1;
    return f * y;
}

double pj_random_normal(void)
{
    return next_normal(my_state());
}

/* The smallest mask 2**k - 1 covering max. */
static uint64_t mask_of(uint64_t max)
{
    for (int s = 1; s <= 32; s *= 2)
        max |= max >> s;
    return max;
}

/* Uniform on [0, max], by masking draws and rejecting those past max: one 32-bit word per draw
 * while max fits one. */
static uint64_t bounded(RandomState *s, uint64_t max)
{
    uint64_t mask = mask_of(max), v;
    if (max == 0)
        return 0;
    if (max == 0xffffffffu)
        return next_u32(s);
    if (max < 0xffffffffu) {
        while ((v = next_u32(s) & mask) > max)
            ;
    } else if (max == UINT64_MAX) {
        v = next_u64(s);
    } else {
        while ((v = next_u64(s) & mask) > max)
            ;
    }
    return v;
}

/* Uniform integer on [lo, hi) (the caller checks lo < hi). */
int64_t pj_random_randint(int64_t lo, int64_t hi)
{
    return (int64_t)((uint64_t)lo + bounded(my_state(), (uint64_t)hi - (uint64_t)lo - 1));
}

/* The calling thread's state, for the draws below: compiled code fetches it once per function
 * (a thread-local's address costs a call in a shared library), not once per draw. */
void *pj_random_state(void)
{
    return my_state();
}

double pj_random_f64_at(void *s)
{
    return next_f64(s);
}

double pj_random_normal_at(void *s)
{
    return next_normal(s);
}

double pj_random_exponential_at(void *s)
{
    return -log(1.0 - next_f64(s));
}

int64_t pj_random_randint_at(void *s, int64_t lo, int64_t hi)
{
    return (int64_t)((uint64_t)lo + bounded(s, (uint64_t)hi - (uint64_t)lo - 1));
}

/* Fills n float64s: uniform on [0, 1), or standard normal when normal is nonzero. */
void pj_random_fill(double *data, int64_t n, int32_t normal)
{
    RandomState *s = my_state();
    for (int64_t i = 0; i < n; i++)
        data[i] = normal ? next_normal(s) : next_f64(s);
}

/* -log(1 - U), U on [0, 1). */
double pj_random_exponential(void)
{
    return -log(1.0 - pj_random_f64());
}

/* Gamma of this shape (scale 1): Marsaglia and Tsang's method from shape 1 up, the rejection
 * method of Ahrens and Dieter's GS below it, as NumPy's legacy and Generator streams draw it. */
double rt_gamma(double shape, const GammaDraws *d, void *state)
{
    if (shape == 1.0)
        return d->exponential(state);
    if (shape == 0.0)
        return 0.0;
    if (shape < 1.0) {
        for (;;) {
            double u = d->uniform(state), v = d->exponential(state);
            if (u <= 1.0 - shape) {
                double x = pow(u, 1.0 / shape);
                if (x <= v)
                    return x;
            } else {
                double y = -log((1 - u) / shape), x = pow(1.0 - shape + shape * y, 1.0 / shape);
                if (x <= v + y)
                    return x;
            }
        }
    }
    double b = shape - 1.0 / 3.0, c = 1.0 / sqrt(9 * b);
    for (;;) {
        double x, v;
        do {
            x = d->normal(state);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = d->uniform(state);
        if (u < 1.0 - 0.0331 * (x * x) * (x * x))
            return b * v;
        if (log(u) < 0.5 * x * x + b * (1.0 - v + log(v)))
            return b * v;
    }
}

static double legacy_uniform(void *unused) { (void)unused; return pj_random_f64(); }
static double legacy_normal(void *unused) { (void)unused; return pj_random_normal(); }
static double legacy_exponential(void *unused) { (void)unused; return pj_random_exponential(); }

double pj_random_gamma(double shape)
{
    static const GammaDraws legacy = {legacy_uniform, legacy_normal, legacy_exponential};
    return rt_gamma(shape, &legacy, NULL);
}

/* Beta(a, b): Johnk's method when both are at most 1, else a ratio of gammas. */
double pj_random_beta(double a, double b)
{
    if (a > 1.0 || b > 1.0) {
        double ga = pj_random_gamma(a), gb = pj_random_gamma(b);
        return ga / (ga + gb);
    }
    for (;;) {
        double u = pj_random_f64(), v = pj_random_f64();
        double x = pow(u, 1.0 / a), y = pow(v, 1.0 / b);
        if (x + y > 1.0)
            continue;
        if (x + y > 0)
            return x / (x + y);
        double lx = log(u) / a, ly = log(v) / b, lm = lx > ly ? lx : ly;   /* both underflowed */
        lx -= lm;
        ly -= lm;
        return exp(lx - log(exp(lx) + exp(ly)));
    }
}

/* log(Gamma(x)) by Stirling's series, as NumPy's generators compute it. */
double rt_loggam(double x)
{
    static const double a[10] = {8.333333333333333e-02, -2.777777777777778e-03,
                                 7.936507936507937e-04, -5.952380952380952e-04,
                                 8.417508417508418e-04, -1.917526917526918e-03,
                                 6.410256410256410e-03, -2.955065359477124e-02,
                                 1.796443723688307e-01, -1.39243221690590e+00};
    if (x == 1.0 || x == 2.0)
        return 0.0;
    int64_t n = x < 7.0 ? (int64_t)(7 - x) : 0;
    double x0 = x + (double)n, x2 = (1.0 / x0) * (1.0 / x0), g = a[9];
    for (int k = 8; k >= 0; k--)
        g = g * x2 + a[k];
    double gl = g / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * log(x0) - x0;
    for (int64_t k = 1; k <= n; k++) {
        gl -= log(x0 - 1.0);
        x0 -= 1.0;
    }
    return gl;
}

/* Poisson(lam), lam >= 0 (checked by the caller): products of uniforms below 10, Hormann's
 * transformed rejection (PTRS) from 10. */
int64_t pj_random_poisson(double lam)
{
    if (lam == 0)
        return 0;
    if (lam < 10) {
        double enlam = exp(-lam), prod = 1.0;
        int64_t x = 0;
        for (;;) {
            prod *= pj_random_f64();
            if (prod <= enlam)
                return x;
            x++;
        }
    }
    double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam;
    double a = -0.059 + 0.02483 * b, invalpha = 1.1239 + 1.1328 / (b - 3.4);
    double vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double u = pj_random_f64() - 0.5, v = pj_random_f64(), us = 0.5 - fabs(u);
        int64_t k = (int64_t)floor((2 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr)
            return k;
        if (k < 0 || (us < 0.013 && v > us))
            continue;
        if (log(v) + log(invalpha) - log(a / (us * us) + b) <=
            -lam + (double)k * loglam - rt_loggam((double)k + 1))
            return k;
    }
}

/* Binomial by inversion, for n * p <= 30 (p <= 1/2). */
static int64_t binomial_inversion(int64_t n, double p)
{
    Binomial *s = &state.binomial;
    if (!s->valid || s->n != n || s->p != p) {
        *s = (Binomial){.valid = 1, .n = n, .p = p, .q = 1.0 - p};
        s->r = exp((double)n * log(s->q));
        s->c = (double)n * p;
        double bound = s->c + 10.0 * sqrt(s->c * s->q + 1);
        s->m = (double)n < bound ? n : (int64_t)bound;
    }
    int64_t x = 0;
    double px = s->r, u = pj_random_f64();
    while (u > px) {
        x++;
        if (x > s->m) {
            x = 0;
            px = s->r;
            u = pj_random_f64();
        } else {
            u -= px;
            px = ((double)(n - x + 1) * p * px) / ((double)x * s->q);
        }
    }
    return x;
}

/* The Stirling correction term of BTPE's final test, at one of its four points. */
static double stirling_term(double v)
{
    double v2 = v * v;
    return (13680. - (462. - (132. - (99. - 140. / v2) / v2) / v2) / v2) / v / 166320.;
}

static void btpe_setup(Binomial *s, int64_t n, double p)
{
    *s = (Binomial){.valid = 1, .n = n, .p = p};
    s->r = p < 1.0 - p ? p : 1.0 - p;
    s->q = 1.0 - s->r;
    s->fm = (double)n * s->r + s->r;
    s->m = (int64_t)floor(s->fm);
    s->p1 = floor(2.195 * sqrt((double)n * s->r * s->q) - 4.6 * s->q) + 0.5;
    s->xm = (double)s->m + 0.5;
    s->xl = s->xm - s->p1;
    s->xr = s->xm + s->p1;
    s->c = 0.134 + 20.5 / (15.3 + (double)s->m);
    double a = (s->fm - s->xl) / (s->fm - s->xl * s->r);
    s->laml = a * (1.0 + a / 2.0);
    a = (s->xr - s->fm) / (s->xr * s->q);
    s->lamr = a * (1.0 + a / 2.0);
    s->p2 = s->p1 * (1.0 + 2.0 * s->c);
    s->p3 = s->p2 + s->c / s->laml;
    s->p4 = s->p3 + s->c / s->lamr;
}

/* Whether BTPE accepts y for the uniform v (steps 50 and 52 of Kachitvichyanukul and
 * Schmeiser's algorithm, with the legacy generator's Stirling terms). */
static int btpe_accepts(const Binomial *s, int64_t n, int64_t y, double v)
{
    double r = s->r, q = s->q, nrq = (double)n * r * q;
    int64_t m = s->m, k = llabs(y - m);
    if (!(k > 20 && (double)k < nrq / 2.0 - 1)) {
        double sr = r / q, a = sr * (double)(n + 1), f = 1.0;
        if (m < y)
            for (int64_t i = m + 1; i <= y; i++)
                f *= a / (double)i - sr;
        else
            for (int64_t i = y + 1; i <= m; i++)
                f /= a / (double)i - sr;
        return v <= f;
    }
    double kd = (double)k;
    double rho = (kd / nrq) * ((kd * (kd / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
    double t = -kd * kd / (2 * nrq), lv = log(v);
    if (lv < t - rho)
        return 1;
    if (lv > t + rho)
        return 0;
    double x1 = (double)y + 1, f1 = (double)m + 1, z = (double)n + 1 - (double)m;
    double w = (double)n - (double)y + 1;
    return !(lv > s->xm * log(f1 / x1) + ((double)(n - m) + 0.5) * log(z / w) +
             (double)(y - m) * log(w * r / (x1 * q)) + stirling_term(f1) + stirling_term(z) +
             stirling_term(x1) + stirling_term(w));
}

/* Binomial by BTPE (triangle, parallelogram, exponential tails), for n * p > 30, p <= 1/2. */
static int64_t binomial_btpe(int64_t n, double p)
{
    Binomial *s = &state.binomial;
    if (!s->valid || s->n != n || s->p != p)
        btpe_setup(s, n, p);
    for (;;) {
        double u = pj_random_f64() * s->p4, v = pj_random_f64();
        int64_t y;
        if (u <= s->p1) {
            y = (int64_t)floor(s->xm - s->p1 * v + u);
            return y;
        }
        if (u <= s->p2) {
            double x = s->xl + (u - s->p1) / s->c;
            v = v * s->c + 1.0 - fabs((double)s->m - x + 0.5) / s->p1;
            if (v > 1.0)
                continue;
            y = (int64_t)floor(x);
        } else if (u <= s->p3) {
            y = (int64_t)floor(s->xl + log(v) / s->laml);
            if (y < 0 || v == 0.0)
                continue;
            v = v * (u - s->p2) * s->laml;
        } else {
            y = (int64_t)floor(s->xr - log(v) / s->lamr);
            if (y > n || v == 0.0)
                continue;
            v = v * (u - s->p3) * s->lamr;
        }
        if (btpe_accepts(s, n, y, v))
            return y;
    }
}

/* Binomial(n, p), n >= 0 and 0 <= p <= 1 (checked by the caller), as NumPy's legacy generator:
 * for p above 1/2 the draw of n - X with 1 - p. */
int64_t pj_random_binomial(int64_t n, double p)
{
    double q = p <= 0.5 ? p : 1.0 - p;
    int64_t x = q * (double)n <= 30.0 ? binomial_inversion(n, q) : binomial_btpe(n, q);
    return p <= 0.5 ? x : n - x;
}
