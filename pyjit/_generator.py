"""pyjit._generator: the draws np.random.Generator's methods are built on in compiled code
(compiler/builtins.def rows "pyjit._generator.*", runtime/generator.c). pyjit/lib/numpy_generator.py
calls them with parameters it has checked; they have no meaning in Python. py_next32 and py_gauss
draw from the state of Python's random module in compiled code (pyjit/lib/pyrandom.py)."""


def _compiled_only(name):
    def stub(*args):
        raise NotImplementedError(f"pyjit._generator.{name} runs only in compiled code")
    stub.__name__ = name
    stub.__qualname__ = name
    return stub


for _name in ("new", "random", "random_f", "normal", "normal_f", "exponential", "exponential_f",
              "gamma", "gamma_f", "beta", "poisson", "binomial", "next32", "bounded", "interval",
              "pow", "loggam", "py_next32", "py_gauss"):
    globals()[_name] = _compiled_only(_name)
del _name
