"""Functions as values: a compiled function passed to a compiled solver against the same solver
calling it directly, in pyjit and in Numba; and sorted(key=) against CPython and Numba.

Cases (each the median seconds per call over samples of at least 50 ms, every case of both
libraries in each round of samples, after a checked first call):
  - newton direct: a Newton solver calling its objective and derivative by name, for 10^5 roots;
  - newton passed from Python: the same solver taking them as arguments, called from Python with
    the @njit functions (the callee is specialised on them: each pair is a version of its own);
  - newton passed in compiled code: a compiled loop passing them to the solver;
  - newton FunctionType: the solver declared to take FunctionType(float64(float64, float64))
    parameters, so it is compiled once and calls the functions through their addresses;
  - newton closure (pyjit only: Numba cannot pass a closure on): the objective a lambda
    capturing the constant, made in the compiled loop and passed to the solver;
  - sorted key: sorted(list, key=lambda) of 10^4 floats.
The ratio passed/direct is the cost of passing a function: 1.00 means none.

    python bench/functions.py            # 11 samples
    python bench/functions.py --quick    # 5 samples
"""
import argparse
import statistics
import time
import warnings

import numpy as np

N_ROOTS = 100_000
N_SORT = 10_000


def make_kernels(njit, types):
    @njit
    def objective(x, c):
        return x * x * x - c

    @njit
    def derivative(x, c):
        return 3.0 * x * x

    @njit
    def newton(f, fprime, x0, c):
        x = x0
        for _ in range(60):
            step = f(x, c) / fprime(x, c)
            x -= step
            if abs(step) < 1e-13 * abs(x):
                break
        return x

    @njit
    def newton_direct(x0, c):
        x = x0
        for _ in range(60):
            step = objective(x, c) / derivative(x, c)
            x -= step
            if abs(step) < 1e-13 * abs(x):
                break
        return x

    @njit
    def roots_direct(cs):
        out = np.empty_like(cs)
        for i in range(cs.shape[0]):
            out[i] = newton_direct(1.0, cs[i])
        return out

    @njit
    def roots_passed(f, fprime, cs):
        out = np.empty_like(cs)
        for i in range(cs.shape[0]):
            out[i] = newton(f, fprime, 1.0, cs[i])
        return out

    @njit
    def roots_passed_inside(cs):
        out = np.empty_like(cs)
        for i in range(cs.shape[0]):
            out[i] = newton(objective, derivative, 1.0, cs[i])
        return out

    ft = types.FunctionType(types.float64(types.float64, types.float64))

    @njit(types.float64(ft, ft, types.float64, types.float64))
    def newton_ptr(f, fprime, x0, c):
        x = x0
        for _ in range(60):
            step = f(x, c) / fprime(x, c)
            x -= step
            if abs(step) < 1e-13 * abs(x):
                break
        return x

    @njit
    def roots_ptr(f, fprime, cs):
        out = np.empty_like(cs)
        for i in range(cs.shape[0]):
            out[i] = newton_ptr(f, fprime, 1.0, cs[i])
        return out

    @njit
    def sorted_key(xs):
        return sorted(xs, key=lambda v: abs(v - 0.5))

    return {
        "newton direct": lambda cs: roots_direct(cs),
        "newton passed from Python": lambda cs: roots_passed(objective, derivative, cs),
        "newton passed in compiled code": lambda cs: roots_passed_inside(cs),
        "newton FunctionType": lambda cs: roots_ptr(objective, derivative, cs),
        "sorted key": sorted_key,
    }


def make_closure_kernel(njit):
    @njit
    def newton1(f, fprime, x0):
        x = x0
        for _ in range(60):
            step = f(x) / fprime(x)
            x -= step
            if abs(step) < 1e-13 * abs(x):
                break
        return x

    @njit
    def roots_closure(cs):
        out = np.empty_like(cs)
        for i in range(cs.shape[0]):
            c = cs[i]
            out[i] = newton1(lambda x: x * x * x - c, lambda x: 3.0 * x * x, 1.0)
        return out
    return roots_closure


def time_call(fn, arg, reps):
    """Seconds per call over reps calls."""
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(arg)
    return (time.perf_counter() - t0) / reps


def reps_for(fn, arg):
    """Calls per sample: at least 50 ms of them."""
    return max(1, int(0.05 / max(time_call(fn, arg, 1), 1e-7)))


def check(case, got, arg):
    if case == "sorted key":
        return list(got) == sorted(arg, key=lambda v: abs(v - 0.5))
    return np.allclose(got, np.cbrt(arg), rtol=1e-12)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="5 samples instead of 11")
    args = p.parse_args()
    samples = 5 if args.quick else 11
    import numba
    import numba.core.types
    import pyjit
    warnings.simplefilter("ignore", numba.NumbaExperimentalFeatureWarning)
    rng = np.random.default_rng(1)
    cs = rng.uniform(0.5, 1000.0, N_ROOTS)
    xs = rng.standard_normal(N_SORT).tolist()
    libs = {"pyjit": make_kernels(pyjit.njit, pyjit.types),
            "Numba": make_kernels(numba.njit, numba.core.types)}
    libs["pyjit"]["newton closure"] = make_closure_kernel(pyjit.njit)
    runs = [(case, lib) for case in libs["pyjit"] for lib in libs if case in libs[lib]]
    args = {case: xs if case == "sorted key" else cs for case, _ in runs}
    for case, lib in runs:
        if not check(case, libs[lib][case](args[case]), args[case]):
            raise AssertionError(f"{lib} {case}: wrong result")
    reps = {(case, lib): reps_for(libs[lib][case], args[case]) for case, lib in runs}
    times = {run: [] for run in runs}
    for _ in range(samples):   # every case and library in each round: load changes hit all alike
        for case, lib in runs:
            times[case, lib].append(time_call(libs[lib][case], args[case], reps[case, lib]))
    results = {lib: {} for lib in libs}
    for (case, lib), ts in times.items():
        results[lib][case] = statistics.median(ts)

    def by_cpython(a):
        return sorted(a, key=lambda v: abs(v - 0.5))
    cpython = statistics.median(time_call(by_cpython, xs, reps_for(by_cpython, xs))
                                for _ in range(samples))
    print("| case | pyjit | Numba | pyjit/Numba | pyjit passed/direct | Numba passed/direct |")
    print("| --- | --- | --- | --- | --- | --- |")
    for case, t in results["pyjit"].items():
        nb = results["Numba"].get(case)
        direct_p, direct_n = results["pyjit"]["newton direct"], results["Numba"]["newton direct"]
        passed = case.startswith("newton") and case != "newton direct"
        print(f"| {case} | {t * 1e3:.2f} ms | {f'{nb * 1e3:.2f} ms' if nb else '-'} | "
              f"{f'{t / nb:.2f}' if nb else '-'} | {f'{t / direct_p:.2f}' if passed else '-'} | "
              f"{f'{nb / direct_n:.2f}' if passed and nb else '-'} |")
    print(f"| sorted key, CPython | {cpython * 1e3:.2f} ms | | | | |")


if __name__ == "__main__":
    main()
