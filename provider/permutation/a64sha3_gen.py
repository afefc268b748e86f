# SPDX-License-Identifier: Apache-2.0
"""Writes a64sha3.S, the Arm64 Keccak-p[1600] kernels with the SHA3
instructions (EOR3, RAX1, XAR, BCAX): one state in the low halves of 25
vector registers, or two states, one per half, for the same instructions.

The 24 rounds are unrolled and their registers allocated here, so that no
round moves a register: each output of chi goes to a free register (its
lane's home when it is free), and the state is put back in its home
registers once a block.  Keccak-p[1600, n] enters at round 24 - n, after
moving the lanes to where that round expects them.

The same skeleton with rounds of plain Neon (SHL and SRI for rotations)
gives the two-state kernel for cores without SHA3.

Usage: python3 a64sha3_gen.py > a64sha3.S
       python3 a64sha3_gen.py neon > a64neon.S
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from a64_gen import RC, RHO, xor_chain  # noqa: E402

VREGS = ["v%d" % i for i in range(32)]
HOME = VREGS[:25]


class Rounds:
    """The 24 rounds; mapping[k] is where each lane is when round k starts."""

    def __init__(self):
        self.out = []
        self.loc = list(HOME)
        self.free = VREGS[25:]
        self.mapping = []

    def emit(self, s):
        self.out.append("\t" + s)

    def take(self, prefer=None):
        reg = prefer if prefer in self.free else self.free[0]
        self.free.remove(reg)
        return reg

    def round(self, k):
        self.mapping.append(list(self.loc))
        if k % 2 == 0:
            self.out.append("%%(prefix)sr%d:" % k)
        a = self.loc
        c = []
        for x in range(5):
            reg = self.take()
            self.emit("eor3 %s.16b, %s.16b, %s.16b, %s.16b" % (reg, a[x], a[x + 5], a[x + 10]))
            self.emit("eor3 %s.16b, %s.16b, %s.16b, %s.16b" % (reg, reg, a[x + 15], a[x + 20]))
            c.append(reg)
        e = self.take()
        # D[x] = C[x-1] ^ ROL(C[x+1], 1), five of them from six registers
        steps = [(e, 4, 1), (c[4], 2, 4), (c[1], 1, 3), (c[3], 3, 0), (c[0], 0, 2)]
        for dst, p, q in steps:
            self.emit("rax1 %s.2d, %s.2d, %s.2d" % (dst, c[p], c[q]))
        d = [e, c[0], c[1], c[4], c[3]]
        self.free.append(c[2])
        b = [None] * 25
        for i in range(25):
            x, y = i % 5, i // 5
            if RHO[i] == 0:
                self.emit("eor %s.16b, %s.16b, %s.16b" % (a[i], a[i], d[x]))
            else:
                self.emit("xar %s.2d, %s.2d, %s.2d, #%d" % (a[i], a[i], d[x], 64 - RHO[i]))
            b[y + 5 * ((2 * x + 3 * y) % 5)] = a[i]
        self.free += d
        new = [None] * 25
        for y in range(5):
            row = b[5 * y:5 * y + 5]
            for x in range(5):
                reg = self.take(HOME[x + 5 * y])
                self.emit("bcax %s.16b, %s.16b, %s.16b, %s.16b"
                          % (reg, row[x], row[(x + 2) % 5], row[(x + 1) % 5]))
                new[x + 5 * y] = reg
            self.free += row
        t = self.free[0]
        self.emit("ld1r {%s.2d}, [x9], #8" % t)
        self.emit("eor %s.16b, %s.16b, %s.16b" % (new[0], new[0], t))
        self.loc = new

    def generate(self):
        for k in range(24):
            self.round(k)
        self.mapping.append(list(self.loc))
        return self.out


class NeonRounds(Rounds):
    """The same rounds without the SHA3 instructions: a rotation is SHL and
    SRI into a free register, chi is BIC and EOR."""

    def round(self, k):
        self.mapping.append(list(self.loc))
        if k % 2 == 0:
            self.out.append("%%(prefix)sr%d:" % k)
        a = self.loc
        c = [self.take() for _ in range(5)]
        for y in range(1, 5):
            for x in range(5):
                src = a[x] if y == 1 else c[x]
                self.emit("eor %s.16b, %s.16b, %s.16b" % (c[x], src, a[x + 5 * y]))
        t = self.take()
        for x in range(5):
            self.emit("shl %s.2d, %s.2d, #1" % (t, c[(x + 1) % 5]))
            self.emit("sri %s.2d, %s.2d, #63" % (t, c[(x + 1) % 5]))
            self.emit("eor %s.16b, %s.16b, %s.16b" % (t, t, c[(x + 4) % 5]))
            for y in range(5):
                self.emit("eor %s.16b, %s.16b, %s.16b" % (a[x + 5 * y], a[x + 5 * y], t))
        self.free += c + [t]
        b = [None] * 25
        for i in range(25):
            x, y = i % 5, i // 5
            reg = a[i]
            if RHO[i]:
                reg = self.take()
                self.emit("shl %s.2d, %s.2d, #%d" % (reg, a[i], RHO[i]))
                self.emit("sri %s.2d, %s.2d, #%d" % (reg, a[i], 64 - RHO[i]))
                self.free.append(a[i])
            b[y + 5 * ((2 * x + 3 * y) % 5)] = reg
        new = [None] * 25
        for y in range(5):
            row = b[5 * y:5 * y + 5]
            regs = [self.take(HOME[x + 5 * y]) for x in range(5)]
            for x in range(5):
                self.emit("bic %s.16b, %s.16b, %s.16b" % (regs[x], row[(x + 2) % 5], row[(x + 1) % 5]))
            for x in range(5):
                self.emit("eor %s.16b, %s.16b, %s.16b" % (regs[x], regs[x], row[x]))
                new[x + 5 * y] = regs[x]
            self.free += row
        t = self.free[0]
        self.emit("ld1r {%s.2d}, [x9], #8" % t)
        self.emit("eor %s.16b, %s.16b, %s.16b" % (new[0], new[0], t))
        self.loc = new


def rounds_remap(src, dst, pool, move):
    """Moves that take lane i from register src[i] to dst[i], all at once;
    a cycle goes through a free register."""
    out, cur = [], list(src)
    todo = [i for i in range(25) if cur[i] != dst[i]]
    while todo:
        busy = set(cur)
        ready = [i for i in todo if dst[i] not in busy]
        if not ready:
            i = todo[0]
            spare = [r for r in pool if r not in busy]
            t = next((r for r in spare if r not in dst), spare[0])
            out.append(move(t, cur[i]))
            cur[i] = t
            continue
        for i in ready:
            out.append(move(dst[i], cur[i]))
            cur[i] = dst[i]
            todo.remove(i)
    return out


def vmove(dst, src):
    return "\tmov %s.16b, %s.16b" % (dst, src)


def load_state(two):
    out = []
    for i in range(0, 24, 2):
        out.append("\tldp d%d, d%d, [x0, #%d]" % (i, i + 1, 8 * i))
    out.append("\tldr d24, [x0, #192]")
    if two:
        out.append("\tmov x10, x1")
        out += ["\tld1 {v%d.d}[1], [x10], #8" % i for i in range(25)]
    return out


def store_state(two):
    out = []
    for i in range(0, 24, 2):
        out.append("\tstp d%d, d%d, [x0, #%d]" % (i, i + 1, 8 * i))
    out.append("\tstr d24, [x0, #192]")
    if two:
        out.append("\tmov x10, x1")
        out += ["\tst1 {v%d.d}[1], [x10], #8" % i for i in range(25)]
    return out


def xor_input(two, p):
    """XOR x3 words (1 to 24) from x4 (and x5) into lanes 0.. at home."""
    def lane(i):
        code = ["\tldr d31, [x4, #%d]" % (8 * i)]
        if two:
            code += ["\tldr d30, [x5, #%d]" % (8 * i), "\tmov v31.d[1], v30.d[0]"]
        return code + ["\teor v%d.16b, v%d.16b, v31.16b" % (i, i)]
    out = xor_chain("x3", lane, p + "x")
    out.append("\tadd x4, x4, x3, lsl #3")
    if two:
        out.append("\tadd x5, x5, x3, lsl #3")
    return out


def kernel(name, two, rounds, mapping):
    p = ".L%s_" % name
    out = ["", "\t.p2align 4", "\t.globl %s" % name, "\t.hidden %s" % name,
           "\t.type %s, %%function" % name, "%s:" % name, "\tBTI_C",
           "\tstp d8, d9, [sp, #-64]!", "\tstp d10, d11, [sp, #16]",
           "\tstp d12, d13, [sp, #32]", "\tstp d14, d15, [sp, #48]",
           "\tmov w2, w2", "\tmov w3, w3"]
    out += load_state(two)
    out += ["%sblock:" % p, "\tcbz x3, %sperm" % p]
    out += xor_input(two, p)
    out += ["%sperm:" % p, "\tadrp x9, .Lrc", "\tadd x9, x9, :lo12:.Lrc",
            "\tmov x10, #24", "\tsub x10, x10, x2", "\tadd x9, x9, x10, lsl #3",
            "\tcmp x2, #24", "\tb.eq %sr0" % p]
    for n in [12] + [n for n in range(22, 0, -2) if n != 12]:
        out += ["\tcmp x2, #%d" % n, "\tb.eq %se%d" % (p, 24 - n)]
    out.append("\tb %sr0" % p)
    for k in range(2, 24, 2):
        out.append("%se%d:" % (p, k))
        out += rounds_remap(HOME, mapping[k], VREGS, vmove)
        out.append("\tb %sr%d" % (p, k))
    out += [line % {"prefix": p} if "%(prefix)s" in line else line for line in rounds]
    out += rounds_remap(mapping[24], HOME, VREGS, vmove)
    out += ["\tsubs x6, x6, #1", "\tb.ne %sblock" % p]
    out += store_state(two)
    out += ["\tldp d10, d11, [sp, #16]", "\tldp d12, d13, [sp, #32]",
            "\tldp d14, d15, [sp, #48]", "\tldp d8, d9, [sp], #64", "\tret",
            "\t.size %s, .-%s" % (name, name)]
    return out


HEADER = """/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Generated by a64sha3_gen.py: Keccak-p[1600] with the Armv8.2 SHA3
 * instructions, lane x + 5y in v(x + 5y) between blocks.
 *
 * void keccak_a64_sha3_x1(uint64_t st[25], uint64_t *unused, unsigned rounds,
 *                         unsigned lanes, const uint8_t *in, const uint8_t
 *                         *unused2, size_t nblocks);
 * void keccak_a64_sha3_x2(uint64_t st0[25], uint64_t st1[25], unsigned rounds,
 *                         unsigned lanes, const uint8_t *in0,
 *                         const uint8_t *in1, size_t nblocks);
 * For each of nblocks blocks: XOR `lanes` words (0 to 24; 0 reads nothing)
 * of each input into its state, then Keccak-p[1600, rounds] (rounds even,
 * 2 to 24).  x1 keeps its state in the low halves, x2 one state per half.
 */
#if defined(__aarch64__) && !defined(__AARCH64EB__)
\t.arch armv8.2-a+sha3

/* A landing pad for indirect calls when the build asks for BTI, and the
 * note that tells the linker so.  No return address is saved. */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT == 1
#define BTI_C hint #34
#define PROP_BTI 1
#else
#define BTI_C
#define PROP_BTI 0
#endif
#if defined(__ARM_FEATURE_PAC_DEFAULT)
#define PROP_PAC 2
#else
#define PROP_PAC 0
#endif

\t.section .rodata
\t.p2align 3
.Lrc:"""

NEON_FROM = HEADER[HEADER.index(" * Generated"):HEADER.index(" */\n#if")]
NEON_TO = """ * Generated by a64sha3_gen.py neon: two Keccak-p[1600] states, one per
 * 64-bit half of v(x + 5y) between blocks, with Armv8.0 Neon only (SHL and
 * SRI rotate).
 *
 * void keccak_a64_neon_x2(uint64_t st0[25], uint64_t st1[25], unsigned rounds,
 *                         unsigned lanes, const uint8_t *in0,
 *                         const uint8_t *in1, size_t nblocks);
 * As keccak_a64_sha3_x2 (a64sha3.S).
"""

FOOTER = """
#if PROP_BTI || PROP_PAC
\t.pushsection .note.gnu.property, "a"
\t.p2align 3
\t.word 4, 16, 5
\t.asciz "GNU"
\t.word 0xc0000000, 4, PROP_BTI | PROP_PAC, 0
\t.popsection
#endif
#endif

#if defined(__linux__) && defined(__ELF__)
\t.section .note.GNU-stack, "", %progbits
#endif"""


def main():
    neon = sys.argv[1:] == ["neon"]
    r = NeonRounds() if neon else Rounds()
    rounds = r.generate()
    header = HEADER.replace("\\t", "\t")
    if neon:
        header = header.replace(NEON_FROM, NEON_TO).replace("\t.arch armv8.2-a+sha3\n", "")
    out = [header]
    out += ["\t.quad 0x%016x" % c for c in RC]
    out += ["", "\t.text"]
    if neon:
        out += kernel("keccak_a64_neon_x2", True, rounds, r.mapping)
    else:
        out += kernel("keccak_a64_sha3_x1", False, rounds, r.mapping)
        out += kernel("keccak_a64_sha3_x2", True, rounds, r.mapping)
    out.append(FOOTER.replace("\\t", "\t"))
    print("\n".join(out))


if __name__ == "__main__":
    main()
