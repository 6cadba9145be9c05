/* store_state: the one table of run states: names both ways, final, recorded, abandoned, and
 * the state of an exit status. */
#include "local/store/store_state.h"
#include "testutil.h"

#include <errno.h>
#include <string.h>

static void test_names(void **state)
{
    (void)state;
    static const char *const names[] = {"Starting",    "Running", "Completed", "Failed",
                                        "Interrupted", "Lost",    "Unknown"};
    enum store_state s;
    assert_int_equal(STORE_STATE_END_, sizeof(names) / sizeof(names[0]));
    for (unsigned i = 0; i < STORE_STATE_END_; i++) {
        assert_string_equal(store_state_name((enum store_state)i), names[i]);
        assert_int_equal(store_state_parse(names[i], &s), 0);
        assert_int_equal(s, i);
    }
    assert_string_equal(store_state_name(STORE_STATE_END_), "Unknown");
    assert_string_equal(store_state_name((enum store_state)-1), "Unknown");
    assert_int_equal(store_state_parse("Suspended", &s), -ENOENT); /* a JobSet's, not a run's */
    assert_int_equal(store_state_parse("running", &s), -ENOENT);
    assert_int_equal(store_state_parse(NULL, &s), -ENOENT);
}

static void test_kinds(void **state)
{
    (void)state;
    assert_false(store_state_final(STORE_STARTING));
    assert_false(store_state_final(STORE_RUNNING));
    for (enum store_state s = STORE_COMPLETED; s < STORE_STATE_END_; s++)
        assert_true(store_state_final(s));
    assert_true(store_state_recorded(STORE_RUNNING));
    assert_true(store_state_recorded(STORE_INTERRUPTED));
    assert_false(store_state_recorded(STORE_STARTING));
    assert_false(store_state_abandoned(STORE_STARTING));
    assert_false(store_state_abandoned(STORE_FAILED));
    assert_true(store_state_abandoned(STORE_LOST));
    assert_true(store_state_abandoned(STORE_UNKNOWN));
    assert_int_equal(store_state_of_exit(0), STORE_COMPLETED);
    assert_int_equal(store_state_of_exit(1), STORE_FAILED);
    assert_int_equal(store_state_of_exit(130), STORE_INTERRUPTED);
    assert_int_equal(store_state_of_exit(143), STORE_INTERRUPTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
