/* resolve_routines: names a recording's address-only routines, once, at
 * the end of the recording, while the recorded binaries are at hand. */
#ifndef TRMS_RESOLVE_ROUTINES_H
#define TRMS_RESOLVE_ROUTINES_H

#include "common/error.h"
#include "store/symbol_store.h"
#include "symbols/memory_maps.h"
#include "symbols/symbolizer.h"
#include "trace/routine_table.h"

/* What S knows of the routine entered at ADDR, into OUT (its strings S's):
 * the symbol holding ADDR and how far past its start ADDR is, the source
 * file and line (the function's declaration at a symbol's start, else
 * the line of ADDR itself), and the file mapped there with ADDR's
 * address in it. 0 when a symbol or a file was found, -1 when neither. */
int symbols_describe_routine(struct symbolizer *s, uint64_t addr, struct symbol_name *out);

/* Resolves every routine of ROUTINES that has an address but no name
 * against MAPS and saves what symbols_describe_routine() finds in the
 * symbol store of the recording (or staging directory) at REC_PATH, in
 * one transaction. Routines outside every mapped file are left out
 * (reports print their address). */
int symbols_resolve_routines(const char *rec_path, const struct memory_maps *maps,
                             const struct routine_table *routines, struct trms_error *err);

/* The same with LIVE, the symbolizer that followed the process's maps as
 * they came and went (and answered for its code meanwhile): MAPS, every
 * mapping ever seen, is added back into it, so that the names are those
 * a fresh symbolizer of MAPS would give, without loading every file and
 * looking every routine up again. */
int symbols_resolve_routines_with(struct symbolizer *live, const char *rec_path,
                                  const struct memory_maps *maps,
                                  const struct routine_table *routines, struct trms_error *err);

/* For engines that follow programs replacing each other (exec): names the
 * address-only routines ROUTINES->items[*NEXT..] with S, the symbols of the
 * program running now (addresses without their program tag,
 * routine_table_tag_addresses), into NAMES; *NEXT moves to the end. Called
 * when a program is about to be replaced, and at the end. */
void symbols_name_routines_since(struct symbolizer *s, const struct routine_table *routines,
                                 size_t *next, struct symbol_names *names);

#endif
