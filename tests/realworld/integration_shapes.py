"""A trapezoid integrator whose shape check is a register_jitable helper (the pattern of a
normal-integration package: `extending.register_jitable(check_shapes)`)."""
from pyjit import njit
from pyjit.extending import register_jitable


def check_shapes(x, y):
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    if x.shape[0] < 2:
        raise ValueError("at least two sample points are needed")


register_jitable(check_shapes)


def trapezoid(x, y):
    check_shapes(x, y)
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 0.5 * (x[i + 1] - x[i]) * (y[i + 1] + y[i])
    return s


trapezoid_jit = njit(trapezoid)
