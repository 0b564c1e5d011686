/*
 * Helpers shared by the spec parsers (not part of the public API).
 */
#ifndef TS_SPEC_INTERNAL_H
#define TS_SPEC_INTERNAL_H

#include "spec/spec.h"

typedef int (*ts__spec_parse_fn)(const struct ts_jnode *node, void *out, struct ts_err *err);

/* Load the JSON file at `path` and parse its root with `parse`, recording the file (and what
 * its parse loads) in `inputs` when not NULL. */
int ts__spec_load_file(const char *path, struct ts_inputs *inputs, ts__spec_parse_fn parse,
                       void *out, struct ts_err *err);

/* Parse a node that is a catalogue reference (string) or an inline object. */
int ts__spec_parse_ref(const struct ts_jnode *node, enum ts_catalog cat, ts__spec_parse_fn parse,
                       void *out, struct ts_err *err);

/* Load a catalogue entry by name or path. */
int ts__spec_load_ref(enum ts_catalog cat, const char *ref, ts__spec_parse_fn parse, void *out,
                      struct ts_err *err);

/* Load the fused-attention tables of an accelerator's generation (sim/spec/software.c). */
int ts__attention_tables_load(struct ts_accel *a, struct ts_inputs *inputs, struct ts_err *err);

#endif
