/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The walk of --tree (docs/tree.md): each DIR operand as a stream of items,
 * depth first, the entries of each directory in the byte order of their
 * names, so that the directory's node can be absorbed as its entries come.
 * Links are never followed; FIFOs, sockets and devices are errors unless
 * excluded; excluded entries are not there at all.  Only the directories on
 * the current path are held (each as the sorted list of its names), and
 * open: every entry is opened in its directory as read, never by a path
 * whose directories may have been replaced since, by links out of the tree.
 * Its declarations are in walk.h, whose levels it shares.
 */
#ifndef KSUM_CLI_TREEWALK_H
#define KSUM_CLI_TREEWALK_H

#include "input/walk.h"

#endif
