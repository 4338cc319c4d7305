/* CLI: one record as a line of Avro JSON (all of it or nothing), and the message for a record that cannot be written. */
#include <stdio.h>

#include "cli.h"
#include "cli_records.h"

avk_status avkcli_json_line(const avk_value *v, unsigned flags, avk_writer *rec, avk_writer *w,
                            int *value_error, avk_error *err)
{
    const uint8_t *data;
    size_t len;
    avk_status st;
    avk_writer_reset(rec);
    st = avk_value_write_json(v, flags, rec, err);
    *value_error = st != AVK_OK;
    if (st == AVK_OK)
        st = avk_writer_write_raw(rec, "\n", 1, err);
    if (st != AVK_OK)
        return st;
    data = avk_writer_data(rec, &len);
    return avk_writer_write_raw(w, data, len, err);
}

void avkcli_report_value(const char *path, uint64_t block, uint64_t record, avk_status st,
                         const avk_error *err)
{
    fprintf(stderr, "%s: block %llu, record %llu: %s%s\n", avkcli_display_name(path),
            (unsigned long long)block, (unsigned long long)record, err->message,
            st == AVK_ERR_MALFORMED ? " (--invalid-utf8=replace writes U+FFFD instead)" : "");
}
