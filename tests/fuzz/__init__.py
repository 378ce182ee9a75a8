"""Differential fuzzing of pyjit's @njit subset.

gen.py writes random, valid programs (int and float arithmetic with Python semantics, control
flow, nested tuples, math functions, array reads and writes, whole-array arithmetic, calls
between compiled functions, bounded recursion, float-to-int conversions at the edges);
harness.py runs each one in CPython and compiled and compares the results; reduce.py shrinks a
program that disagrees; run.py is the long command-line run (python -m tests.fuzz.run).
"""
