/* avrokit: Apache Avro for C. Includes every public header. */
#ifndef AVROKIT_AVROKIT_H
#define AVROKIT_AVROKIT_H

#include "avrokit/alloc.h"
#include "avrokit/arena.h"
#include "avrokit/arrow.h"
#include "avrokit/avro_json.h"
#include "avrokit/builder.h"
#include "avrokit/check.h"
#include "avrokit/codec.h"
#include "avrokit/columns.h"
#include "avrokit/file.h"
#include "avrokit/file_index.h"
#include "avrokit/kernel.h"
#include "avrokit/logical.h"
#include "avrokit/macros.h"
#include "avrokit/message.h"
#include "avrokit/plan.h"
#include "avrokit/push.h"
#include "avrokit/reader.h"
#include "avrokit/resolve.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/value.h"
#include "avrokit/varint.h"
#include "avrokit/version.h"
#include "avrokit/writer.h"

#endif
