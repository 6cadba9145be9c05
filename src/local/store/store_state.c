/* store_state: the states of a local run (see store_state.h). */
#include "local/store/store_state.h"

#include <errno.h>
#include <string.h>

struct row {
    const char *name;
    bool final, recorded;
};

#define STORE_STATE_ROW_(e, n, f, r) [e] = {n, f, r},
static const struct row rows[] = {STORE_STATES(STORE_STATE_ROW_)};
#undef STORE_STATE_ROW_

static const struct row *row_of(enum store_state s)
{
    return (unsigned)s < STORE_STATE_END_ ? &rows[s] : &rows[STORE_UNKNOWN];
}

const char *store_state_name(enum store_state s)
{
    return row_of(s)->name;
}

int store_state_parse(const char *name, enum store_state *out)
{
    for (unsigned i = 0; name && i < STORE_STATE_END_; i++)
        if (!strcmp(name, rows[i].name)) {
            *out = (enum store_state)i;
            return 0;
        }
    return -ENOENT;
}

bool store_state_final(enum store_state s)
{
    return row_of(s)->final;
}

bool store_state_recorded(enum store_state s)
{
    return row_of(s)->recorded;
}

bool store_state_abandoned(enum store_state s)
{
    return store_state_final(s) && !store_state_recorded(s);
}

enum store_state store_state_of_exit(int status)
{
    return status == 0 ? STORE_COMPLETED : status == 1 ? STORE_FAILED : STORE_INTERRUPTED;
}
