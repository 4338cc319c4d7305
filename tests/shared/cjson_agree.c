/* Compares our JSON tree with cJSON's (see the header). */
#include <string.h>

#include "cjson_agree.h"

int avkt_agrees_with_cjson(const avki_json *v, const cJSON *c)
{
    size_t i;
    const cJSON *k;
    switch (v->type) {
    case AVKI_JSON_NULL: return cJSON_IsNull(c);
    case AVKI_JSON_TRUE: return cJSON_IsTrue(c);
    case AVKI_JSON_FALSE: return cJSON_IsFalse(c);
    case AVKI_JSON_NUMBER:
        return cJSON_IsNumber(c) && memcmp(&v->u.number.d, &c->valuedouble, sizeof(double)) == 0;
    case AVKI_JSON_STRING:
        return cJSON_IsString(c) && strcmp(c->valuestring, v->u.string.ptr) == 0;
    case AVKI_JSON_ARRAY:
        if (!cJSON_IsArray(c))
            return 0;
        for (i = 0, k = c->child; i < v->u.array.count; i++, k = k->next)
            if (!k || !avkt_agrees_with_cjson(v->u.array.items[i], k))
                return 0;
        return k == NULL;
    case AVKI_JSON_OBJECT:
        if (!cJSON_IsObject(c))
            return 0;
        for (i = 0, k = c->child; i < v->u.object.count; i++, k = k->next)
            if (!k || strcmp(k->string, v->u.object.members[i].key) != 0 ||
                !avkt_agrees_with_cjson(v->u.object.members[i].value, k))
                return 0;
        return k == NULL;
    }
    return 0;
}
