/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksumprov: an OpenSSL 3 provider for the Keccak family.
 *
 * Algorithms (fetch with the property query "provider=ksumprov"; names are
 * case-insensitive, and OpenSSL's own spellings are aliases):
 *   EVP_MD:  SHA3-224/256/384/512, SHAKE128/256 (SHAKE-128/256),
 *            RAWSHAKE128/256, KECCAK-224/256/384/512,
 *            CSHAKE128/256 (CSHAKE-128/256), PARALLELHASH128/256,
 *            TUPLEHASH128/256, KANGAROOTWELVE (KT128, KT-128, K12),
 *            KT256 (KT-256), MARSUPILAMIFOURTEEN (M14),
 *            TURBOSHAKE128/256 (TURBOSHAKE-128/256),
 *            KT128-CV, KT256-CV, M14-CV, KT128-FINAL, KT256-FINAL,
 *            M14-FINAL (a tree in parts: see KSUM_PARAM_MESSAGE_LENGTH)
 *   EVP_MAC: KMAC128 (KMAC-128), KMAC256 (KMAC-256)
 *
 * Where a name is shared with OpenSSL's default provider, ksumprov behaves
 * as the running OpenSSL's default provider does: from OpenSSL 3.4 on a
 * SHAKE128/256 final needs an output length ("xoflen"; EVP_MD_get_size()
 * is 0), from 4.0 on cSHAKE's default output is 32/64 bytes, and KMAC's is
 * 32/64 bytes with a customization string of at most 512 bytes and an
 * output of at most 2097151 bytes (KMACXOF's is not limited).  Everything else is as below on every
 * OpenSSL 3.x and 4.x.
 *
 * Parameters are listed with every key that sets them: ksumprov's own
 * first, then upstream OpenSSL's spelling.  A string parameter may be an
 * octet string or a UTF-8 string (settable_ctx_params lists the type
 * OpenSSL's own provider uses).  Unknown keys are ignored.  All parameters
 * of one call are checked before any is applied: a call that fails leaves
 * the context as it was.
 */
#ifndef KSUMPROV_H
#define KSUMPROV_H

#include <openssl/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The provider's name, for OSSL_PROVIDER_load and property queries. */
#define KSUMPROV_NAME "ksumprov"

/* The most threads a context may be given (KSUM_PARAM_THREADS). */
#define KSUMPROV_MAX_THREADS 256

/* Output length (size_t, bytes): OpenSSL's "xoflen", also "size".  Every
 * variable-length algorithm; until the output is produced. */

/* Customization string S: cSHAKE, KMAC ("custom" is OpenSSL's KMAC name
 * too), ParallelHash, TupleHash, KangarooTwelve, KT256, M14.  Before any
 * data. */
#define KSUM_PARAM_CUSTOM "custom"
#define KSUM_PARAM_CUSTOMIZATION "customization"   /* upstream's digests */
/* Function name N: cSHAKE (any string; upstream OpenSSL allows only the
 * names of SP 800-185's functions).  Before any data. */
#define KSUM_PARAM_FUNCTION_NAME "function-name"
/* Block size B in bytes (size_t, at least 1, default 8192): ParallelHash
 * and its -CV and -FINAL algorithms (below).  Before any data.  Not "blocksize", which OpenSSL uses for the rate. */
#define KSUM_PARAM_BLOCK_SIZE "block-size"
/* XOF mode (an int; any value but 0 is XOF, as OpenSSL's KMAC reads it):
 * ParallelHashXOF, TupleHashXOF, KMACXOF.  Until the output is produced. */
#define KSUM_PARAM_XOF "xof"
/* Domain byte D (unsigned int, 0x01..0x7F, default 0x1F): TurboSHAKE.
 * Before any data.  Readable too. */
#define KSUM_PARAM_DOMAIN "domain"
#define KSUM_PARAM_DOMAIN_SEPARATOR "domain-separator" /* upstream's name */

/* TupleHash: each EVP_DigestUpdate is one element of the tuple, as in
 * OpenSSL's TupleHash, and a message without any update is the tuple of
 * one empty element (so, as there, the empty tuple cannot be hashed).
 * Setting this (uint64, bytes) announces that the next element is that
 * long: it may then be given by any number of updates (and an element of
 * length 0, which EVP_DigestUpdate cannot pass, is given by the
 * announcement alone).  An update past the announced length, or a final
 * before it is reached, is refused and changes nothing (but from OpenSSL
 * 3.4 on, EVP marks a context whose final was refused as finished).
 * Between elements. */
#define KSUM_PARAM_ELEMENT_LENGTH "element-length"

/* Worker threads (unsigned int, 0..KSUMPROV_MAX_THREADS, default 0: every
 * CPU the process may use; 1: none): ParallelHash, KangarooTwelve, KT256,
 * MarsupilamiFourteen hash leaves on up to this many threads.  A context
 * starts its threads at its first large update and keeps them between
 * updates; a thread idle for about a second exits and is started again
 * when needed.  A child after fork() has none of the parent's threads: a
 * context goes on there and starts its own.  Any time; results do not
 * depend on it. */
#define KSUM_PARAM_THREADS "threads"

/* Keccak backend of this context (UTF-8 string: "portable", "portable8",
 * "bmi2", "avx2" or "avx512"; default: the fastest this CPU runs, or
 * KSUM_SIMD's choice).  Every algorithm; before any data.  Readable as well
 * (a pointer to the name).  Results do not depend on it: it exists to test
 * and compare backends. */
#define KSUM_PARAM_BACKEND "backend"

/* Lanes of this context's backend (unsigned integer, read only): how many
 * messages or leaves it hashes side by side, 1 (portable, bmi2), 4 (avx2)
 * or 8 (portable8, avx512).  A batch group (KSUM_PARAM_BATCH) gains from
 * as many members fed in turns; 1 means batching gains nothing.  Every
 * algorithm, any time; it follows KSUM_PARAM_BACKEND. */
#define KSUM_PARAM_LANES "lanes"

/* Batch (uint64, default 0: none).  SHA3, SHAKE, RawSHAKE, Keccak,
 * TurboSHAKE, cSHAKE, KMAC, KT128, KT256 and M14 contexts of one provider
 * instance (one library context's ksumprov) that set the same non-zero id
 * form a group, whose messages are absorbed together, as many at a time
 * as the backend has lanes (KSUM_PARAM_LANES: four with AVX2, eight with
 * AVX-512).  Of a K12-family message only its first 8 KiB chunk (all of a
 * short message) is batched: the rest are the tree's leaves, which go
 * side by side anyway.  The id is
 * the application's choice (ksum: one per worker thread); contexts of one
 * group may be used on different threads at once.  The group's lock is
 * held only to take work out and hand it back, never while permuting: a
 * call on a context waits at most for one absorb of the others' held input
 * (up to lanes times the bound below), never for another thread's long
 * update, and long updates of one group on several threads run side by
 * side.
 *
 * fork() while other threads use contexts in groups: before it, the
 * provider waits for the absorbs of held input under way (each as bounded
 * as above) and lets none start, and after it every group is usable in
 * both processes (pthread_atfork).  So a child's contexts hold exactly
 * the input they were given and go on there; a context another thread
 * was in the middle of updating or finishing can only be freed in the
 * child, as with any context whose call had not returned.
 *
 * Why a named group: EVP has no call that takes several contexts, and a
 * provider cannot see another EVP_MD_CTX, so the contexts must be told
 * whom to absorb with.  An explicit id keeps it opt-in (an application
 * that never sets it runs exactly the code it ran before), needs no
 * thread-local or global state, and lets one thread drive several groups.
 *
 * A context in a group copies its input into a buffer of
 * KSUMPROV_BATCH_PENDING bytes, allocated when it joins.  When an update
 * does not fit, and when the output is asked for, it absorbs all it holds,
 * together with the whole blocks other members hold: up to lanes - 1 of
 * them, those on the same backend with the same rounds (TurboSHAKE's 12
 * rounds pair only with TurboSHAKE), each taking as many blocks as the
 * shortest lane of the call has.  So batching pays when the members are fed in turns with
 * updates of at most the bound (16 to 64 KiB) and asked for their output
 * after the others were fed; an update longer than the bound is absorbed at
 * once, paired only with what the others hold.  On a backend of one lane
 * (KSUM_PARAM_LANES reads 1) it gains nothing and costs the copy.
 *
 * Results are exactly those of a context without it, for any split of any
 * input: the id changes only when blocks are permuted.  Any time: a new id
 * (or 0, to leave) first absorbs what the context holds; an init forgets
 * the input held for the message it abandons, and a digest's init resets
 * the id to 0 as it resets every setting (so give it in the parameters of
 * each EVP_DigestInit_ex2, which is also what OpenSSL 3.0 needs, since it
 * makes a new context at each init; a context given the id it has stays in
 * its group), while KMAC keeps it as it keeps its key; a copy (dupctx)
 * first absorbs what the original holds and is in the same group; freeing
 * the context leaves the group.  Readable too.  Joining fails when memory
 * is short, with an error, leaving the context as it was.  The other
 * algorithms (ParallelHash, TupleHash) do not list the parameter and
 * ignore it, as any unknown key. */
#define KSUM_PARAM_BATCH "batch"

/* How much of a message a batch group absorbs together with the others
 * (uint64, read only; the algorithms that take KSUM_PARAM_BATCH): 0 when
 * all of it (SHA3, SHAKE, RawSHAKE, Keccak, TurboSHAKE, cSHAKE, KMAC),
 * 8192 for KT128, KT256 and M14 (their first chunk).  A program feeding
 * several members in turns gives each its first that many bytes before
 * any member goes past them, so that their flushes pair (ksum does). */
#define KSUM_PARAM_BATCH_PREFIX "batch-prefix"
/* The input a context in a group holds back, in bytes: its memory is that
 * much more, plus under 100 bytes, and each id in use costs under 100. */
#define KSUMPROV_BATCH_PENDING 65536

/* Squeezing (octet string, get only; digests and KMAC): EVP_MD_CTX_get_params
 * or EVP_MAC_CTX_get_params with this parameter fills its buffer with the
 * next bytes of output, so that outputs of any length can be streamed with
 * OpenSSL 3.0-3.2, which have no EVP_DigestSqueeze (ksumprov implements
 * that too).  The first squeeze closes the input as final would (with the
 * output length set for ParallelHash, TupleHash and KMAC, whose value
 * depends on it); no update or final may follow.  Those three, unless
 * as XOFs, and the -CV parts give no more than the output length set. */
#define KSUM_PARAM_SQUEEZE "squeeze"

/* KangarooTwelve in parts (KT128, KT256, M14): one object hashed by
 * several machines, each over a chunk-aligned byte range, and one step
 * that combines their chaining values (CVs) into the digest one machine
 * would give.  S = M || C || length_encode(|C|) is cut into 8192-byte
 * chunks; S_0 enters the final node as it is and every later chunk gives a
 * CV (RFC 9861 section 3).  Two algorithms per function:
 *
 *   "KT128-CV", "KT256-CV", "M14-CV" (aliases KANGAROOTWELVE-CV,
 *   MARSUPILAMIFOURTEEN-CV): the input is M from byte "offset" on (a
 *   multiple of 8192, default 0) to a multiple of 8192 or to the end of M;
 *   the output is the CVs of the chunks S_i, i >= 1, the range covers, in
 *   order (32 bytes each for KT128, 64 for KT256 and M14).  Bytes of the
 *   first chunk are taken and not hashed.  The range that reaches the end
 *   of M also gives the CVs of the chunks past M, which hold only C and its
 *   length (C can push S over a chunk boundary).  Read "cv-count" once the
 *   input is given, then take exactly cv-count * CV bytes with
 *   EVP_DigestFinalXOF (a final of another length is refused).  Reading it
 *   fixes the settings, as input does; without message-length, or with an
 *   offset that is no chunk start or past the end, it is refused and the
 *   settings may still be given.  One context
 *   gives at most KSUMPROV_PART_MAX_CHUNKS CVs: a longer range is several
 *   contexts with successive offsets.  "threads" as for KT128.
 *
 *   "KT128-FINAL", "KT256-FINAL", "M14-FINAL": the input is the first
 *   min(|M|, 8192) bytes of M, then the CVs of all the other chunks in
 *   order; the output is the digest of M, with "custom" and the output
 *   length ("xoflen", or squeezing) as for KT128.  A final with fewer or
 *   more CV bytes than the tree of |M| and |C| has is refused.
 *
 * Both need "message-length", |M|: it decides where S ends and whether a
 * tree is used at all (|S| <= 8192: one node, no CVs), and both need the
 * same "custom".
 *
 * Why separate names and not a parameter of KT128: their input and output
 * are not KT128's (a range and CVs; a first chunk and CVs), so an
 * application must ask for them by name, and a provider without them fails
 * the fetch.  A parameter would be an unknown key to an older ksumprov or
 * another provider, ignored as unknown keys are, and would silently give
 * the KT128 of the CVs.  Separate names also keep the settable lists of
 * KT128 unchanged.  All the chunk and suffix logic is in the provider. */
#define KSUM_PARAM_MESSAGE_LENGTH "message-length"  /* uint64, before data */
#define KSUM_PARAM_OFFSET "offset"                  /* uint64, before data */
#define KSUM_PARAM_CV_COUNT "cv-count"              /* uint64, get only */
#define KSUMPROV_PART_MAX_CHUNKS 1024

/* ParallelHash in parts (SP 800-185 section 6), the same way: M is cut
 * into blocks X_i of B bytes ("block-size", default 8192, the last block
 * shorter), each gives the CV z_i = cSHAKE(X_i, 2c bits) on its own, and
 * the digest is one final node over all the z_i in order.
 *
 *   "PARALLELHASH128-CV", "PARALLELHASH256-CV" (aliases
 *   PARALLELHASH-128-CV, PARALLELHASH-256-CV): the input is M from byte
 *   "offset" on (a multiple of B, default 0) to a multiple of B or to the
 *   end of M; the output is the CVs of the blocks it covers, in order (32
 *   bytes each for ParallelHash128, 64 for ParallelHash256).  As for the
 *   KT -CV algorithms: "message-length" is needed, "cv-count" is read once
 *   the input is given and exactly cv-count * CV bytes are taken with
 *   EVP_DigestFinalXOF, at most KSUMPROV_PART_MAX_CHUNKS CVs a context, and
 *   the same refusals.  No "custom": the CVs do not depend on S.
 *   "threads" as for ParallelHash.
 *
 *   "PARALLELHASH128-FINAL", "PARALLELHASH256-FINAL" (aliases with the
 *   hyphen): the input is the CVs of all the blocks of M in order
 *   (ceil(|M| / B) of them; none for an empty M); the output is
 *   ParallelHash's digest of M, with "block-size", "custom", the output
 *   length and "xof" as ParallelHash takes them.  A final with fewer or
 *   more CV bytes is refused.
 *
 * The XOF variants (ParallelHashXOF) are "xof" on the final, as on
 * ParallelHash itself, not names of their own: their CVs are the same,
 * and only the final node's last field, right_encode(L) or right_encode(0),
 * differs.  The CV and final contexts need the same "block-size".
 *
 * Both families answer two more readable parameters (uint64, get only, any
 * time after init, from the settings as they are) so that a program can
 * cut a message into ranges without knowing either tree:
 *   "cv-span": the bytes of M one CV stands for, which every range's start
 *   (and every end but M's) is a multiple of: 8192 for KT128, KT256 and
 *   M14, B for ParallelHash;
 *   "head-length": how many first bytes of M the -FINAL algorithm takes as
 *   they are, before the CVs (the -CV algorithms skip them): min(|M|, 8192)
 *   for KT128, KT256 and M14, 0 for ParallelHash. */
#define KSUM_PARAM_CV_SPAN "cv-span"                /* uint64, get only */
#define KSUM_PARAM_HEAD_LENGTH "head-length"        /* uint64, get only */
/* The reason (ERR_GET_REASON, in the library ERR_lib_error_string names
 * "ksumprov") of an input that does not fit its part of the tree: a range
 * that is not chunk-aligned, or a final node given too few or too many
 * CVs.  Any other failure there (memory, a fetch) is not the input's. */
#define KSUMPROV_R_PART 16
/* The reason, in the same library, of an allocation that failed in the
 * provider: what a caller reports as "out of memory", never as its
 * input's fault. */
#define KSUMPROV_R_ALLOC 1

/* ksumprov's own default output length (size_t, algorithm parameter:
 * EVP_MD_get_params or EVP_MAC_get_params), the same on every OpenSSL
 * version: the original ksum's defaults (16/32 bytes for the 128/256-bit
 * SHAKE, cSHAKE, KMAC and ParallelHash, 16 for KangarooTwelve, 32 for M14,
 * 64 for KT256, 32/64 for TurboSHAKE and TupleHash).  EVP_MD_get_size()
 * and a context's "size" give the running OpenSSL's default where a name
 * is shared with its default provider (see above); ksum prints this one. */
#define KSUM_PARAM_DEFAULT_SIZE "default-size"

/* KMAC (EVP_MAC) takes OpenSSL's KMAC parameters: "key" (octet string, any
 * length including 0: SP 800-185 sets no minimum, OpenSSL's KMAC wants 4
 * to 512 bytes), "custom", "size" (output bytes, default 32 for KMAC128
 * and 64 for KMAC256, as OpenSSL's) and "xof"; "block-size" reads the
 * rate. */

/* The provider's entry point, for OSSL_PROVIDER_add_builtin() in programs
 * that link ksumprov in instead of loading the module. */
OSSL_provider_init_fn ksumprov_init;

#ifdef __cplusplus
}
#endif

#endif
