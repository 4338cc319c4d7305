/* Library version. */
#ifndef AVROKIT_VERSION_H
#define AVROKIT_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define AVK_VERSION_MAJOR 0
#define AVK_VERSION_MINOR 1
#define AVK_VERSION_PATCH 0
#define AVK_VERSION_STRING "0.1.0"

/* The version of the library linked at run time, e.g. "0.1.0". */
const char *avk_version(void);

#ifdef __cplusplus
}
#endif
#endif
