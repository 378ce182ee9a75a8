"""Functions as values: a Newton solver that takes the function and its derivative as arguments.

`newton` is compiled once per pair of functions passed to it (each call below is a version of
its own, calling them directly), from Python or from compiled code; `cube_roots` passes it
lambdas that capture the value whose root they look for. The results are checked against NumPy,
and the solutions sorted by a key.
"""
import numpy as np

from pyjit import njit


@njit
def newton(f, fprime, x0, tol=1e-12, maxiter=50):
    x = x0
    for _ in range(maxiter):
        step = f(x) / fprime(x)
        x -= step
        if abs(step) < tol * max(1.0, abs(x)):
            break
    return x


@njit
def poly(x):
    return x ** 3 - 2.0 * x - 5.0


@njit
def poly_prime(x):
    return 3.0 * x ** 2 - 2.0


@njit
def cube_roots(values):
    roots = []
    for v in values:
        roots.append(newton(lambda x: x * x * x - v, lambda x: 3.0 * x * x, 1.0 + v))
    return sorted(roots, key=lambda r: abs(r - 2.0))


if __name__ == "__main__":
    root = newton(poly, poly_prime, 2.0)
    print(f"root of x^3 - 2x - 5: {root:.15f}")
    assert abs(poly.py_func(root)) < 1e-12
    values = np.array([8.0, 27.0, 2.0, 1000.0, 0.125])
    roots = cube_roots(values)
    print("cube roots, nearest to 2 first:", [round(r, 12) for r in roots])
    assert np.allclose(sorted(roots), np.sort(np.cbrt(values)))
