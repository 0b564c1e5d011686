/*
 * trainsim.h: trainsim as a C library (libtrainsim, pkg-config trainsim). Each call does what
 * the command of the same name does - the same code, so the same answer to the last byte - and
 * returns its JSON answer and its messages as values instead of printing them.
 *
 *   struct trainsim_result r;
 *   const char *opts[] = {"--set", "parallel.tp=4", NULL};
 *   if (trainsim_run("configs/gpt3-175b-a100.json", opts, &r) == TRAINSIM_OK)
 *       puts(r.json);                  // what `trainsim run FILE --format json` prints
 *   else
 *       fprintf(stderr, "%s", r.messages);   // e.g. "...: parallel.tp: 3 does not divide heads (32)"
 *   trainsim_result_free(&r);
 *
 * A job or sweep is a path, or the JSON text itself (a string starting with '{'), whose
 * catalogue names resolve as in a file and whose relative paths resolve from the working
 * directory. `options` is a NULL-terminated list of the command's options (NULL for none;
 * --format is always json). The catalogue is found as the command finds it (TRAINSIM_HOME,
 * the installed share/trainsim, the source tree).
 *
 * Status: TRAINSIM_OK 0, TRAINSIM_ERR_RUNTIME 1, TRAINSIM_ERR_INPUT 2 (bad input or options:
 * `messages` names the file and the JSON path), as the command's exit status.
 *
 * Thread safety: one call at a time per process (the calls capture the process's standard
 * error while they run); each call uses OpenMP threads inside as the command does.
 */
#ifndef TRAINSIM_H
#define TRAINSIM_H

#ifdef __cplusplus
extern "C" {
#endif

#define TRAINSIM_OK 0
#define TRAINSIM_ERR_RUNTIME 1
#define TRAINSIM_ERR_INPUT 2

struct trainsim_result {
    int status;         // as returned
    char *json;         // the answer (NUL-terminated JSON text), or NULL on failure
    char *messages;     // warnings and errors the command would print on stderr ("" if none)
};

/* trainsim run JOB --format json [options...] */
int trainsim_run(const char *job, const char *const *options, struct trainsim_result *out);

/* trainsim sweep SWEEP --format json --no-progress [options...] */
int trainsim_sweep(const char *sweep, const char *const *options, struct trainsim_result *out);

/* trainsim list KIND --format json (KIND: models, accelerators, systems, software, prices,
 * attention) and trainsim show NAME --format json: the catalogue and one entry. */
int trainsim_list(const char *kind, struct trainsim_result *out);
int trainsim_show(const char *name, struct trainsim_result *out);

/* Free what a call returned (the struct itself is the caller's). */
void trainsim_result_free(struct trainsim_result *r);

/* "0.1.0" */
const char *trainsim_version(void);

#ifdef __cplusplus
}
#endif

#endif
