/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --progress: one line on standard error, when it is a terminal, redrawn a
 * few times a second by a thread of its own: the file whose line comes
 * next, its bytes done of its size, the rate and the time left.  The
 * printing thread erases it (progress_hold) before it writes anything, so
 * it never mixes with the output or the messages, and it is erased at the
 * end.  Every function accepts NULL (no display) and then does nothing.
 */
#ifndef KSUM_CLI_PROGRESS_H
#define KSUM_CLI_PROGRESS_H

#include "input/files.h"

typedef struct progress progress;

/* The display when wanted and standard error is a terminal; else NULL. */
progress *progress_start(int wanted);
/* Erases the line, stops the thread, frees pg. */
void progress_stop(progress *pg);

/* The file shown from now on: its name (copied) and its reading, which
 * must stay valid until the next call (NULL, NULL: none). */
void progress_show(progress *pg, const char *name, file_progress *p);

/* Around anything written to standard output or standard error: the line
 * is erased and not drawn again until progress_resume. */
void progress_hold(progress *pg);
void progress_resume(progress *pg);

#endif
