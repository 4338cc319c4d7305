/* avrokit: Apache Avro for C. Includes every public header. */
#ifndef AVROKIT_AVROKIT_H
#define AVROKIT_AVROKIT_H

#include "avrokit/alloc.h"
#include "avrokit/kernel.h"
#include "avrokit/macros.h"
#include "avrokit/reader.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/varint.h"
#include "avrokit/version.h"
#include "avrokit/writer.h"

#endif
