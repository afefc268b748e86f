/* SPDX-License-Identifier: Apache-2.0 */
/* After parsing, with the provider loaded: the algorithms asked for, what
 * EVP says they take, and every conflict between them and the options,
 * judged in one place. */
#include "resolve.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hasher.h"
#include "messages.h"

/* Once the algorithm is known: TupleHash's one line names every file, so a
 * walk or a list, of any length, cannot be its tuple. */
static int check_walk_algorithm(const options *o)
{
    if ((o->recursive || o->files_from) && (o->facts.takes & TAKES_ELEMENTS)) {
        fprintf(message_stream(), "ksum: %s cannot be used with %s, which hashes "
                "the FILEs as one tuple\n",
                o->recursive ? "--recursive" : "--files-from", o->alg->name);
        usage_hint();
        return 0;
    }
    return 1;
}

/* --raw prints one sum: of one FILE, or of TupleHash's tuple. */
static int raw_has_one_sum(const options *o)
{
    if (!o->raw || (o->facts.takes & TAKES_ELEMENTS) ||
        (o->files[1] == NULL && !o->recursive && o->files_from == NULL))
        return 1;
    return usage_error("the --raw option is not supported with multiple files");
}

static int unknown_algorithm(const char *name)
{
    FILE *f = message_stream();

    fputs("ksum: unknown algorithm '", f);
    print_name(f, name, name_needs_escape(name));
    fputs("'\n", f);
    usage_hint();
    return 0;
}

/* Each algorithm once: a second switch for it (--k12 --kt128) adds
 * nothing. */
static void add_algorithm(options *o, const algorithm *a)
{
    if (options_chosen(o, a) == NULL && o->nalgs < OPTIONS_ALGS_MAX)
        o->algs[o->nalgs++] = a;
}

const algorithm *options_chosen(const options *o, const algorithm *a)
{
    for (size_t i = 0; i < o->nalgs; i++)
        if (strcmp(o->algs[i]->name, a->name) == 0)
            return o->algs[i];
    return NULL;
}

/* -a A,B,...: any name the provider knows, each. */
static int add_named(options *o, OSSL_LIB_CTX *lib, const char *names)
{
    for (const char *at = names;;) {
        size_t len = strcspn(at, ",");
        char *name = OPENSSL_strndup(at, len);
        const algorithm *a = name != NULL ? algorithm_lookup(lib, name) : NULL;
        if (name == NULL) {
            fprintf(message_stream(), "ksum: out of memory\n");
            return 0;
        }
        if (a == NULL) {
            unknown_algorithm(name);
            OPENSSL_free(name);
            return 0;
        }
        OPENSSL_free(name);
        add_algorithm(o, a);
        if (at[len] == '\0')
            return 1;
        at += len + 1;
    }
}

/* "SHA3-256", or "any of SHA3-256, SHAKE128". */
static void print_algorithms(FILE *f, const options *o)
{
    if (o->nalgs > 1)
        fputs("any of ", f);
    for (size_t i = 0; i < o->nalgs; i++)
        fprintf(f, "%s%s", i > 0 ? ", " : "", o->algs[i]->name);
}

/* An option none of the algorithms takes is an error, not ignored; with
 * several, each option goes to those that take it (-n to every
 * variable-length one).  In check mode without an algorithm switch,
 * tagged lines choose the algorithm and each takes what applies to it, but
 * a key needs a keyed algorithm named on the command line: otherwise the
 * lines would choose whether the key is used at all. */
static int check_applicable(const options *o)
{
    unsigned extra = o->given & ~o->takes_any;
    FILE *f;

    if ((o->given & TAKES_KEY) && o->check && !o->alg_given) {
        fprintf(message_stream(), "ksum: option %s needs a keyed algorithm: "
                "--kmac128 or --kmac256\n", o->key_option);
        usage_hint();
        return 0;
    }
    /* With a key, check mode verifies keyed lines only: an unkeyed
     * algorithm beside the KMAC would let its lines pass for keyed ones. */
    for (size_t i = 0; (o->given & TAKES_KEY) && o->check && i < o->nalgs; i++)
        if (!(o->facts_of[i].takes & TAKES_KEY)) {
            fprintf(message_stream(), "ksum: option %s verifies only KMAC lines: "
                    "%s takes no key\n", o->key_option, o->algs[i]->name);
            usage_hint();
            return 0;
        }
    if (extra == 0 || (o->check && !o->alg_given))
        return 1;
    for (unsigned bit = 1; bit != 0; bit <<= 1)
        if (extra & bit) {
            f = message_stream();
            fprintf(f, "ksum: option %s does not apply to ", option_name(o, bit));
            print_algorithms(f, o);
            fputc('\n', f);
            usage_hint();
            return 0;
        }
    return 1;
}

/* Several algorithms print one tagged line each per file; TupleHash's one
 * line for all the files cannot be among them. */
static int check_several(options *o)
{
    if (o->nalgs < 2 || o->check)
        return 1;
    for (size_t i = 0; i < o->nalgs; i++)
        if (o->facts_of[i].takes & TAKES_ELEMENTS) {
            fprintf(message_stream(), "ksum: %s hashes all the FILEs as one tuple: "
                    "it cannot be computed with other algorithms\n",
                    o->algs[i]->name);
            usage_hint();
            return 0;
        }
    if (o->untagged || o->no_names || o->raw) {
        fprintf(message_stream(), "ksum: %s cannot be used with several algorithms: "
                "each line names its algorithm\n",
                o->untagged ? "--untagged" : o->no_names ? "--no-names" : "--raw");
        usage_hint();
        return 0;
    }
    o->tag = 1;
    return 1;
}

/* The provider judges values ksum passes on: each refused one is named
 * with the provider's reason. */
static int values_accepted_by(const options *o, OSSL_LIB_CTX *lib,
                              const algorithm *alg, const algorithm_facts *facts)
{
    const struct {
        unsigned bit;
        const char *what, *text;
    } values[] = {
        {TAKES_DOMAIN, "domain byte", o->domain_text},
        {TAKES_BLOCK, "block size", o->block_text},
        {0, NULL, NULL},    /* then all of them together */
    };
    char why[512];

    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        if (values[i].bit != 0 && !(o->given & facts->takes & values[i].bit))
            continue;
        if (hasher_try(lib, alg, o, values[i].bit ? values[i].bit : o->given,
                       why, sizeof why))
            continue;
        if (values[i].bit != 0)
            return bad_value(values[i].what, values[i].text, why);
        fprintf(message_stream(), "ksum: %s refuses the options given: %s\n",
                alg->name, why);
        usage_hint();
        return 0;
    }
    return 1;
}

/* Each algorithm judges the values it takes. */
static int values_accepted(const options *o, OSSL_LIB_CTX *lib)
{
    for (size_t k = 0; k < o->nalgs; k++)
        if (!values_accepted_by(o, lib, o->algs[k], &o->facts_of[k]))
            return 0;
    return 1;
}

/* In check mode without a switch the lines choose the algorithm; a value
 * is still judged at the start, by the first algorithm that takes it, so
 * that a bad one is one usage error and not a failure on every line. */
static int values_accepted_unswitched(const options *o, OSSL_LIB_CTX *lib)
{
    algorithm_facts f;
    unsigned left = o->given & (TAKES_DOMAIN | TAKES_BLOCK);

    for (size_t i = 0; left != 0 && i < algorithm_count; i++) {
        if (!algorithm_describe(lib, &algorithms[i], &f))
            return 0;
        f.takes &= left;
        if (f.takes == 0)
            continue;
        left &= ~f.takes;
        if (!values_accepted_by(o, lib, &algorithms[i], &f))
            return 0;
    }
    return 1;
}

int options_resolve(options *o, OSSL_LIB_CTX *lib)
{
    o->nalgs = 0;
    for (size_t i = 0; i < o->nchoices; i++) {
        if (o->choices[i].alg != NULL)
            add_algorithm(o, o->choices[i].alg);
        else if (!add_named(o, lib, o->choices[i].names))
            return 0;
    }
    if (o->nalgs == 0)
        add_algorithm(o, algorithm_default());
    o->takes_any = 0;
    for (size_t i = 0; i < o->nalgs; i++) {
        if (!algorithm_describe(lib, o->algs[i], &o->facts_of[i]))
            return 0;
        o->takes_any |= o->facts_of[i].takes;
    }
    o->alg = o->algs[0];
    o->facts = o->facts_of[0];
    if (!check_applicable(o) || !raw_has_one_sum(o) || !check_several(o) ||
        !check_walk_algorithm(o))
        return 0;
    if (o->check && !o->alg_given)
        return values_accepted_unswitched(o, lib);
    return values_accepted(o, lib);
}
