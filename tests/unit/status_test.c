/* Unit tests for status names and error records. */
#include <string.h>

#include "avkt.h"

static void test_status_names(void **state)
{
    static const struct {
        avk_status status;
        int value;
        const char *name;
    } table[] = {
        {AVK_OK, 0, "OK"},
        {AVK_ERR_TRUNCATED, 1, "TRUNCATED"},
        {AVK_ERR_MALFORMED, 2, "MALFORMED"},
        {AVK_ERR_LIMIT, 3, "LIMIT"},
        {AVK_ERR_SCHEMA, 4, "SCHEMA"},
        {AVK_ERR_RESOLUTION, 5, "RESOLUTION"},
        {AVK_ERR_CODEC, 6, "CODEC"},
        {AVK_ERR_IO, 7, "IO"},
        {AVK_ERR_SYNC, 8, "SYNC"},
        {AVK_ERR_CHECKSUM, 9, "CHECKSUM"},
        {AVK_ERR_NO_MEMORY, 10, "NO_MEMORY"},
        {AVK_ERR_INVALID_ARGUMENT, 11, "INVALID_ARGUMENT"},
        {AVK_ERR_UNSUPPORTED, 12, "UNSUPPORTED"},
        {AVK_ERR_NOT_FOUND, 13, "NOT_FOUND"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
        /* The numbers are pinned: they may be stored and compared. */
        assert_int_equal((int)table[i].status, table[i].value);
        assert_string_equal(avk_status_name(table[i].status), table[i].name);
    }
}

static void test_status_name_unknown(void **state)
{
    static const int unknown[] = {14, 15, 100, 255, 0x7fffffff, -1};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *name = avk_status_name((avk_status)unknown[i]);
        assert_non_null(name);
        assert_string_equal(name, "UNKNOWN");
    }
}

static void test_error_clear(void **state)
{
    avk_error err;
    (void)state;
    memset(&err, 0x5a, sizeof err);
    avk_error_clear(&err);
    assert_int_equal(err.status, AVK_OK);
    assert_int_equal(err.sys_errno, 0);
    assert_true(err.offset == AVK_OFFSET_UNKNOWN);
    AVKT_ASSERT_I64_EQ(err.block, -1);
    assert_string_equal(err.path, "");
    assert_string_equal(err.message, "");
    avk_error_clear(&err); /* idempotent */
    assert_int_equal(err.status, AVK_OK);
    assert_true(err.offset == AVK_OFFSET_UNKNOWN);
    avk_error_clear(NULL); /* allowed, ignored */
}

static void test_error_filled_then_cleared(void **state)
{
    /* A real failure fills the record; clearing it resets every field. */
    static const uint8_t bad[] = {0x80, 0x80};
    avk_error err;
    (void)state;
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_varint_explain(bad, sizeof bad, 0, 40, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.status, AVK_ERR_TRUNCATED);
    assert_true(err.offset == 40);
    assert_true(strlen(err.message) > 0);
    avk_error_clear(&err);
    assert_int_equal(err.status, AVK_OK);
    assert_true(err.offset == AVK_OFFSET_UNKNOWN);
    assert_string_equal(err.message, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_status_name_unknown),
        cmocka_unit_test(test_error_clear),
        cmocka_unit_test(test_error_filled_then_cleared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
