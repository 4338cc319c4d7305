/* UTF-8 checks for the Avro JSON writer: validation with an 8-byte ASCII path, maximal ill-formed subparts. */
#include "json/json_utf8.h"

#include <string.h>

size_t avki_utf8_valid_prefix(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t k;
        /* Eight ASCII bytes at a time: the common case of names and ids. */
        while (n - i >= 8) {
            uint64_t x;
            memcpy(&x, s + i, 8);
            if (x & 0x8080808080808080u)
                break;
            i += 8;
        }
        if (i == n)
            break;
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        k = avki_utf8_sequence(s + i, n - i);
        if (k == 0)
            return i;
        i += k;
    }
    return n;
}

size_t avki_utf8_bad_length(const uint8_t *s, size_t n)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t want, k;
    if (c < 0xC2 || c > 0xF4)
        return 1;
    want = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    /* Only the second byte has narrower ranges (table 3-7). */
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    for (k = 1; k < want && k < n; k++) {
        unsigned b = s[k];
        if (k == 1 ? b < lo || b > hi : (b & 0xC0) != 0x80)
            break;
    }
    return k;
}
