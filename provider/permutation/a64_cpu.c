/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which Arm64 kernel a CPU gets: HWCAP_SHA3 says whether the SHA3
 * instructions may run at all (the kernel reports the features common to
 * every core), and the core's identity (MIDR_EL1) says whether they are
 * worth running.  One table of core families holds every exception to
 * "SHA3 kernel where the instructions exist, the scalar one elsewhere".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "keccak_p.h"

/* From the Linux arm64 ABI (asm/hwcap.h), for C libraries without them. */
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1UL << 11)
#endif
#ifndef HWCAP_SHA3
#define HWCAP_SHA3 (1UL << 17)
#endif

typedef struct a64_core {
    unsigned implementer, part; /* MIDR_EL1 bits 31:24 and 15:4; part 0: any */
    const char *kernel;
} a64_core;

/* Cores whose SHA3 instructions issue on fewer pipes than EOR and BIC, so
 * that the scalar kernel, which keeps every integer pipe busy, is faster
 * for one state (a64sha3x2: SHA3 only for two);
 * Apple's, which run them on every SIMD pipe; and the cores on which an
 * EOR or BIC with a rotated operand takes an extra cycle, where rotating
 * each lane once is cheaper than lazy rotation (a64ror), and two states
 * in the Neon pipes beat two on the integer ones (a64neon has both). */
static const a64_core cores[] = {
    {0x41, 0xd07, "a64neon"}, /* Cortex-A57 */
    {0x41, 0xd08, "a64neon"}, /* Cortex-A72 */
    {0x41, 0xd40, "a64sha3x2"}, /* Neoverse V1 */
    {0x41, 0xd4f, "a64sha3x2"}, /* Neoverse V2 */
    {0x41, 0xd84, "a64sha3x2"}, /* Neoverse V3 */
    {0x41, 0xd49, "a64sha3x2"}, /* Neoverse N2 */
    {0x6d, 0xd49, "a64sha3x2"}, /* Azure Cobalt 100 (Neoverse N2) */
    {0x41, 0xd47, "a64sha3x2"}, /* Cortex-A710 */
    {0x41, 0xd48, "a64sha3x2"}, /* Cortex-X2 */
    {0x61, 0, "a64sha3"},     /* Apple */
};

const char *keccak_a64_kernel_for(uint32_t midr, int has_sha3)
{
    unsigned implementer = midr >> 24, part = (midr >> 4) & 0xfff;

    for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++) {
        if (cores[i].implementer != implementer ||
            (cores[i].part != 0 && cores[i].part != part))
            continue;
        if (strncmp(cores[i].kernel, "a64sha3", 7) == 0 && !has_sha3)
            break;
        return cores[i].kernel;
    }
    return has_sha3 ? "a64sha3" : "a64";
}

int keccak_a64_has_sha3(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_SHA3) != 0;
}

/* "CPU implementer" and "CPU part" of the first core listed, as a MIDR. */
static uint32_t midr_from_cpuinfo(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    unsigned long implementer = 0, part = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        if (implementer == 0 && strncmp(line, "CPU implementer", 15) == 0)
            implementer = strtoul(colon + 1, NULL, 0);
        else if (part == 0 && strncmp(line, "CPU part", 8) == 0)
            part = strtoul(colon + 1, NULL, 0);
    }
    fclose(f);
    return (uint32_t)((implementer & 0xff) << 24 | (part & 0xfff) << 4);
}

/* MIDR_EL1 as the kernel emulates it for user space (HWCAP_CPUID), else
 * from /proc/cpuinfo.  KSUM_TEST_MIDR replaces it so that the tests cover
 * the table on any CPU; it cannot choose a kernel the CPU lacks, since
 * HWCAP_SHA3 still decides that. */
static uint32_t cpu_midr(void)
{
    const char *test = getenv("KSUM_TEST_MIDR");
    uint64_t midr;

    if (test != NULL && *test != '\0')
        return (uint32_t)strtoul(test, NULL, 16);
    if (!(getauxval(AT_HWCAP) & HWCAP_CPUID))
        return midr_from_cpuinfo();
    __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
    return (uint32_t)midr;
}

const char *keccak_a64_default(void)
{
    return keccak_a64_kernel_for(cpu_midr(), keccak_a64_has_sha3());
}
