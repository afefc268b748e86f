/* SPDX-License-Identifier: Apache-2.0 */
#include "front/algorithms.h"

#include <ctype.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/messages.h"
#include "ksumprov.h"

#define PROPS "provider=" KSUMPROV_NAME
#define FIPS "FIPS 202"
#define SP "SP 800-185"
#define KT "KangarooTwelve family (RFC 9861, ACNS 2018)"
#define PRE "Keccak with pre-FIPS padding"

const algorithm algorithms[] = {
    {.option = "sha3-224", .name = "SHA3-224", .group = FIPS},
    {.option = "sha3-256", .name = "SHA3-256", .group = FIPS},
    {.option = "sha3-384", .name = "SHA3-384", .group = FIPS},
    {.option = "sha3-512", .name = "SHA3-512", .group = FIPS},
    {.option = "shake128", .name = "SHAKE128", .group = FIPS},
    {.option = "shake256", .name = "SHAKE256", .group = FIPS},
    {.option = "rawshake128", .name = "RAWSHAKE128", .group = FIPS},
    {.option = "rawshake256", .name = "RAWSHAKE256", .group = FIPS},
    {.option = "cshake128", .name = "CSHAKE128", .group = SP},
    {.option = "cshake256", .name = "CSHAKE256", .group = SP},
    {.option = "kmac128", .name = "KMAC128", .group = SP, .is_mac = 1},
    {.option = "kmac256", .name = "KMAC256", .group = SP, .is_mac = 1},
    {.option = "parallelhash128", .name = "PARALLELHASH128", .group = SP},
    {.option = "parallelhash256", .name = "PARALLELHASH256", .group = SP},
    {.option = "tuplehash128", .name = "TUPLEHASH128", .group = SP},
    {.option = "tuplehash256", .name = "TUPLEHASH256", .group = SP},
    {.option = "kangarootwelve", .alias = "k12", .name = "KANGAROOTWELVE", .group = KT},
    {.option = "kt128", .name = "KANGAROOTWELVE", .group = KT},
    {.option = "kt256", .name = "KT256", .group = KT},
    {.option = "marsupilamifourteen", .alias = "m14", .name = "MARSUPILAMIFOURTEEN", .group = KT},
    {.option = "turboshake128", .name = "TURBOSHAKE128", .group = KT},
    {.option = "turboshake256", .name = "TURBOSHAKE256", .group = KT},
    {.option = "keccak-224", .name = "KECCAK-224", .group = PRE},
    {.option = "keccak-256", .name = "KECCAK-256", .group = PRE},
    {.option = "keccak-384", .name = "KECCAK-384", .group = PRE},
    {.option = "keccak-512", .name = "KECCAK-512", .group = PRE},
};
const size_t algorithm_count = sizeof algorithms / sizeof algorithms[0];
_Static_assert(sizeof algorithms / sizeof algorithms[0] <= OPTIONS_ALGS_MAX,
               "every switch fits OPTIONS_ALGS_MAX");

const algorithm *algorithm_default(void)
{
    return algorithm_find("SHA3-256");
}

const algorithm *algorithm_find(const char *name)
{
    for (size_t i = 0; i < algorithm_count; i++) {
        const algorithm *a = &algorithms[i];
        if (strcasecmp(name, a->option) == 0 || strcasecmp(name, a->name) == 0 ||
            (a->alias != NULL && strcasecmp(name, a->alias) == 0))
            return a;
    }
    return NULL;
}

/* The provider's other names: fetch by the name, then find the switch
 * whose provider name is the same algorithm. */
const algorithm *algorithm_lookup(OSSL_LIB_CTX *lib, const char *name)
{
    const algorithm *found = algorithm_find(name);
    EVP_MD *md;
    EVP_MAC *mac;

    if (found != NULL)
        return found;
    ERR_set_mark();
    md = EVP_MD_fetch(lib, name, PROPS);
    mac = md == NULL ? EVP_MAC_fetch(lib, name, PROPS) : NULL;
    ERR_pop_to_mark();
    for (size_t i = 0; found == NULL && i < algorithm_count; i++)
        if ((md != NULL && EVP_MD_is_a(md, algorithms[i].name)) ||
            (mac != NULL && EVP_MAC_is_a(mac, algorithms[i].name)))
            found = &algorithms[i];
    EVP_MD_free(md);
    EVP_MAC_free(mac);
    return found;
}

/* Where the trailing digits of a name start. */
static size_t digits_start(const char *name, size_t len)
{
    while (len > 0 && isdigit((unsigned char)name[len - 1]))
        len--;
    return len;
}

void algorithm_tag(const algorithm *a, int xof, char *buf)
{
    size_t at = digits_start(a->name, strlen(a->name));

    snprintf(buf, ALGORITHM_TAG_MAX, "%.*s%s%s", (int)at, a->name, xof ? "XOF" : "",
             a->name + at);
}

int algorithm_xof_base(const char *tag, char *base)
{
    size_t len = strlen(tag), at = digits_start(tag, len);

    if (at < 4 || at == len || len >= ALGORITHM_TAG_MAX ||
        strncasecmp(tag + at - 3, "XOF", 3) != 0)
        return 0;
    snprintf(base, ALGORITHM_TAG_MAX, "%.*s%s", (int)(at - 3), tag, tag + at);
    return 1;
}
