/*
 * Test fixtures for system specs shared by the cmocka tests: load a catalogue system or parse
 * one from JSON text, failing the test with the loader's message otherwise.
 */
#ifndef TS_TEST_SYSTEM_H
#define TS_TEST_SYSTEM_H

#include "test_helpers.h"

#include "spec/spec.h"

static inline void load_system(const char *name, struct ts_system *sys)
{
    struct ts_err err;
    ts_err_clear(&err);
    if (ts_system_load(name, sys, &err) != TS_OK) {
        print_error("system %s does not load: %s\n", name, err.msg);
        fail();
    }
}

static inline void parse_system(const char *text, struct ts_system *sys)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_system_parse(&root, sys, &err);
    cJSON_Delete(doc);
    if (rc != TS_OK) {
        print_error("system does not parse: %s\n", err.msg);
        fail();
    }
}

#endif
