"""Real-world patterns: Numerical Recipes routines and sparse-matrix kernels ported to Numba.

Course repositories and scientific packages port the classic routines line by line into `@njit`
functions: Crout's LU decomposition with implicit pivoting and back substitution (`ludcmp`,
`lubksb`, the permutation in an `np.int64` array and the parity returned with it), `gammln` from
Lanczos coefficients in a module tuple, the incomplete gamma function by series and continued
fraction chosen by `x < a + 1`, the incomplete beta through `betacf`, `erf` from them, Romberg
integration with Neville's polynomial extrapolation (`polint` returning value and error),
Gauss-Legendre nodes by Newton iteration on the recurrence, Chebyshev fits and Clenshaw sums,
a natural cubic spline (`spline`/`splint` with bisection of the bracket), `tridag`, a safeguarded
Newton (`rtsafe` given a function returning value and derivative), the Cooley-Tukey `four1` with
its bit-reversal swap by `>>=` and interleaved real/imaginary storage, cyclic Jacobi eigenvalues,
Brent's minimiser with parabolic steps, Savitzky-Golay coefficients from `np.linalg.pinv` of a
Vandermonde matrix; and sparse kernels written the scipy.sparse way over (data, indices, indptr)
arrays: CSR to CSC, CSC matrix-vector and transposed products, a CSR product by Gustavson's
algorithm with a dense marker, row norms and the diagonal, an incomplete Cholesky with zero fill,
sparse triangular solves and a preconditioned conjugate gradient calling them.
Restated in our own words with the import switched to pyjit; each is compared with CPython.
"""
import math

import numpy as np
import pytest

from pyjit import njit
from util import case_name, check_case

TINY = 1.0e-20
COF = (76.18009172947146, -86.50532032941677, 24.01409824083091,
       -1.231739572450155, 0.1208650973866179e-2, -0.5395239384953e-5)
ITMAX = 200
EPS = 3.0e-12
FPMIN = 1.0e-300


@njit
def ludcmp(a):
    a = a.copy()
    n = a.shape[0]
    indx = np.zeros(n, dtype=np.int64)
    vv = np.zeros(n)
    d = 1.0
    for i in range(n):
        big = 0.0
        for j in range(n):
            temp = abs(a[i, j])
            if temp > big:
                big = temp
        if big == 0.0:
            raise ValueError("Singular matrix in routine ludcmp")
        vv[i] = 1.0 / big
    for j in range(n):
        for i in range(j):
            s = a[i, j]
            for k in range(i):
                s -= a[i, k] * a[k, j]
            a[i, j] = s
        big = 0.0
        imax = j
        for i in range(j, n):
            s = a[i, j]
            for k in range(j):
                s -= a[i, k] * a[k, j]
            a[i, j] = s
            dum = vv[i] * abs(s)
            if dum >= big:
                big = dum
                imax = i
        if j != imax:
            for k in range(n):
                a[imax, k], a[j, k] = a[j, k], a[imax, k]
            d = -d
            vv[imax] = vv[j]
        indx[j] = imax
        if a[j, j] == 0.0:
            a[j, j] = TINY
        if j != n - 1:
            dum = 1.0 / a[j, j]
            for i in range(j + 1, n):
                a[i, j] *= dum
    return a, indx, d


@njit
def lubksb(a, indx, b):
    b = b.copy()
    n = a.shape[0]
    ii = -1
    for i in range(n):
        ip = indx[i]
        s = b[ip]
        b[ip] = b[i]
        if ii != -1:
            for j in range(ii, i):
                s -= a[i, j] * b[j]
        elif s != 0.0:
            ii = i
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= a[i, j] * b[j]
        b[i] = s / a[i, i]
    return b


@njit
def lu_solve_det(a, b):
    lu, indx, d = ludcmp(a)
    for j in range(a.shape[0]):
        d *= lu[j, j]
    return lubksb(lu, indx, b), d


@njit
def gammln(xx):
    x = y = xx
    tmp = x + 5.5
    tmp -= (x + 0.5) * math.log(tmp)
    ser = 1.000000000190015
    for c in COF:
        y += 1
        ser += c / y
    return -tmp + math.log(2.5066282746310005 * ser / x)


@njit
def gser(a, x):
    gln = gammln(a)
    if x <= 0.0:
        if x < 0.0:
            raise ValueError("x less than 0 in routine gser")
        return 0.0, gln
    ap = a
    s = de = 1.0 / a
    for n in range(ITMAX):
        ap += 1
        de *= x / ap
        s += de
        if abs(de) < abs(s) * EPS:
            return s * math.exp(-x + a * math.log(x) - gln), gln
    raise RuntimeError("a too large, ITMAX too small in routine gser")


@njit
def gcf(a, x):
    gln = gammln(a)
    b = x + 1.0 - a
    c = 1.0 / FPMIN
    d = 1.0 / b
    h = d
    i = 1
    while i <= ITMAX:
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < FPMIN:
            d = FPMIN
        c = b + an / c
        if abs(c) < FPMIN:
            c = FPMIN
        d = 1.0 / d
        de = d * c
        h *= de
        if abs(de - 1.0) < EPS:
            break
        i += 1
    else:
        raise RuntimeError("a too large, ITMAX too small in gcf")
    return math.exp(-x + a * math.log(x) - gln) * h, gln


@njit
def gammp(a, x):
    if x < 0.0 or a <= 0.0:
        raise ValueError("Invalid arguments in routine gammp")
    if x < a + 1.0:
        return gser(a, x)[0]
    gammcf, _ = gcf(a, x)
    return 1.0 - gammcf


@njit
def erf_nr(x):
    return gammp(0.5, x * x) if x >= 0.0 else -gammp(0.5, x * x)


@njit
def betacf(a, b, x):
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < FPMIN:
        d = FPMIN
    d = 1.0 / d
    h = d
    for m in range(1, ITMAX + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < FPMIN:
            d = FPMIN
        c = 1.0 + aa / c
        if abs(c) < FPMIN:
            c = FPMIN
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < FPMIN:
            d = FPMIN
        c = 1.0 + aa / c
        if abs(c) < FPMIN:
            c = FPMIN
        d = 1.0 / d
        de = d * c
        h *= de
        if abs(de - 1.0) < EPS:
            return h
    raise RuntimeError("a or b too big, or ITMAX too small in betacf")


@njit
def betai(a, b, x):
    if x < 0.0 or x > 1.0:
        raise ValueError("Bad x in routine betai")
    if x == 0.0 or x == 1.0:
        bt = 0.0
    else:
        bt = math.exp(gammln(a + b) - gammln(a) - gammln(b)
                      + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return bt * betacf(a, b, x) / a
    return 1.0 - bt * betacf(b, a, 1.0 - x) / b


@njit
def student_t_pvalues(t, dof):
    out = np.empty(t.size)
    for i, (tv, nu) in enumerate(zip(t, dof)):
        out[i] = betai(0.5 * nu, 0.5, nu / (nu + tv * tv))
    return out


@njit
def polint(xa, ya, x):
    n = xa.size
    c = ya.copy()
    d = ya.copy()
    ns = 0
    dif = abs(x - xa[0])
    for i in range(n):
        dift = abs(x - xa[i])
        if dift < dif:
            ns = i
            dif = dift
    y = ya[ns]
    ns -= 1
    dy = 0.0
    for m in range(1, n):
        for i in range(n - m):
            ho = xa[i] - x
            hp = xa[i + m] - x
            w = c[i + 1] - d[i]
            den = ho - hp
            if den == 0.0:
                raise ZeroDivisionError("Error in routine polint")
            den = w / den
            d[i] = hp * den
            c[i] = ho * den
        if 2 * (ns + 1) < n - m:
            dy = c[ns + 1]
        else:
            dy = d[ns]
            ns -= 1
        y += dy
    return y, dy


@njit
def trapzd(func, a, b, n, s):
    if n == 1:
        return 0.5 * (b - a) * (func(a) + func(b))
    it = 1 << (n - 2)
    tnm = it
    de = (b - a) / tnm
    x = a + 0.5 * de
    total = 0.0
    for _ in range(it):
        total += func(x)
        x += de
    return 0.5 * (s + (b - a) * total / tnm)


@njit
def qromb(func, a, b, eps=1.0e-10, jmax=20, k=5):
    s = np.zeros(jmax + 1)
    h = np.zeros(jmax + 2)
    h[0] = 1.0
    for j in range(jmax):
        s[j] = trapzd(func, a, b, j + 1, s[j - 1] if j > 0 else 0.0)
        if j + 1 >= k:
            ss, dss = polint(h[j + 1 - k:j + 1], s[j + 1 - k:j + 1], 0.0)
            if abs(dss) <= eps * abs(ss):
                return ss, j + 1
        h[j + 1] = 0.25 * h[j]
    raise RuntimeError("Too many steps in routine qromb")


@njit
def bell(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


@njit
def qromb_bell(a, b):
    return qromb(bell, a, b)


@njit
def gauleg(x1, x2, n):
    x = np.zeros(n)
    w = np.zeros(n)
    m = (n + 1) // 2
    xm = 0.5 * (x2 + x1)
    xl = 0.5 * (x2 - x1)
    for i in range(m):
        z = math.cos(math.pi * (i + 0.75) / (n + 0.5))
        while True:
            p1 = 1.0
            p2 = 0.0
            for j in range(n):
                p3 = p2
                p2 = p1
                p1 = ((2.0 * j + 1.0) * z * p2 - j * p3) / (j + 1)
            pp = n * (z * p1 - p2) / (z * z - 1.0)
            z1 = z
            z = z1 - p1 / pp
            if abs(z - z1) <= 3.0e-14:
                break
        x[i] = xm - xl * z
        x[n - 1 - i] = xm + xl * z
        w[i] = 2.0 * xl / ((1.0 - z * z) * pp * pp)
        w[n - 1 - i] = w[i]
    return x, w


@njit
def gauss_quad_poly(coeffs, a, b, n):
    x, w = gauleg(a, b, n)
    p = np.zeros_like(x)
    for c in coeffs:
        p = p * x + c
    return np.sum(w * p)


@njit
def chebft(func_vals_at, a, b, n):
    """Chebyshev coefficients of f on [a, b], f given by its samples at the Chebyshev nodes."""
    c = np.empty(n)
    fac = 2.0 / n
    for j in range(n):
        s = 0.0
        for k in range(n):
            s += func_vals_at[k] * math.cos(math.pi * j * (k + 0.5) / n)
        c[j] = fac * s
    return c


@njit
def chebev(a, b, c, m, x):
    if (x - a) * (x - b) > 0.0:
        raise ValueError("x not in range in routine chebev")
    d = dd = 0.0
    y = (2.0 * x - a - b) / (b - a)
    y2 = 2.0 * y
    for j in range(m - 1, 0, -1):
        sv = d
        d = y2 * d - dd + c[j]
        dd = sv
    return y * d - dd + 0.5 * c[0]


@njit
def cheb_approx(a, b, n, m, xs):
    k = np.arange(n)
    y = np.cos(np.pi * (k + 0.5) / n)
    nodes = y * (0.5 * (b - a)) + 0.5 * (b + a)
    c = chebft(np.exp(nodes) * np.sin(nodes), a, b, n)
    return np.array([chebev(a, b, c, m, x) for x in xs])


@njit
def spline(x, y, yp1=1e30, ypn=1e30):
    n = x.size
    y2 = np.zeros(n)
    u = np.zeros(n - 1)
    if yp1 > 0.99e30:
        y2[0] = u[0] = 0.0
    else:
        y2[0] = -0.5
        u[0] = (3.0 / (x[1] - x[0])) * ((y[1] - y[0]) / (x[1] - x[0]) - yp1)
    for i in range(1, n - 1):
        sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1])
        p = sig * y2[i - 1] + 2.0
        y2[i] = (sig - 1.0) / p
        u[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
        u[i] = (6.0 * u[i] / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p
    if ypn > 0.99e30:
        qn = un = 0.0
    else:
        qn = 0.5
        un = (3.0 / (x[n - 1] - x[n - 2])) * (ypn - (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]))
    y2[n - 1] = (un - qn * u[n - 2]) / (qn * y2[n - 2] + 1.0)
    for k in range(n - 2, -1, -1):
        y2[k] = y2[k] * y2[k + 1] + u[k]
    return y2


@njit
def splint(xa, ya, y2a, x):
    klo = 0
    khi = xa.size - 1
    while khi - klo > 1:
        k = (khi + klo) >> 1
        if xa[k] > x:
            khi = k
        else:
            klo = k
    h = xa[khi] - xa[klo]
    if h == 0.0:
        raise ValueError("Bad xa input to routine splint")
    a = (xa[khi] - x) / h
    b = (x - xa[klo]) / h
    return a * ya[klo] + b * ya[khi] + ((a ** 3 - a) * y2a[klo] + (b ** 3 - b) * y2a[khi]) * (h * h) / 6.0


@njit
def spline_eval(x, y, xs, yp1=1e30, ypn=1e30):
    y2 = spline(x, y, yp1, ypn)
    out = np.empty_like(xs)
    for i in range(xs.size):
        out[i] = splint(x, y, y2, xs[i])
    return out


@njit
def tridag(a, b, c, r):
    n = b.size
    gam = np.empty(n)
    u = np.empty(n)
    if b[0] == 0.0:
        raise ValueError("Error 1 in tridag")
    bet = b[0]
    u[0] = r[0] / bet
    for j in range(1, n):
        gam[j] = c[j - 1] / bet
        bet = b[j] - a[j] * gam[j]
        if bet == 0.0:
            raise ValueError("Error 2 in tridag")
        u[j] = (r[j] - a[j] * u[j - 1]) / bet
    for j in range(n - 2, -1, -1):
        u[j] -= gam[j + 1] * u[j + 1]
    return u


@njit
def kepler_fdf(x, e, m):
    return x - e * math.sin(x) - m, 1.0 - e * math.cos(x)


@njit
def rtsafe(funcd, x1, x2, xacc, args=(), maxit=100):
    fl, _ = funcd(x1, *args)
    fh, _ = funcd(x2, *args)
    if (fl > 0.0 and fh > 0.0) or (fl < 0.0 and fh < 0.0):
        raise ValueError("Root must be bracketed in rtsafe")
    if fl == 0.0:
        return x1
    if fh == 0.0:
        return x2
    if fl < 0.0:
        xl, xh = x1, x2
    else:
        xh, xl = x1, x2
    rts = 0.5 * (x1 + x2)
    dxold = abs(x2 - x1)
    dx = dxold
    f, df = funcd(rts, *args)
    for _ in range(maxit):
        if (((rts - xh) * df - f) * ((rts - xl) * df - f) > 0.0) or (abs(2.0 * f) > abs(dxold * df)):
            dxold = dx
            dx = 0.5 * (xh - xl)
            rts = xl + dx
            if xl == rts:
                return rts
        else:
            dxold = dx
            dx = f / df
            temp = rts
            rts -= dx
            if temp == rts:
                return rts
        if abs(dx) < xacc:
            return rts
        f, df = funcd(rts, *args)
        if f < 0.0:
            xl = rts
        else:
            xh = rts
    raise RuntimeError("Maximum number of iterations exceeded in rtsafe")


@njit
def eccentric_anomalies(e, mean_anomalies):
    out = np.empty_like(mean_anomalies)
    for i in range(mean_anomalies.size):
        out[i] = rtsafe(kepler_fdf, 0.0, 2.0 * np.pi, 1e-13, (e, mean_anomalies[i]))
    return out


@njit
def four1(data, isign):
    """In-place FFT of n complex numbers stored as 2n interleaved floats."""
    nn = data.size // 2
    n = nn << 1
    j = 1
    for i in range(1, n, 2):
        if j > i:
            data[j - 1], data[i - 1] = data[i - 1], data[j - 1]
            data[j], data[i] = data[i], data[j]
        m = nn
        while m >= 2 and j > m:
            j -= m
            m >>= 1
        j += m
    mmax = 2
    while n > mmax:
        istep = mmax << 1
        theta = isign * (6.28318530717959 / mmax)
        wtemp = math.sin(0.5 * theta)
        wpr = -2.0 * wtemp * wtemp
        wpi = math.sin(theta)
        wr = 1.0
        wi = 0.0
        for m in range(1, mmax, 2):
            for i in range(m, n + 1, istep):
                j = i + mmax
                tempr = wr * data[j - 1] - wi * data[j]
                tempi = wr * data[j] + wi * data[j - 1]
                data[j - 1] = data[i - 1] - tempr
                data[j] = data[i] - tempi
                data[i - 1] += tempr
                data[i] += tempi
            wtemp = wr
            wr = wtemp * wpr - wi * wpi + wr
            wi = wi * wpr + wtemp * wpi + wi
        mmax = istep
    return data


@njit
def fft_via_four1(z):
    data = np.empty(2 * z.size)
    data[0::2] = z.real
    data[1::2] = z.imag
    four1(data, -1)
    return data[0::2] + 1j * data[1::2]


@njit
def jacobi_eigen(a, tol=1e-12, max_sweeps=50):
    a = a.copy()
    n = a.shape[0]
    v = np.eye(n)
    for sweep in range(max_sweeps):
        off = 0.0
        for p in range(n - 1):
            for q in range(p + 1, n):
                off += a[p, q] ** 2
        if off < tol:
            return np.sort(np.diag(a)), sweep
        for p in range(n - 1):
            for q in range(p + 1, n):
                if abs(a[p, q]) < 1e-300:
                    continue
                th = 0.5 * (a[q, q] - a[p, p]) / a[p, q]
                t = np.sign(th) / (abs(th) + math.sqrt(th * th + 1.0)) if th != 0 else 1.0
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for k in range(n):
                    akp, akq = a[k, p], a[k, q]
                    a[k, p] = c * akp - s * akq
                    a[k, q] = s * akp + c * akq
                for k in range(n):
                    apk, aqk = a[p, k], a[q, k]
                    a[p, k] = c * apk - s * aqk
                    a[q, k] = s * apk + c * aqk
                for k in range(n):
                    vkp, vkq = v[k, p], v[k, q]
                    v[k, p] = c * vkp - s * vkq
                    v[k, q] = s * vkp + c * vkq
    return np.sort(np.diag(a)), max_sweeps


@njit
def brent_min(f, ax, bx, cx, tol=1e-8, itmax=100):
    cgold = 0.3819660
    zeps = 1.0e-10
    a = min(ax, cx)
    b = max(ax, cx)
    v = w = x = bx
    fv = fw = fx = f(x)
    d = e = 0.0
    for it in range(itmax):
        xm = 0.5 * (a + b)
        tol1 = tol * abs(x) + zeps
        tol2 = 2.0 * tol1
        if abs(x - xm) <= (tol2 - 0.5 * (b - a)):
            return x, fx, it
        if abs(e) > tol1:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            etemp = e
            e = d
            if abs(p) >= abs(0.5 * q * etemp) or p <= q * (a - x) or p >= q * (b - x):
                e = a - x if x >= xm else b - x
                d = cgold * e
            else:
                d = p / q
                u = x + d
                if u - a < tol2 or b - u < tol2:
                    d = math.copysign(tol1, xm - x)
        else:
            e = a - x if x >= xm else b - x
            d = cgold * e
        u = x + d if abs(d) >= tol1 else x + math.copysign(tol1, d)
        fu = f(u)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, w, x = w, x, u
            fv, fw, fx = fw, fx, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, w = w, u
                fv, fw = fw, fu
            elif fu <= fv or v == x or v == w:
                v = u
                fv = fu
    raise RuntimeError("Too many iterations in brent")


@njit
def rosen_slice(t):
    x = 1.0 + t
    y = 0.5 * t
    return 100.0 * (y - x * x) ** 2 + (1 - x) ** 2


@njit
def brent_rosen(a, b, c):
    return brent_min(rosen_slice, a, b, c)


@njit
def savgol_coeffs(window, order, deriv=0):
    half = window // 2
    x = np.arange(-half, half + 1).astype(np.float64)
    A = np.empty((window, order + 1))
    for k in range(order + 1):
        A[:, k] = x ** k
    coeffs = np.linalg.pinv(A)[deriv] * math.gamma(deriv + 1)
    return coeffs[::-1]


@njit
def savgol_filter(y, window, order):
    c = savgol_coeffs(window, order)
    half = window // 2
    out = y.copy()
    for i in range(half, y.size - half):
        out[i] = np.dot(c, y[i - half:i + half + 1][::-1])
    return out


# --- sparse kernels -------------------------------------------------------------------------------

@njit
def csr_to_csc(n_rows, n_cols, data, indices, indptr):
    nnz = indptr[n_rows]
    counts = np.zeros(n_cols + 1, dtype=indptr.dtype)
    for k in range(nnz):
        counts[indices[k] + 1] += 1
    colptr = np.cumsum(counts).astype(indptr.dtype)
    rowind = np.empty(nnz, dtype=indices.dtype)
    cdata = np.empty(nnz, dtype=data.dtype)
    nxt = colptr[:-1].copy()
    for i in range(n_rows):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            dest = nxt[j]
            rowind[dest] = i
            cdata[dest] = data[k]
            nxt[j] += 1
    return cdata, rowind, colptr


@njit
def csc_matvec(n_rows, data, rowind, colptr, x):
    y = np.zeros(n_rows, dtype=data.dtype)
    for j in range(colptr.size - 1):
        xj = x[j]
        for k in range(colptr[j], colptr[j + 1]):
            y[rowind[k]] += data[k] * xj
    return y


@njit
def csr_rmatvec(n_cols, data, indices, indptr, y):
    x = np.zeros(n_cols)
    for i in range(indptr.size - 1):
        for k in range(indptr[i], indptr[i + 1]):
            x[indices[k]] += data[k] * y[i]
    return x


@njit
def csr_matmat(n_rows, n_cols, a_data, a_ind, a_ptr, b_data, b_ind, b_ptr):
    """Gustavson's row-by-row product with a dense marker and accumulator."""
    marker = np.full(n_cols, -1, dtype=np.int64)
    acc = np.zeros(n_cols)
    c_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    c_ind = []
    c_data = []
    for i in range(n_rows):
        row_cols = []
        for ka in range(a_ptr[i], a_ptr[i + 1]):
            k = a_ind[ka]
            av = a_data[ka]
            for kb in range(b_ptr[k], b_ptr[k + 1]):
                j = b_ind[kb]
                if marker[j] != i:
                    marker[j] = i
                    row_cols.append(j)
                    acc[j] = av * b_data[kb]
                else:
                    acc[j] += av * b_data[kb]
        row_cols.sort()
        for j in row_cols:
            c_ind.append(j)
            c_data.append(acc[j])
        c_ptr[i + 1] = len(c_ind)
    return np.array(c_data), np.array(c_ind, dtype=np.int64), c_ptr


@njit
def csr_row_norms_diag(data, indices, indptr):
    n = indptr.size - 1
    norms = np.zeros(n)
    diag = np.zeros(n)
    for i in range(n):
        start, stop = indptr[i], indptr[i + 1]
        norms[i] = np.sqrt(np.sum(data[start:stop] ** 2))
        for k in range(start, stop):
            if indices[k] == i:
                diag[i] += data[k]
    return norms, diag


@njit
def ichol0(data, indices, indptr):
    """Incomplete Cholesky with zero fill of the lower triangle of an SPD CSR matrix."""
    n = indptr.size - 1
    L = data.copy()
    for i in range(n):
        for kk in range(indptr[i], indptr[i + 1]):
            k = indices[kk]
            if k > i:
                break
            s = L[kk]
            # subtract sum_j<k L[i, j] L[k, j] over the common pattern
            p = indptr[i]
            q = indptr[k]
            while p < kk and q < indptr[k + 1] and indices[q] < k:
                if indices[p] == indices[q]:
                    s -= L[p] * L[q]
                    p += 1
                    q += 1
                elif indices[p] < indices[q]:
                    p += 1
                else:
                    q += 1
            if k == i:
                if s <= 0:
                    raise ValueError("matrix is not positive definite")
                L[kk] = math.sqrt(s)
            else:
                diag_k = -1
                for t in range(indptr[k], indptr[k + 1]):
                    if indices[t] == k:
                        diag_k = t
                L[kk] = s / L[diag_k]
    return L


@njit
def lower_solve(data, indices, indptr, b):
    x = b.copy()
    for i in range(indptr.size - 1):
        d = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j < i:
                x[i] -= data[k] * x[j]
            elif j == i:
                d = data[k]
        x[i] /= d
    return x


@njit
def lower_t_solve(data, indices, indptr, b):
    x = b.copy()
    n = indptr.size - 1
    for i in range(n - 1, -1, -1):
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] == i:
                x[i] /= data[k]
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j < i:
                x[j] -= data[k] * x[i]
    return x


@njit
def csr_matvec(data, indices, indptr, x):
    y = np.zeros(indptr.size - 1)
    for i in range(y.size):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return y


@njit
def pcg_ichol(data, indices, indptr, b, tol=1e-10, maxiter=200):
    L = ichol0(data, indices, indptr)

    def precond(r):
        return lower_t_solve(L, indices, indptr, lower_solve(L, indices, indptr, r))

    x = np.zeros_like(b)
    r = b - csr_matvec(data, indices, indptr, x)
    z = precond(r)
    p = z.copy()
    rz = r @ z
    bnorm = np.linalg.norm(b)
    for it in range(maxiter):
        Ap = csr_matvec(data, indices, indptr, p)
        alpha = rz / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        if np.linalg.norm(r) < tol * bnorm:
            return x, it + 1
        z = precond(r)
        rz_new = r @ z
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x, maxiter


# --- cases ----------------------------------------------------------------------------------------

rng = np.random.default_rng(11)


def _csr(dense):
    indptr = [0]
    indices = []
    data = []
    for row in dense:
        nz = np.nonzero(row)[0]
        indices.extend(nz)
        data.extend(row[nz])
        indptr.append(len(indices))
    return (np.array(data, dtype=dense.dtype), np.array(indices, dtype=np.int32),
            np.array(indptr, dtype=np.int32))


def _sparse(n, m, density=0.3):
    d = rng.normal(size=(n, m))
    d[rng.uniform(size=(n, m)) > density] = 0.0
    return d


_A = rng.normal(size=(6, 6)) + 6 * np.eye(6)
_S1 = _sparse(7, 5)
_S2 = _sparse(5, 6)
_D1, _I1, _P1 = _csr(_S1)
_D2, _I2, _P2 = _csr(_S2)
_LAP = (4.0 * np.eye(12) - np.eye(12, k=1) - np.eye(12, k=-1) - np.eye(12, k=4)
        - np.eye(12, k=-4))
_LD, _LI, _LP = _csr(np.tril(_LAP))
_FULL = _csr(_LAP)
_xs = np.linspace(0.0, 3.0, 9)
_sym = rng.normal(size=(5, 5))
_sym = _sym + _sym.T

CASES = [
    (ludcmp, lambda: (_A,)),
    (lubksb, lambda: (*ludcmp.py_func(_A)[:2], rng.normal(size=6))),
    (lu_solve_det, lambda: (_A, rng.normal(size=6))),
    (lu_solve_det, lambda: (np.array([[0.0, 2.0], [3.0, 1.0]]), np.array([1.0, 2.0]))),
    (gammln, lambda: (0.5,)),
    (gammln, lambda: (17.25,)),
    (gammp, lambda: (2.5, 1.0)),
    (gammp, lambda: (2.5, 9.0)),
    (gammp, lambda: (3.0, 0.0)),
    (erf_nr, lambda: (0.3,)),
    (erf_nr, lambda: (-1.7,)),
    (betai, lambda: (2.0, 3.5, 0.4)),
    (betai, lambda: (2.0, 3.5, 1.0)),
    (student_t_pvalues, lambda: (np.array([0.5, 2.1, -3.0, 0.0]), np.array([3.0, 10.0, 25.0, 5.0]))),
    (polint, lambda: (np.array([0.0, 1.0, 2.0, 3.0]), np.array([1.0, 2.0, 0.0, 5.0]), 1.5)),
    (polint, lambda: (np.array([0.0, 1.0, 2.0, 3.0]), np.array([1.0, 2.0, 0.0, 5.0]), 2.0)),
    (qromb_bell, lambda: (0.0, 2.0)),
    (qromb_bell, lambda: (-1.0, 1.0)),
    (gauleg, lambda: (-1.0, 1.0, 5)),
    (gauleg, lambda: (0.0, 3.0, 8)),
    (gauss_quad_poly, lambda: (np.array([1.0, -2.0, 0.5, 3.0, 1.0]), 0.0, 2.0, 3)),
    (cheb_approx, lambda: (0.0, 3.0, 16, 10, _xs[:7])),
    (spline_eval, lambda: (_xs, np.sin(_xs), np.linspace(0.0, 3.0, 25))),
    (spline_eval, lambda: (_xs, np.sin(_xs), np.linspace(0.0, 3.0, 25), 1.0, -0.99)),
    (tridag, lambda: (np.r_[0.0, -np.ones(6)], np.full(7, 2.5), np.r_[-np.ones(6), 0.0],
                      rng.normal(size=7))),
    (eccentric_anomalies, lambda: (0.3, np.linspace(0.1, 6.0, 7))),
    (eccentric_anomalies, lambda: (0.95, np.array([0.01, np.pi, 5.5]))),
    (four1, lambda: (rng.normal(size=16), 1)),
    (fft_via_four1, lambda: (rng.normal(size=32) + 1j * rng.normal(size=32),)),
    (jacobi_eigen, lambda: (_sym,)),
    (jacobi_eigen, lambda: (np.diag([3.0, 1.0, 2.0]),)),
    (brent_rosen, lambda: (-1.0, 0.0, 1.0)),
    (savgol_coeffs, lambda: (7, 2)),
    (savgol_coeffs, lambda: (9, 3, 1)),
    (savgol_filter, lambda: (np.sin(np.linspace(0, 6, 40)) + rng.normal(0, 0.1, 40), 7, 3)),
    (csr_to_csc, lambda: (7, 5, _D1, _I1, _P1)),
    (csc_matvec, lambda: (7, *csr_to_csc.py_func(7, 5, _D1, _I1, _P1), rng.normal(size=5))),
    (csc_matvec, lambda: (7, *csr_to_csc.py_func(7, 5, _D1.astype(np.float32), _I1, _P1),
                          np.arange(5, dtype=np.int64))),
    (csr_rmatvec, lambda: (5, _D1, _I1, _P1, rng.normal(size=7))),
    (csr_matmat, lambda: (7, 6, _D1, _I1, _P1, _D2, _I2, _P2)),
    (csr_matmat, lambda: (1, 3, np.zeros(0), np.zeros(0, np.int32), np.zeros(2, np.int32),
                          np.ones(2), np.array([0, 2], np.int32), np.array([0, 2], np.int32))),
    (csr_row_norms_diag, lambda: (_D1, _I1, _P1)),
    (ichol0, lambda: (_LD, _LI, _LP)),
    (pcg_ichol, lambda: (*_FULL, np.linspace(1.0, 2.0, 12))),
]


@pytest.mark.parametrize("f, make", CASES, ids=[case_name(f) for f, _ in CASES])
def test_same_as_cpython(f, make):
    check_case(f, make)


@pytest.mark.parametrize("f, args, err", [
    (ludcmp, (np.zeros((3, 3)),), ValueError),
    (gammp, (-1.0, 2.0), ValueError),
    (betai, (1.0, 1.0, 1.5), ValueError),
    (chebev, (0.0, 1.0, np.ones(3), 3, 2.0), ValueError),
    (tridag, (np.zeros(3), np.zeros(3), np.zeros(3), np.ones(3)), ValueError),
    (polint, (np.array([1.0, 1.0]), np.array([0.0, 1.0]), 0.5), ZeroDivisionError),
])
def test_errors_as_in_cpython(f, args, err):
    for g in (f.py_func, f):
        with pytest.raises(err):
            g(*args)
