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
    {"sha3-224", NULL, "SHA3-224", FIPS, 0},
    {"sha3-256", NULL, "SHA3-256", FIPS, 0},
    {"sha3-384", NULL, "SHA3-384", FIPS, 0},
    {"sha3-512", NULL, "SHA3-512", FIPS, 0},
    {"shake128", NULL, "SHAKE128", FIPS, 0},
    {"shake256", NULL, "SHAKE256", FIPS, 0},
    {"rawshake128", NULL, "RAWSHAKE128", FIPS, 0},
    {"rawshake256", NULL, "RAWSHAKE256", FIPS, 0},
    {"cshake128", NULL, "CSHAKE128", SP, 0},
    {"cshake256", NULL, "CSHAKE256", SP, 0},
    {"kmac128", NULL, "KMAC128", SP, 1},
    {"kmac256", NULL, "KMAC256", SP, 1},
    {"parallelhash128", NULL, "PARALLELHASH128", SP, 0},
    {"parallelhash256", NULL, "PARALLELHASH256", SP, 0},
    {"tuplehash128", NULL, "TUPLEHASH128", SP, 0},
    {"tuplehash256", NULL, "TUPLEHASH256", SP, 0},
    {"kangarootwelve", "k12", "KANGAROOTWELVE", KT, 0},
    {"kt128", NULL, "KANGAROOTWELVE", KT, 0},
    {"kt256", NULL, "KT256", KT, 0},
    {"marsupilamifourteen", "m14", "MARSUPILAMIFOURTEEN", KT, 0},
    {"turboshake128", NULL, "TURBOSHAKE128", KT, 0},
    {"turboshake256", NULL, "TURBOSHAKE256", KT, 0},
    {"keccak-224", NULL, "KECCAK-224", PRE, 0},
    {"keccak-256", NULL, "KECCAK-256", PRE, 0},
    {"keccak-384", NULL, "KECCAK-384", PRE, 0},
    {"keccak-512", NULL, "KECCAK-512", PRE, 0},
};
const size_t algorithm_count = sizeof algorithms / sizeof algorithms[0];

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
    size_t len = strlen(a->name), at = digits_start(a->name, len);

    if (!xof || len + 4 > ALGORITHM_TAG_MAX) {
        snprintf(buf, ALGORITHM_TAG_MAX, "%s", a->name);
        return;
    }
    snprintf(buf, ALGORITHM_TAG_MAX, "%.*sXOF%s", (int)at, a->name, a->name + at);
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
