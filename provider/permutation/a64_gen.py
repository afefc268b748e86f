# SPDX-License-Identifier: Apache-2.0
"""Writes a64_scalar.S, the Arm64 scalar Keccak-p[1600] kernel.

Lazy rotation: a lane is kept un-rotated and its pending left rotation is
tracked here, at generation time; every later use rotates it through the
second operand of an EOR or BIC, which AArch64 shifts for free.  Registers
are allocated here too (25 lanes and 5 temporaries fill the 30 usable
registers; x18 is never touched): compilers spill such code.  A block of
rounds starts and ends with each lane in its home register, unrotated, so
blocks of rounds loop.  The same generator writes a variant that rotates
most lanes explicitly, for cores whose shifted operands are slow.

Usage: python3 a64_gen.py > a64_scalar.S
"""

RHO = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39,
       41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
RC = [0x0000000000000001, 0x0000000000008082, 0x800000000000808a,
      0x8000000080008000, 0x000000000000808b, 0x0000000080000001,
      0x8000000080008081, 0x8000000000008009, 0x000000000000008a,
      0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
      0x000000008000808b, 0x800000000000008b, 0x8000000000008089,
      0x8000000000008003, 0x8000000000008002, 0x8000000000000080,
      0x000000000000800a, 0x800000008000000a, 0x8000000080008081,
      0x8000000000008080, 0x0000000080000001, 0x8000000080008008]

# The lanes (by index before pi) that a64ror leaves lazy.  On Cortex-A57
# class cores a ROR is two micro-ops (one integer pipe, one M pipe) while an
# EOR or BIC with a rotated operand is one, on the M pipe alone: rotating
# every lane crowds the two integer pipes, rotating none the M pipe.  This
# set, found by searching llvm-mca's cortex-a57 model, balances the three.
ROR_LAZY = {2, 3, 4, 8, 9, 10, 14, 16}

POOL = ["x%d" % i for i in range(18)] + ["x%d" % i for i in range(19, 31)]
HOME = POOL[:25]

# Stack frame: callee-saved pairs at 0..95, then the arguments and the
# round-constant pointer, and one slot for the lane parked during theta.
ST, ROUNDS, LANES, IN, NBLOCKS, RCP, SPILL, FRAME = 96, 104, 112, 120, 128, 136, 144, 160


def sh(k):
    """The shifted-operand suffix that rotates left by k."""
    k %= 64
    return "" if k == 0 else ", ror #%d" % (64 - k)


class Block:
    """One block of rounds: emits code, tracks (register, rotation) per lane."""

    def __init__(self, out, lazy):
        self.out = out
        # lazy: True (every lane), False (none), or the lanes kept lazy
        self.lazy = set(range(25)) if lazy is True else set(lazy or ())
        self.loc = [(HOME[i], 0) for i in range(25)]
        self.free = POOL[25:]

    def emit(self, s):
        self.out.append("\t" + s)

    def alloc(self, prefer=None):
        reg = prefer if prefer in self.free else self.free[0]
        self.free.remove(reg)
        return reg

    def theta(self):
        # The five parity chains interleaved, for in-order cores.
        c = [[self.alloc(), self.loc[x][1]] for x in range(5)]
        for y in range(1, 5):
            for x in range(5):
                reg, o0 = c[x]
                ry, oy = self.loc[x + 5 * y]
                src = self.loc[x][0] if y == 1 else reg
                self.emit("eor %s, %s, %s%s" % (reg, src, ry, sh(oy - o0)))
        # One more register is needed to turn the parities into the five
        # D values in place: park lane 24 meanwhile.
        parked, po = self.loc[24]
        self.emit("str %s, [sp, #%d]" % (parked, SPILL))
        e = parked

        def d_into(dst, a, b):
            # dst = C[a] ^ ROL(C[b], 1), with C[a]'s pending rotation
            self.emit("eor %s, %s, %s%s" % (dst, c[a][0], c[b][0],
                                            sh(c[b][1] + 1 - c[a][1])))
            return [dst, c[a][1]]

        d = [None] * 5
        d[0] = d_into(e, 4, 1)
        d[3] = d_into(c[4][0], 2, 4)
        d[2] = d_into(c[1][0], 1, 3)
        d[4] = d_into(c[3][0], 3, 0)
        d[1] = d_into(c[0][0], 0, 2)
        spare = c[2][0]
        self.emit("ldr %s, [sp, #%d]" % (spare, SPILL))
        self.loc[24] = (spare, po)
        for i in range(25):
            r, o = self.loc[i]
            dr, do = d[i % 5]
            self.emit("eor %s, %s, %s%s" % (r, r, dr, sh(do - o)))
        self.free = [dd[0] for dd in d]

    def chi(self):
        b = [None] * 25
        for i in range(25):
            x, y = i % 5, i // 5
            r, o = self.loc[i]
            o = (o + RHO[i]) % 64
            if o and i not in self.lazy:
                self.emit("ror %s, %s, #%d" % (r, r, 64 - o))
                o = 0
            b[y + 5 * ((2 * x + 3 * y) % 5)] = (r, o)
        # Each row's five BICs, then its five EORs, for in-order cores.
        new = [None] * 25
        for y in range(5):
            row = [b[x + 5 * y] for x in range(5)]
            regs = [self.alloc(HOME[x + 5 * y]) for x in range(5)]
            for x in range(5):
                (r1, o1), (r2, o2) = row[(x + 1) % 5], row[(x + 2) % 5]
                self.emit("bic %s, %s, %s%s" % (regs[x], r2, r1, sh(o1 - o2)))
            for x in range(5):
                (r0, o0), (r2, o2) = row[x], row[(x + 2) % 5]
                reg = regs[x]
                if o2 == 0:
                    self.emit("eor %s, %s, %s%s" % (reg, reg, r0, sh(o0 - o2)))
                    new[x + 5 * y] = (reg, o2)
                else:
                    self.emit("eor %s, %s, %s%s" % (reg, r0, reg, sh(o2 - o0)))
                    new[x + 5 * y] = (reg, o0)
            self.free += [r for r, _ in row]
        self.loc = new

    def iota(self, r):
        t = self.free[0]
        reg, o = self.loc[0]
        self.emit("ldr %s, [sp, #%d]" % (t, RCP))
        self.emit("ldr %s, [%s, #%d]" % (t, t, 8 * r))
        # v' = v ^ ROR(rc, o), so that ROL(v', o) = ROL(v, o) ^ rc
        self.emit("eor %s, %s, %s%s" % (reg, reg, t, sh(-o)))

    def home(self):
        """Every lane back to its home register with no rotation pending."""
        todo = [i for i in range(25) if self.loc[i] != (HOME[i], 0)]
        while todo:
            busy = {self.loc[i][0] for i in range(25)}
            ready = [i for i in todo if HOME[i] not in busy or self.loc[i][0] == HOME[i]]
            if not ready:
                i = todo[0]
                r, o = self.loc[i]
                t = next(p for p in POOL[25:] + HOME if p not in busy)
                self.emit("ror %s, %s, #%d" % (t, r, (64 - o) % 64)
                          if o else "mov %s, %s" % (t, r))
                self.loc[i] = (t, 0)
                continue
            for i in ready:
                r, o = self.loc[i]
                if o:
                    self.emit("ror %s, %s, #%d" % (HOME[i], r, (64 - o) % 64))
                else:
                    self.emit("mov %s, %s" % (HOME[i], r))
                self.loc[i] = (HOME[i], 0)
                todo.remove(i)
        self.free = POOL[25:]


def rounds_block(n, lazy):
    out = []
    blk = Block(out, lazy)
    for r in range(n):
        blk.theta()
        blk.chi()
        blk.iota(r)
    blk.home()
    t = POOL[25]
    out.append("\tldr %s, [sp, #%d]" % (t, RCP))
    out.append("\tadd %s, %s, #%d" % (t, t, 8 * n))
    out.append("\tstr %s, [sp, #%d]" % (t, RCP))
    return out


def xor_chain(count, lane, label):
    """Code XORing `count` words (a register, 1 to 24) into the state, lane(i)
    being the code for word i: the common rates run straight through 9 or
    17 words and test only the words past them; labels start with label."""
    tiers = [17, 9, 1]
    out = []
    for t in tiers[:-1]:
        out += ["\tcmp %s, #%d" % (count, t), "\tb.hs %s%d" % (label, t)]
    for k in reversed(range(len(tiers))):
        t, top = tiers[k], 24 if k == 0 else tiers[k - 1]
        out.append("%s%d:" % (label, t))
        for i in range(top):
            if i >= t:
                out += ["\tcmp %s, #%d" % (count, i), "\tb.ls %sdone" % label]
            out += lane(i)
        out.append("\tb %sdone" % label)
    out.append("%sdone:" % label)
    return out


def xor_input(name):
    """XOR the block's lanes (x27 of them, 1 to 24) from x26 into the state."""
    out = xor_chain("x27", lambda i: ["\tldr x28, [x26, #%d]" % (8 * i),
                                      "\teor %s, %s, x28" % (HOME[i], HOME[i])],
                    ".L%s_x" % name)
    return out + ["\tadd x26, x26, x27, lsl #3", "\tstr x26, [sp, #%d]" % IN]


def pairs(op, base, regs, offset=0):
    out = []
    for k in range(0, len(regs) - 1, 2):
        out.append("\t%s %s, %s, [%s, #%d]" % (op, regs[k], regs[k + 1], base, offset + 8 * k))
    if len(regs) % 2:
        out.append("\t%s %s, [%s, #%d]" % (op[:-1] + "r" if op == "ldp" else "str",
                                           regs[-1], base, offset + 8 * (len(regs) - 1)))
    return out


HEADER = r"""/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Generated by a64_gen.py: the Arm64 scalar Keccak-p[1600] kernel with lazy
 * rotation, the 25 lanes in x0-x17 and x19-x25 (x18, the platform register,
 * is never touched), x26-x30 for the parities and chi.
 *
 * void keccak_a64_scalar(uint64_t st[25], unsigned rounds, unsigned lanes,
 *                        const uint8_t *in, size_t nblocks);
 * keccak_a64_scalar_ror: the same with an explicit ROR for most lanes a
 * round, for cores where a shifted operand costs an extra cycle.
 * For each of nblocks blocks: XOR `lanes` words of in (0 to 24; 0 reads
 * nothing) into the state, then Keccak-p[1600, rounds] (rounds even, 2 to
 * 24).  The state stays in registers from block to block.
 */
#if defined(__aarch64__) && !defined(__AARCH64EB__)

/* Branch protection: a landing pad for indirect calls, the return address
 * signed while it is on the stack, and the note that tells the linker so. */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT == 1
#define BTI_C hint #34
#define PROP_BTI 1
#else
#define BTI_C
#define PROP_BTI 0
#endif
#if defined(__ARM_FEATURE_PAC_DEFAULT) && (__ARM_FEATURE_PAC_DEFAULT & 1)
#define SIGN_LR hint #25
#define AUTH_LR hint #29
#define PROP_PAC 2
#elif defined(__ARM_FEATURE_PAC_DEFAULT) && (__ARM_FEATURE_PAC_DEFAULT & 2)
#define SIGN_LR hint #27
#define AUTH_LR hint #31
#define PROP_PAC 2
#else
#define SIGN_LR
#define AUTH_LR
#define PROP_PAC 0
#endif

\t.section .rodata
\t.p2align 3
.Lrc:
"""


def kernel(name, lazy):
    """One function: see the header; blocks of 2, 4 and 8 rounds."""
    out = ["", "\t.p2align 4", "\t.globl %s" % name, "\t.hidden %s" % name,
           "\t.type %s, %%function" % name, "%s:" % name,
           "\tBTI_C", "\tSIGN_LR", "\tsub sp, sp, #%d" % FRAME]
    saved = ["x%d" % i for i in range(19, 31)]
    out += pairs("stp", "sp", saved)
    out += ["\tmov w1, w1", "\tmov w2, w2",
            "\tstp x0, x1, [sp, #%d]" % ST, "\tstp x2, x3, [sp, #%d]" % LANES,
            "\tstr x4, [sp, #%d]" % NBLOCKS, "\tmov x26, x0"]
    out += pairs("ldp", "x26", HOME)
    out += ["1:", "\tldp x27, x26, [sp, #%d]" % LANES, "\tcbz x27, 4f"]
    out += xor_input(name)
    out += ["4:", "\tldr x27, [sp, #%d]" % ROUNDS,
            "\tadrp x26, .Lrc", "\tadd x26, x26, :lo12:.Lrc",
            "\tmov x28, #24", "\tsub x28, x28, x27", "\tadd x26, x26, x28, lsl #3",
            "\tstr x26, [sp, #%d]" % RCP, "\ttbz x27, #1, 5f"]
    out += rounds_block(2, lazy)
    out += ["\tldr x27, [sp, #%d]" % ROUNDS, "5:", "\ttbz x27, #2, 6f"]
    out += rounds_block(4, lazy)
    out += ["6:", "\tadrp x27, .Lrc", "\tadd x27, x27, :lo12:.Lrc", "\tadd x27, x27, #192",
            "\tcmp x26, x27", "\tb.hs 7f"]
    out += rounds_block(8, lazy)
    out += ["\tb 6b", "7:",
            "\tldr x27, [sp, #%d]" % NBLOCKS, "\tsubs x27, x27, #1",
            "\tstr x27, [sp, #%d]" % NBLOCKS, "\tb.ne 1b",
            "\tldr x26, [sp, #%d]" % ST]
    out += pairs("stp", "x26", HOME)
    out += pairs("ldp", "sp", saved)
    out += ["\tadd sp, sp, #%d" % FRAME, "\tAUTH_LR", "\tret",
            "\t.size %s, .-%s" % (name, name)]
    return out


def main():
    out = [HEADER.replace("\\t", "\t").rstrip("\n")]
    out += ["\t.quad 0x%016x" % c for c in RC]
    out += ["", "\t.text"]
    out += kernel("keccak_a64_scalar", True)
    out += kernel("keccak_a64_scalar_ror", ROR_LAZY)
    out += ["",
            "#if PROP_BTI || PROP_PAC",
            "\t.pushsection .note.gnu.property, \"a\"",
            "\t.p2align 3",
            "\t.word 4, 16, 5",          # name size, descriptor size, NT_GNU_PROPERTY_TYPE_0
            "\t.asciz \"GNU\"",
            "\t.word 0xc0000000, 4, PROP_BTI | PROP_PAC, 0",  # FEATURE_1_AND
            "\t.popsection",
            "#endif",
            "#endif",
            "",
            "#if defined(__linux__) && defined(__ELF__)",
            "\t.section .note.GNU-stack, \"\", %progbits",
            "#endif"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
