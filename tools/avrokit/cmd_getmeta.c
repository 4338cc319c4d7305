/* avrokit getmeta: print a container file's metadata, every key and value or one of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PREFIX AVKCLI_PROG " getmeta"

static const char *const help =
    "Usage: " PREFIX " [options] FILE\n"
    "\n"
    "Prints the metadata of the container file FILE ('-': standard input), one\n"
    "entry per line in file order: the key, a tab, the value. In keys and values,\n"
    "a tab, newline, carriage return and backslash print as \\t \\n \\r \\\\, other\n"
    "control bytes and bytes that are not UTF-8 as \\xHH. A codec written under a\n"
    "non-standard name (lzma, zstd) is shown with the codec it is read as, e.g.\n"
    "\"avro.codec<TAB>lzma (read as xz; non-standard name)\". A header that holds\n"
    "a key twice, a key with a NUL byte or one that is not UTF-8 is refused\n"
    "(status 1), as every command refuses it: implementations differ on which of\n"
    "two values counts.\n"
    "\n"
    "Options:\n"
    "  --key K      print only the value of K, as stored (bytes unchanged), or fail\n"
    "               with status 1 when FILE has no such key\n"
    "  -h, --help   show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " users.avro\n"
    "  " PREFIX " --key avro.codec users.avro\n";

/* Length of the valid UTF-8 sequence at s[0..n) (shortest form, no
 * surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const uint8_t *s, size_t n)
{
    size_t len, i;
    uint32_t c;
    if (s[0] < 0xC2 || s[0] > 0xF4)
        return 0;
    len = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
    if (n < len)
        return 0;
    c = s[0] & (0x7F >> len);
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
        (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return len;
}

static avk_status write_escaped(avk_writer *w, const uint8_t *s, size_t n, avk_error *err)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0, run;
    avk_status st = AVK_OK;
    while (i < n && st == AVK_OK) {
        uint8_t c = s[i];
        char esc[4];
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '\\'; run++)
                ;
            st = avk_writer_write_raw(w, s + i, run - i, err);
            i = run;
            continue;
        }
        if (c >= 0x80 && (run = utf8_len(s + i, n - i)) != 0) {
            st = avk_writer_write_raw(w, s + i, run, err);
            i += run;
            continue;
        }
        esc[0] = '\\';
        if (c == '\t' || c == '\n' || c == '\r' || c == '\\') {
            esc[1] = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
            st = avk_writer_write_raw(w, esc, 2, err);
        } else {
            esc[1] = 'x';
            esc[2] = hex[c >> 4];
            esc[3] = hex[c & 15];
            st = avk_writer_write_raw(w, esc, 4, err);
        }
        i++;
    }
    return st;
}

static avk_status print_all(const avk_file_reader *fr, avk_writer *w, avk_error *err)
{
    size_t i, n = avk_file_reader_meta_count(fr), len;
    const char *key;
    const uint8_t *value;
    avk_status st = AVK_OK;
    int nonstandard = 0;
    avk_codec codec = avk_file_reader_codec(fr, &nonstandard);
    for (i = 0; i < n && st == AVK_OK; i++) {
        if (!avk_file_reader_meta_at(fr, i, &key, &value, &len))
            continue;
        st = write_escaped(w, (const uint8_t *)key, strlen(key), err);
        if (st == AVK_OK)
            st = avk_writer_write_raw(w, "\t", 1, err);
        if (st == AVK_OK)
            st = write_escaped(w, value, len, err);
        if (st == AVK_OK && nonstandard && strcmp(key, "avro.codec") == 0) {
            char note[64];
            int k = snprintf(note, sizeof note, " (read as %s; non-standard name)",
                             avk_codec_name(codec));
            st = avk_writer_write_raw(w, note, (size_t)k, err);
        }
        if (st == AVK_OK)
            st = avk_writer_write_raw(w, "\n", 1, err);
    }
    return st;
}

int avkcli_cmd_getmeta(int argc, char **argv)
{
    const char *key = NULL;
    int help_wanted, rc;
    size_t npos, len = 0;
    char **pos;
    avk_file_reader *fr;
    avk_writer w;
    avk_error err;
    avk_status st;
    const uint8_t *value;
    const avkcli_option opts[] = {
        {"--key", 'k', &key, NULL, "a metadata key such as avro.codec"},
        AVKCLI_LIMIT_OPTIONS,
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos)
        return AVKCLI_FAIL;
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK && npos != 1)
        rc = npos ? avkcli_usage_error(PREFIX, "one FILE only; '%s' is extra", pos[1])
                  : avkcli_usage_error(PREFIX, "missing FILE (use '-' for standard input)");
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], NULL, &fr);
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    value = key ? avk_file_reader_meta(fr, key, &len) : NULL;
    if (key && !value) {
        fprintf(stderr, "%s: no metadata key '%s'\n", avkcli_display_name(pos[0]), key);
        rc = AVKCLI_FAIL;
    } else {
        rc = avkcli_stdout_open(&w);
    }
    if (rc == AVKCLI_OK) {
        if (key) {
            st = avk_writer_write_raw(&w, value, len, &err);
            if (st == AVK_OK)
                st = avk_writer_write_raw(&w, "\n", 1, &err);
        } else {
            st = print_all(fr, &w, &err);
        }
        rc = avkcli_stdout_close(&w, st, &err);
    }
    avk_file_reader_free(fr);
    free(pos);
    return rc;
}
