/* UTF-8 for the Avro JSON writer: well-formed sequences and the maximal ill-formed subparts Unicode replaces with U+FFFD. */
#ifndef AVK_JSON_JSON_UTF8_H
#define AVK_JSON_JSON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (2-4) of the well-formed UTF-8 sequence for one character
 * starting with the byte s[0] >= 0x80 (Unicode 15, table 3-7: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 when s[0..n) does
 * not start with one (n may end inside it). n > 0. */
static inline size_t avki_utf8_sequence(const uint8_t *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0xC2)
        return 0; /* ASCII is the caller's; continuation byte; overlong C0/C1 */
    if (c < 0xE0)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80; /* E0 80..9F would be overlong */
        unsigned hi = c == 0xED ? 0x9F : 0xBF; /* ED A0..BF would be a surrogate */
        return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c < 0xF5) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80; /* F0 80..8F would be overlong */
        unsigned hi = c == 0xF4 ? 0x8F : 0xBF; /* F4 90.. is above U+10FFFF */
        return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 &&
                       (s[3] & 0xC0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

/* Length of the longest prefix of s[0..n) that is well-formed UTF-8: n
 * when all of it is. ASCII goes eight bytes at a time. */
size_t avki_utf8_valid_prefix(const uint8_t *s, size_t n);

/* At s[0..n) (n > 0), where no well-formed sequence starts: the length
 * (1-3) of the maximal subpart there, the longest start of a well-formed
 * sequence, or 1 when s[0] starts none. One U+FFFD replaces each (Unicode
 * 15, section 3.9, "U+FFFD Substitution of Maximal Subparts"): "\xE0\x80"
 * is two of them (E0 80 starts nothing), "\xE1\x80" one. */
size_t avki_utf8_bad_length(const uint8_t *s, size_t n);

#endif
