/* Shared by tests and fuzz targets: our JSON tree against cJSON's for the same text. */
#ifndef AVKT_CJSON_AGREE_H
#define AVKT_CJSON_AGREE_H

#include <cJSON.h>

#include "json/json.h"

/* 1 when the trees agree: types, strings up to a NUL (where cJSON's end),
 * numbers as the same double, members in order. */
int avkt_agrees_with_cjson(const avki_json *v, const cJSON *c);

#endif
