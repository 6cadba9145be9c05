/* store_state: the one table of the states a local run is in.  Their names are what run.json's
 * "state" holds (the runner writes it) and what `get` shows (the jaxset.dev/run-state
 * annotation); every other place asks this table instead of spelling a name.
 *
 *   X(enum, name, final, recorded)
 *
 * final: no other state follows.  recorded: a state the runner writes into run.json; the others
 * are what the store says of a run whose run.json is missing or whose process is gone. */
#ifndef JX_STORE_STATE_H
#define JX_STORE_STATE_H

#include <stdbool.h>

#define STORE_STATES(X)                                                                       \
    /* the directory is made, run.json not written yet, its process lives */                \
    X(STORE_STARTING, "Starting", false, false)                                               \
    X(STORE_RUNNING, "Running", false, true)                                                  \
    X(STORE_COMPLETED, "Completed", true, true)      /* the job completed: exit status 0 */  \
    X(STORE_FAILED, "Failed", true, true)            /* the job failed: exit status 1 */      \
    X(STORE_INTERRUPTED, "Interrupted", true, true)  /* stopped by a signal first */          \
    X(STORE_LOST, "Lost", true, false)      /* run.json says Running, its process is gone */  \
    X(STORE_UNKNOWN, "Unknown", true, false) /* no readable run.json and no process */

#define STORE_STATE_ENUM_(e, name, final, recorded) e,
enum store_state { STORE_STATES(STORE_STATE_ENUM_) STORE_STATE_END_ };
#undef STORE_STATE_ENUM_

/* The state's name ("Running"); static.  "Unknown" for a value outside the table. */
const char *store_state_name(enum store_state s);

/* The state named `name` (exactly, as the table spells it) into *out: 0, or -ENOENT for NULL
 * and every other name (a live run's JobSet state, Suspended or Restarting, among them). */
int store_state_parse(const char *name, enum store_state *out);

bool store_state_final(enum store_state s);
bool store_state_recorded(enum store_state s);

/* Whether the run's process went away without recording its end (final, not recorded: Lost,
 * Unknown): the pods it left Pending or Running were killed with it. */
bool store_state_abandoned(enum store_state s);

/* The state a run ends in with exit status `status` (0 Completed, 1 Failed, else a signal
 * stopped it: Interrupted). */
enum store_state store_state_of_exit(int status);

#endif
