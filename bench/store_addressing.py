"""Insertion sort's inner loop in x86-64 assembly, assembled and timed in three forms that differ
only in how the store `b[j + 1] = b[j]` is addressed: base + 8 * index, the same with a zero
displacement (what any store based on r13 or rbp must carry), and base + 8 * index + 8.

The checked insertion sort of bench/realworld.py compiled to Numba's inner loop instruction for
instruction but for its array pointer, which the register allocator put in r13 while the error
record's pointer held a register (lower.c: exc_record), so its store carried `0x0(...)`. On AMD
Zen 3 that form runs the loop 1.3-1.45x slower, wherever the loop is placed; this script shows
whether a machine does the same. Needs a C compiler and an x86-64 host.

    python bench/store_addressing.py
"""
import os
import platform
import subprocess
import sys
import tempfile

FORMS = {   # name -> the store, with r15 the array and r14 = r15 - 8
    "base+8*index": "vmovsd %xmm1, (%r15,%rsi,8)",
    "base+8*index+0": "{disp8} vmovsd %xmm1, (%r15,%rsi,8)",
    "base+8*index+8": "vmovsd %xmm1, 8(%r14,%rsi,8)",
}

SORT = """
    .globl {name}
    .p2align 6
{name}:                           # void {name}(double *b, long n)
    push %r12
    push %r14
    push %r15
    mov %rdi, %r15
    lea -8(%rdi), %r14
    mov %rsi, %r12
    mov $1, %rax
1:  vmovsd -8(%r15,%rax,8), %xmm1
    vmovsd (%r15,%rax,8), %xmm0   # key = b[i]
    mov %rax, %rdx
    mov %rax, %rsi
    vucomisd %xmm0, %xmm1
    jbe 4f
    .p2align 6
2:  lea -1(%rsi), %rdx           # while j >= 0 and b[j] > key
    {store}
    test %rdx, %rdx
    jle 3f
    vmovsd -16(%r15,%rsi,8), %xmm1
    mov %rdx, %rsi
    vucomisd %xmm0, %xmm1
    ja 2b
    jmp 4f
3:  xor %edx, %edx
4:  vmovsd %xmm0, (%r15,%rdx,8)   # b[j + 1] = key
    inc %rax
    cmp %r12, %rax
    jne 1b
    pop %r15
    pop %r14
    pop %r12
    ret
"""

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
%(decls)s
static void (*sorts[])(double *, long) = {%(names)s};
static const char *labels[] = {%(labels)s};
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void)
{
    enum { N = 4000, K = sizeof sorts / sizeof *sorts };
    static double a[N], b[N], best[K];
    srand(1);
    for (int i = 0; i < N; i++)
        a[i] = rand() / (double)RAND_MAX;
    for (int k = 0; k < K; k++)
        best[k] = 1e9;
    for (int r = 0; r < 40; r++)          /* interleaved, least of 40 */
        for (int k = 0; k < K; k++) {
            memcpy(b, a, sizeof b);
            double t = now();
            sorts[k](b, N);
            t = now() - t;
            best[k] = t < best[k] ? t : best[k];
            for (int i = 1; i < N; i++)
                if (b[i] < b[i - 1])
                    return puts("not sorted"), 1;
        }
    for (int k = 0; k < K; k++)
        printf("%%-16s %%.3f ms  %%.2fx\n", labels[k], best[k] * 1e3, best[k] / best[0]);
    return 0;
}
"""


def main():
    if platform.machine() not in ("x86_64", "AMD64"):
        print("needs an x86-64 host")
        return 0
    names = [f"sort{i}" for i in range(len(FORMS))]
    asm = ".text\n" + "".join(SORT.format(name=n, store=s) for n, s in zip(names, FORMS.values()))
    asm += '.section .note.GNU-stack,"",@progbits\n'
    main_c = MAIN % {"decls": "".join(f"void {n}(double *, long);\n" for n in names),
                     "names": ", ".join(names), "labels": ", ".join(f'"{k}"' for k in FORMS)}
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, f) for f in ("sort.S", "main.c", "bench")]
        for path, text in zip(paths, (asm, main_c)):
            with open(path, "w") as f:
                f.write(text)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", paths[1], paths[0], "-o", paths[2]], check=True)
        return subprocess.run([paths[2]]).returncode


if __name__ == "__main__":
    sys.exit(main())
