"""A secant root finder whose helpers are made jitable with options (flexsolve's njitable)."""
from pyjit import njit
from pyjit.extending import register_jitable

njitables = []


def njitable(f=None, **options):
    if f is None:
        return lambda g: njitable(g, **options)
    jitable = register_jitable(**options)(f) if options else register_jitable(f)
    njitables.append(jitable)
    return jitable


@njitable
def secant_step(x0, x1, y0, y1):
    return x1 - y1 * (x1 - x0) / (y1 - y0)


@njitable(fastmath=False)
def converged(x0, x1, xtol):
    return abs(x1 - x0) < xtol


def cubic(x):
    return x * x * x - 2.0 * x - 5.0


def secant(x0, x1, xtol, maxiter):
    y0 = x0 * x0 * x0 - 2.0 * x0 - 5.0
    for _ in range(maxiter):
        y1 = x1 * x1 * x1 - 2.0 * x1 - 5.0
        if y1 == y0:
            return x1
        x2 = secant_step(x0, x1, y0, y1)
        if converged(x1, x2, xtol):
            return x2
        x0, y0, x1 = x1, y1, x2
    return x1


secant_jit = njit(secant)
