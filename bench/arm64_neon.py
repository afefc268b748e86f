# SPDX-License-Identifier: Apache-2.0
"""Prints rounds of a two-state Neon Keccak-p[1600] without the SHA3
instructions (SHL and SRI for each rotation, BIC and EOR for chi), for
llvm-mca only (bench/arm64.sh): a proxy to judge whether such a kernel, or
one interleaved with the scalar kernel, could pay on cores without SHA3.
It is not a kernel of the library, and is not run on data.

Usage: python3 arm64_neon.py ROUNDS
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "provider", "permutation"))
from a64_gen import RHO  # noqa: E402

VREGS = ["v%d" % i for i in range(32)]


def rounds(n):
    out, loc, free = [], VREGS[:25], VREGS[25:]
    for _ in range(n):
        c = []
        for x in range(5):
            reg = free.pop(0)
            out.append("eor %s.16b, %s.16b, %s.16b" % (reg, loc[x], loc[x + 5]))
            for y in range(2, 5):
                out.append("eor %s.16b, %s.16b, %s.16b" % (reg, reg, loc[x + 5 * y]))
            c.append(reg)
        t = free[0]
        for x in range(5):
            out.append("shl %s.2d, %s.2d, #1" % (t, c[(x + 1) % 5]))
            out.append("sri %s.2d, %s.2d, #63" % (t, c[(x + 1) % 5]))
            out.append("eor %s.16b, %s.16b, %s.16b" % (t, t, c[(x + 4) % 5]))
            for y in range(5):
                out.append("eor %s.16b, %s.16b, %s.16b" % (loc[x + 5 * y], loc[x + 5 * y], t))
        free += c
        b = [None] * 25
        for i in range(25):
            x, y = i % 5, i // 5
            reg = loc[i]
            if RHO[i]:
                reg = free.pop(0)
                out.append("shl %s.2d, %s.2d, #%d" % (reg, loc[i], RHO[i]))
                out.append("sri %s.2d, %s.2d, #%d" % (reg, loc[i], 64 - RHO[i]))
                free.append(loc[i])
            b[y + 5 * ((2 * x + 3 * y) % 5)] = reg
        new = [None] * 25
        for y in range(5):
            row = b[5 * y:5 * y + 5]
            for x in range(5):
                reg = free.pop(0)
                out.append("bic %s.16b, %s.16b, %s.16b" % (reg, row[(x + 2) % 5], row[(x + 1) % 5]))
                out.append("eor %s.16b, %s.16b, %s.16b" % (reg, reg, row[x]))
                new[x + 5 * y] = reg
            free += row
        out.append("ld1r {%s.2d}, [x9], #8" % free[0])
        out.append("eor %s.16b, %s.16b, %s.16b" % (new[0], new[0], free[0]))
        loc = new
    return out


if __name__ == "__main__":
    print("\n".join("\t" + line for line in rounds(int(sys.argv[1]))))
