/* SPDX-License-Identifier: Apache-2.0 */
#include "algorithms.h"

#include <strings.h>

#define XOF_OPTS TAKES_SIZE
#define FIPS "FIPS 202"
#define SP "SP 800-185"
#define KT "KangarooTwelve family (RFC 9861, ACNS 2018)"
#define PRE "Keccak with pre-FIPS padding"

const algorithm algorithms[] = {
    {"sha3-224", NULL, "SHA3-224", FIPS, 0, 28, 0},
    {"sha3-256", NULL, "SHA3-256", FIPS, 0, 32, 0},
    {"sha3-384", NULL, "SHA3-384", FIPS, 0, 48, 0},
    {"sha3-512", NULL, "SHA3-512", FIPS, 0, 64, 0},
    {"shake128", NULL, "SHAKE128", FIPS, 0, 16, XOF_OPTS},
    {"shake256", NULL, "SHAKE256", FIPS, 0, 32, XOF_OPTS},
    {"rawshake128", NULL, "RAWSHAKE128", FIPS, 0, 16, XOF_OPTS},
    {"rawshake256", NULL, "RAWSHAKE256", FIPS, 0, 32, XOF_OPTS},
    {"cshake128", NULL, "CSHAKE128", SP, 0, 16,
     XOF_OPTS | TAKES_CUSTOM | TAKES_FUNCTION},
    {"cshake256", NULL, "CSHAKE256", SP, 0, 32,
     XOF_OPTS | TAKES_CUSTOM | TAKES_FUNCTION},
    {"kmac128", NULL, "KMAC128", SP, 1, 16,
     XOF_OPTS | TAKES_XOF | TAKES_KEY | TAKES_CUSTOM},
    {"kmac256", NULL, "KMAC256", SP, 1, 32,
     XOF_OPTS | TAKES_XOF | TAKES_KEY | TAKES_CUSTOM},
    {"parallelhash128", NULL, "PARALLELHASH128", SP, 0, 16,
     XOF_OPTS | TAKES_XOF | TAKES_CUSTOM | TAKES_BLOCK | TREE},
    {"parallelhash256", NULL, "PARALLELHASH256", SP, 0, 32,
     XOF_OPTS | TAKES_XOF | TAKES_CUSTOM | TAKES_BLOCK | TREE},
    {"kangarootwelve", "k12", "KANGAROOTWELVE", KT, 0, 16, XOF_OPTS | TAKES_CUSTOM | TREE},
    {"kt128", NULL, "KANGAROOTWELVE", KT, 0, 16, XOF_OPTS | TAKES_CUSTOM | TREE},
    {"kt256", NULL, "KT256", KT, 0, 64, XOF_OPTS | TAKES_CUSTOM | TREE},
    {"marsupilamifourteen", "m14", "MARSUPILAMIFOURTEEN", KT, 0, 32,
     XOF_OPTS | TAKES_CUSTOM | TREE},
    {"turboshake128", NULL, "TURBOSHAKE128", KT, 0, 32, XOF_OPTS | TAKES_DOMAIN},
    {"turboshake256", NULL, "TURBOSHAKE256", KT, 0, 64, XOF_OPTS | TAKES_DOMAIN},
    {"keccak-224", NULL, "KECCAK-224", PRE, 0, 28, 0},
    {"keccak-256", NULL, "KECCAK-256", PRE, 0, 32, 0},
    {"keccak-384", NULL, "KECCAK-384", PRE, 0, 48, 0},
    {"keccak-512", NULL, "KECCAK-512", PRE, 0, 64, 0},
};
const size_t algorithm_count = sizeof algorithms / sizeof algorithms[0];

const algorithm *algorithm_find(const char *name)
{
    for (size_t i = 0; i < algorithm_count; i++) {
        const algorithm *a = &algorithms[i];
        if (strcasecmp(name, a->option) == 0 || strcasecmp(name, a->name) == 0 ||
            (a->alias != NULL && strcasecmp(name, a->alias) == 0))
            return a;
    }
    /* The provider's other aliases. */
    if (strcasecmp(name, "KMAC-128") == 0)
        return algorithm_find("kmac128");
    if (strcasecmp(name, "KMAC-256") == 0)
        return algorithm_find("kmac256");
    return NULL;
}
