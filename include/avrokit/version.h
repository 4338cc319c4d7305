/* Library version. */
#ifndef AVROKIT_VERSION_H
#define AVROKIT_VERSION_H

#include "avrokit/macros.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AVK_VERSION_MAJOR 0
#define AVK_VERSION_MINOR 1
#define AVK_VERSION_PATCH 0
/* The only place the version is written (CMake reads the three lines
 * above): the string is made from them. */
#define AVK_VERSION_STR_(x) #x
#define AVK_VERSION_STR(x) AVK_VERSION_STR_(x)
#define AVK_VERSION_STRING                                                            \
    AVK_VERSION_STR(AVK_VERSION_MAJOR) "." AVK_VERSION_STR(AVK_VERSION_MINOR) "." \
        AVK_VERSION_STR(AVK_VERSION_PATCH)

/* The version of the library linked at run time, e.g. "0.1.0". */
AVK_EXPORT const char *avk_version(void);

#ifdef __cplusplus
}
#endif
#endif
