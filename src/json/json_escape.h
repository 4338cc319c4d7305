/* String escaping shared by the JSON text writer and the Avro JSON writer: which bytes escape, how, and an 8-byte test. */
#ifndef AVK_JSON_JSON_ESCAPE_H
#define AVK_JSON_JSON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes a string must escape (RFC 8259 section 7): '"', '\\' and the
 * control characters U+0000-U+001F. 0 for a byte copied as is; else the
 * letter of the short escape, or 'u' for \u00XX. */
extern const char avki_json_escape_of[256];

/* Writes the escape for byte c at d; returns the bytes written (2 or 6). */
static inline size_t avki_json_put_escape(uint8_t *d, unsigned char c)
{
    static const char hex_digits[] = "0123456789abcdef";
    char e = avki_json_escape_of[c];
    d[0] = '\\';
    if (e != 'u') {
        d[1] = (uint8_t)e;
        return 2;
    }
    d[1] = 'u';
    d[2] = '0';
    d[3] = '0';
    d[4] = (uint8_t)hex_digits[c >> 4];
    d[5] = (uint8_t)hex_digits[c & 15];
    return 6;
}

/* Nonzero when one of the 8 bytes in x is below 0x20, '"' or '\\'
 * (exact: the usual "has a zero byte" test, (v - 0x01..) & ~v & 0x80..,
 * has no false positive in the any-byte sense, and below 0x20 is the same
 * test with 0x20). Bytes from 0x80 up never match: their top bit is set. */
static inline uint64_t avki_json_needs_escape8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, tops = 0x8080808080808080u;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    return ((x - ones * 0x20) & ~x & tops) | ((q - ones) & ~q & tops) |
           ((b - ones) & ~b & tops);
}

#endif
