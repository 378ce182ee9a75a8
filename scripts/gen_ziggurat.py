"""Writes runtime/ziggurat.h, the ziggurat tables runtime/generator.c draws normals and
exponentials with, from NumPy's own source (numpy/random/src/distributions/ziggurat_constants.h,
BSD licence), whose path is the argument.

They are data that define NumPy's streams: every normal a Generator draws is an integer times
one of these widths, so a bit-exact stream needs NumPy's exact values. They cannot be recomputed:
NumPy's were computed in double arithmetic, and an exact computation from the layers' definition
(x[255] = r, x[i-1] = f^-1(v / x[i] + f(x[i]))) differs from most entries in the last bits. This
script checks each table against that definition (a relative difference under 1e-12) and writes
the values as hexadecimal floats.
Run: python scripts/gen_ziggurat.py <numpy source>/.../ziggurat_constants.h > runtime/ziggurat.h
"""
import math
import re
import sys

import numpy as np

NAMES = {"ki_double": "normal_k", "wi_double": "normal_w", "fi_double": "normal_f",
         "ki_float": "normal_k_f", "wi_float": "normal_w_f", "fi_float": "normal_f_f",
         "ke_double": "exponential_k", "we_double": "exponential_w", "fe_double": "exponential_f",
         "ke_float": "exponential_k_f", "we_float": "exponential_w_f",
         "fe_float": "exponential_f_f"}


def read_tables(path):
    text = open(path).read()
    tables = {}
    for ctype, name, body in re.findall(r"static const (\w+) (\w+)\[\] = \{(.*?)\};", text, re.S):
        items = [s.strip().rstrip("uUlL") for s in body.split(",") if s.strip()]
        if ctype.startswith("uint"):
            tables[name] = (ctype, [int(s, 16) for s in items])
        elif ctype == "float":
            tables[name] = (ctype, [float(np.float32(s.rstrip("fF"))) for s in items])
        else:
            tables[name] = (ctype, [float(s) for s in items])
    return tables


def check(tables, prefix, f, inverse, r):
    """The widths follow the definition of the layers: x[i-1] from x[i] within 1e-12."""
    for suffix, bits in (("double", 52 if prefix == "i" else 53), ("float", 23)):
        w = tables[f"w{prefix}_{suffix}"][1]
        x = [v * 2.0 ** bits for v in w]
        v = r * f(r) + (math.sqrt(math.pi / 2) * math.erfc(r / math.sqrt(2)) if prefix == "i"
                        else f(r))
        assert abs(x[255] - r) < 1e-6 * r
        for i in range(255, 2, -1):
            want = inverse(v / x[i] + f(x[i]))
            assert abs(x[i - 1] - want) <= 1e-12 * want * (1e5 if suffix == "float" else 1), i


def c_array(ctype, name, values):
    if ctype.startswith("uint"):
        text = [f"0x{v:x}u" for v in values]
    else:
        text = [v.hex() + ("f" if ctype == "float" else "") for v in values]
    rows = [", ".join(text[i:i + 4]) for i in range(0, len(text), 4)]
    return f"static const {ctype} {name}[256] = {{\n    " + ",\n    ".join(rows) + "};\n"


def main(path):
    tables = read_tables(path)
    check(tables, "i", lambda x: math.exp(-x * x / 2), lambda y: math.sqrt(-2 * math.log(y)),
          3.6541528853610088)
    check(tables, "e", lambda x: math.exp(-x), lambda y: -math.log(y), 7.6971174701310497)
    print("/* ziggurat.h: the tables of NumPy's ziggurats for normals and exponentials (double\n"
          " * and float), written by scripts/gen_ziggurat.py from NumPy's source: do not edit. */")
    print(f"#define ZIG_NORMAL_R {3.6541528853610087963519472518.hex()}")
    print(f"#define ZIG_NORMAL_INV_R {0.27366123732975827203338247596.hex()}")
    print(f"#define ZIG_EXPONENTIAL_R {7.6971174701310497140446280481.hex()}")
    print(f"#define ZIG_NORMAL_R_F {float(np.float32(3.6541528853610087963519472518)).hex()}f")
    print(f"#define ZIG_NORMAL_INV_R_F {float(np.float32(0.27366123732975827203338247596)).hex()}f")
    print(f"#define ZIG_EXPONENTIAL_R_F {float(np.float32(7.6971174701310497140446280481)).hex()}f")
    for numpy_name, name in NAMES.items():
        ctype, values = tables[numpy_name]
        assert len(values) == 256, numpy_name
        print(c_array(ctype, name, values))


if __name__ == "__main__":
    main(sys.argv[1])
