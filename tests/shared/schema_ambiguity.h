/* Shared by tests and fuzz targets: whether a schema's canonical form can be read back as written. */
#ifndef AVKT_SCHEMA_AMBIGUITY_H
#define AVKT_SCHEMA_AMBIGUITY_H

#include "avrokit/schema.h"

/* The Parsing Canonical Form writes full names and drops "namespace", so a
 * named type of the null namespace met inside a type with a namespace
 * (defined or referenced there) reads back in that namespace: the
 * specification's form cannot express it (Java's behaves the same).
 * Returns 1 when root's canonical form has this ambiguity, or when memory
 * runs out while walking (callers then skip the canonical round trip). */
int avkt_null_ns_ambiguous(const avk_type *root);

#endif
