/* SPDX-License-Identifier: Apache-2.0 */
/* Every conflict between options, judged in one place after parsing: first
 * those the options alone decide (options_judge), then, with the provider
 * loaded, the algorithms asked for, what EVP says they take, and whether
 * the options apply to them (options_resolve). */
#include "front/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/messages.h"
#include "front/hasher.h"

/* ---- the options alone ---- */

/* Before the check-mode rules: -w also says what a walk skips, so it is
 * taken here when there is -r and no --check. */
static int walk_options_agree(options *o)
{
    if (o->check && (o->recursive || o->files_from))
        return usage_error("%s is not meaningful with --check",
                           o->recursive ? "--recursive" : "--files-from");
    if (o->dereference && !o->recursive)
        return usage_error("--dereference is only meaningful with --recursive");
    if (o->files_from != NULL && o->operands)
        return usage_error("file operands cannot be combined with --files-from");
    if (!o->check && o->warn && o->recursive) {
        o->walk_warn = 1;
        o->warn = 0;
    }
    return 1;
}

/* The check options without --check: the first given, in coreutils'
 * order, is named. */
static int check_options_agree(const options *o)
{
    const char *option = o->check ? NULL
                       : o->ignore_missing ? "--ignore-missing" : o->status ? "--status"
                       : o->warn ? "--warn" : o->quiet ? "--quiet"
                       : o->strict ? "--strict" : o->undone;

    if (option == NULL)
        return 1;
    return usage_error("the %s option is meaningful only when verifying checksums", option);
}

/* The first of the output forms given besides --raw (or --no-names). */
static const char *form_besides(const options *o, int raw)
{
    return o->tag ? "--tag" : o->untagged && raw ? "--untagged"
         : o->base64 && raw ? "--base64" : o->no_names && raw ? "--no-names"
         : o->zero && raw ? "--zero" : o->binary ? "--binary" : NULL;
}

/* Forms that exclude each other, forms in check mode, and -l against -n. */
static int forms_agree(options *o)
{
    const char *other;

    /* --untagged is accepted with --check, as coreutils accepts it: a
     * check reads both forms, so it changes nothing there. */
    if (o->check && (other = o->tag ? "--tag"
                             : o->base64 ? "--base64" : o->raw ? "--raw"
                             : o->no_names ? "--no-names" : NULL) != NULL)
        return usage_error("the %s option is meaningless when verifying checksums",
                           other);
    /* As coreutils: a check file is read by lines whatever -z says, and
     * its '*' marks say binary; accepting the options would mislead. */
    if (o->check && (o->binary || o->text_given))
        return usage_error("the --binary and --text options are meaningless when "
                           "verifying checksums");
    if (o->check && o->zero)
        return usage_error("the --zero option is not supported when verifying checksums");
    if (o->tag && o->text_after_tag && !o->binary)
        return usage_error("--tag does not support --text mode");
    /* The last -l, judged once every option is read. */
    if (o->length_arg != NULL && o->length_bits % 8 != 0)
        return bad_value("length", o->length_arg, "not a multiple of 8 (it is in bits)");
    if (o->length_arg != NULL && o->length_bits == 0)
        return bad_value("length", o->length_arg, "must be at least 8");
    if (o->raw && (other = form_besides(o, 1)) != NULL)
        return usage_error("--raw and %s are mutually exclusive", other);
    if (o->no_names && (other = form_besides(o, 0)) != NULL)
        return usage_error("--no-names and %s are mutually exclusive", other);
    if (o->length_bits == 0)
        return 1;
    if (o->size != 0 && o->size != o->length_bits / 8)
        return usage_error("--length=%zu (bits) and --output-size=%zu (bytes) disagree",
                           o->length_bits, o->size);
    o->size = o->length_bits / 8;
    return 1;
}

/* One object in parts (parts.c does it): one way, one FILE (--combine
 * reads record files), nothing to check, walk or read names from.  A
 * part's record is no checksum line: what shapes one is --combine's. */
static int parts_options_agree(const options *o)
{
    int modes = (o->part_share != NULL) + (o->part_range != NULL) + o->combine;
    const char *mode = o->combine ? "--combine" : o->part_share ? "--part" : "--part-range";
    const char *line = (o->given & TAKES_SIZE) ? option_name(o, TAKES_SIZE)
                       : o->raw ? "--raw" : o->text_given ? "--text" : form_besides(o, 1);

    if (modes == 0)
        return 1;
    if (modes > 1)
        return message_fail("--part, --part-range and --combine exclude each other");
    if (o->check || o->recursive || o->files_from != NULL)
        return message_fail("%s cannot be used with %s", mode,
                            o->check ? "--check" : o->recursive ? "--recursive"
                            : "--files-from");
    if (!o->combine && o->files[1] != NULL)
        return message_fail("%s takes one FILE", mode);
    if (!o->combine && line != NULL)
        return message_fail("%s cannot be used with %s: a part record has no checksum line "
                            "(give it to --combine)", mode, line);
    return 1;
}

/* Whether an exclude is matched on the path from DIR: a slash in it
 * other than a final one (which only says "directories"). */
static int exclude_on_path(const char *pattern)
{
    const char *slash = strchr(pattern, '/');

    return slash != NULL && slash[1] != '\0';
}

/* --tree: each FILE is a directory, walked its own way; --exclude and
 * --manifest belong to it.  In check mode it says how lines naming a
 * directory ("NAME/") are checked, so that --exclude goes with it. */
static int tree_options_agree(const options *o)
{
    const char *other = o->recursive ? "--recursive" : o->files_from ? "--files-from"
                      : o->dereference ? "--dereference" : o->progress ? "--progress"
                      : o->part_share ? "--part" : o->part_range ? "--part-range"
                      : o->combine ? "--combine" : NULL;

    if (!o->tree && (o->nexcludes > 0 || o->manifest))
        return usage_error("%s is only meaningful with --tree",
                           o->manifest ? "--manifest" : "--exclude");
    if (o->tree && other != NULL)
        return message_fail("--tree cannot be used with %s", other);
    if (o->tree && !o->check && !o->operands)
        return usage_error("--tree needs a DIR operand");
    if (o->tree && o->check && o->manifest)
        return usage_error("--manifest is not meaningful with --check");
    if (o->manifest && o->raw)
        return usage_error("--raw and --manifest are mutually exclusive");
    /* Check mode hashes a manifest's inner directory lines as DIRs of their
     * own, where a pattern on the path from DIR would match other entries:
     * an unchanged tree would fail its check. */
    for (size_t i = 0; o->manifest && i < o->nexcludes; i++)
        if (exclude_on_path(o->excludes[i]))
            return usage_error("--manifest cannot be used with an --exclude holding a "
                               "slash (%s): its directories' lines could not be checked",
                               o->excludes[i]);
    return 1;
}

int options_judge(options *o)
{
    return tree_options_agree(o) && walk_options_agree(o) && check_options_agree(o) &&
           forms_agree(o) && parts_options_agree(o);
}

/* ---- with the provider: the algorithms and what they take ---- */

/* Once the algorithm is known: TupleHash's one line names every file, so a
 * walk or a list, of any length, cannot be its tuple. */
static int check_walk_algorithm(const options *o, const resolved *r)
{
    if ((o->recursive || o->files_from || o->tree) && (r->facts_of[0].takes & TAKES_ELEMENTS))
        return usage_error("%s cannot be used with %s, which hashes the FILEs as one tuple",
                           o->recursive ? "--recursive" : o->files_from ? "--files-from"
                           : "--tree", r->alg->name);
    return 1;
}

/* --raw prints one sum: of one FILE, or of TupleHash's tuple. */
static int raw_has_one_sum(const options *o, const resolved *r)
{
    if (!o->raw || (r->facts_of[0].takes & TAKES_ELEMENTS) ||
        (o->files[1] == NULL && !o->recursive && o->files_from == NULL))
        return 1;
    return usage_error("the --raw option is not supported with multiple files");
}

/* Each algorithm once: a second switch for it (--k12 --kt128) adds
 * nothing. */
static void add_algorithm(resolved *r, const algorithm *a)
{
    if (options_chosen(r, a) == NULL && r->nalgs < OPTIONS_ALGS_MAX)
        r->algs[r->nalgs++] = a;
}

const algorithm *options_chosen(const resolved *r, const algorithm *a)
{
    for (size_t i = 0; i < r->nalgs; i++)
        if (strcmp(r->algs[i]->name, a->name) == 0)
            return r->algs[i];
    return NULL;
}

/* -a A,B,...: any name the provider knows, each. */
static int add_named(resolved *r, OSSL_LIB_CTX *lib, const char *names)
{
    for (const char *at = names;;) {
        size_t len = strcspn(at, ",");
        char name[128];
        const algorithm *a;
        /* A name longer than the buffer is none the provider knows. */
        snprintf(name, sizeof name, "%.*s", (int)len, at);
        a = len < sizeof name ? algorithm_lookup(lib, name) : NULL;
        if (a == NULL)
            return usage_error("unknown algorithm '%.*s'", (int)len, at);
        add_algorithm(r, a);
        if (at[len] == '\0')
            return 1;
        at += len + 1;
    }
}

/* "SHA3-256", or "any of SHA3-256, SHAKE128", in buf. */
static const char *algorithms_text(const resolved *r, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", r->nalgs > 1 ? "any of " : "");

    for (size_t i = 0; i < r->nalgs && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i > 0 ? ", " : "",
                              r->algs[i]->name);
    return buf;
}

/* An option none of the algorithms takes is an error, not ignored; with
 * several, each option goes to those that take it (-n to every
 * variable-length one).  In check mode without an algorithm switch,
 * tagged lines choose the algorithm and each takes what applies to it, but
 * a key needs a keyed algorithm named on the command line: otherwise the
 * lines would choose whether the key is used at all. */
static int check_applicable(const options *o, const resolved *r)
{
    unsigned extra = o->given;
    char names[OPTIONS_ALGS_MAX * ALGORITHM_TAG_MAX];

    for (size_t i = 0; i < r->nalgs; i++)
        extra &= ~r->facts_of[i].takes;
    if ((o->given & TAKES_KEY) && o->check && o->nchoices == 0)
        return usage_error("option %s needs a keyed algorithm: --kmac128 or --kmac256",
                           option_name(o, TAKES_KEY));
    /* With a key, check mode verifies keyed lines only: an unkeyed
     * algorithm beside the KMAC would let its lines pass for keyed ones. */
    for (size_t i = 0; (o->given & TAKES_KEY) && o->check && i < r->nalgs; i++)
        if (!(r->facts_of[i].takes & TAKES_KEY))
            return usage_error("option %s verifies only KMAC lines: %s takes no key",
                               option_name(o, TAKES_KEY), r->algs[i]->name);
    if (extra == 0 || (o->check && o->nchoices == 0))
        return 1;
    /* the lowest bit: the first of them */
    return usage_error("option %s does not apply to %s", option_name(o, extra & -extra),
                       algorithms_text(r, names, sizeof names));
}

/* Several algorithms print one tagged line each per file; TupleHash's one
 * line for all the files cannot be among them. */
static int check_several(const options *o, resolved *r)
{
    if (r->nalgs < 2 || o->check)
        return 1;
    for (size_t i = 0; i < r->nalgs; i++)
        if (r->facts_of[i].takes & TAKES_ELEMENTS)
            return usage_error("%s hashes all the FILEs as one tuple: it cannot be "
                               "computed with other algorithms", r->algs[i]->name);
    if (o->untagged || o->no_names || o->raw)
        return usage_error("%s cannot be used with several algorithms: each line names "
                           "its algorithm",
                           o->untagged ? "--untagged" : o->no_names ? "--no-names" : "--raw");
    return 1;
}

/* The parameter options whose values the provider judges one at a time:
 * the numbers, so that a refused one is named with the provider's reason.
 * A string goes with the others ("refuses the options given"): it may be
 * long, and is not shown back. */
static int judged_alone(const option_row *r)
{
    return r->type == PARAM_COUNT || r->type == PARAM_BYTE;
}

/* The provider judges the values ksum passes on. */
static int values_accepted_by(const hash_spec *spec, OSSL_LIB_CTX *lib,
                              const algorithm *alg, const algorithm_facts *facts)
{
    char why[512];
    int ok;

    for (size_t i = 0; i < option_row_count; i++) {
        const option_row *r = &option_rows[i];
        if (!judged_alone(r) || !(spec->given & facts->takes & r->takes) ||
            (ok = hasher_try(lib, alg, spec, r->takes, why, sizeof why)) > 0)
            continue;
        return ok < 0 ? 0 : bad_value(r->what, spec->param[TAKES_PARAM_INDEX(r->takes)].text, why);
    }
    if ((ok = hasher_try(lib, alg, spec, spec->given, why, sizeof why)) != 0)
        return ok > 0;
    return usage_error("%s refuses the options given: %s", alg->name, why);
}

/* In check mode without a switch the lines choose the algorithm; a value
 * is still judged at the start, by the first algorithm that takes it, so
 * that a bad one is one usage error and not a failure on every line. */
static int values_accepted_unswitched(const hash_spec *spec, OSSL_LIB_CTX *lib)
{
    algorithm_facts f;
    unsigned left = 0;

    for (size_t i = 0; i < option_row_count; i++)
        if (judged_alone(&option_rows[i]))
            left |= spec->given & option_rows[i].takes;
    for (size_t i = 0; left != 0 && i < algorithm_count; i++) {
        if (!algorithm_describe(lib, &algorithms[i], &f))
            return 0;
        f.takes &= left;
        if (f.takes == 0)
            continue;
        left &= ~f.takes;
        if (!values_accepted_by(spec, lib, &algorithms[i], &f))
            return 0;
    }
    return 1;
}

/* The algorithms asked for, each once, and what EVP says of each. */
static int resolve_algorithms(const options *o, OSSL_LIB_CTX *lib, resolved *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < o->nchoices; i++) {
        if (o->choices[i].alg != NULL)
            add_algorithm(r, o->choices[i].alg);
        else if (!add_named(r, lib, o->choices[i].names))
            return 0;
    }
    if (r->nalgs == 0)
        add_algorithm(r, algorithm_default());
    for (size_t i = 0; i < r->nalgs; i++)
        if (!algorithm_describe(lib, r->algs[i], &r->facts_of[i]))
            return 0;
    r->alg = r->algs[0];
    return 1;
}

int options_resolve(options *o, OSSL_LIB_CTX *lib, resolved *r)
{
    int unswitched = o->check && o->nchoices == 0;

    if (!resolve_algorithms(o, lib, r) || !check_applicable(o, r) ||
        !raw_has_one_sum(o, r) || !check_several(o, r) || !check_walk_algorithm(o, r))
        return 0;
    r->named = o->nchoices > 0;
    /* What their hashers send, and how the lines look. */
    r->hash = (hash_spec){.given = o->given, .size = o->size, .xof = o->xof, .key = o->key,
                          .key_len = o->key_len, .threads = (unsigned)o->threads};
    memcpy(r->hash.param, o->param, sizeof r->hash.param);
    r->line = (line_style){.form = o->raw ? LINE_RAW : o->no_names ? LINE_SUM_ONLY
                                 : o->tag || r->nalgs > 1 ? LINE_TAGGED
                                 : o->binary ? LINE_BINARY : LINE_UNTAGGED,
                           .text = o->base64 ? SUM_BASE64 : SUM_HEX,
                           .end = o->zero ? '\0' : '\n'};
    if (unswitched && !values_accepted_unswitched(&r->hash, lib))
        return 0;
    /* Else each algorithm judges the values it takes. */
    for (size_t k = 0; !unswitched && k < r->nalgs; k++)
        if (!values_accepted_by(&r->hash, lib, r->algs[k], &r->facts_of[k]))
            return 0;
    return 1;
}

/* Without a switch the lines choose the algorithm: an option that none
 * of them took changed nothing, which the user should know. */
void options_warn_unapplied(const options *o, unsigned applied)
{
    const unsigned shaping = TAKES_SIZE | TAKES_XOF | TAKES_PARAMS;
    unsigned unused = o->given & shaping & ~applied;

    if (o->nchoices > 0 || o->status || applied == 0)
        return;
    for (unsigned bit = 1; unused != 0 && bit <= shaping; bit <<= 1)
        if (unused & bit)
            message_fail("WARNING: option %s applied to no line checked", option_name(o, bit));
}
