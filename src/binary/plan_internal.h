/* The compiled plan: one node per distinct schema type, records' fields laid out as flat step arrays. */
#ifndef AVK_BINARY_PLAN_INTERNAL_H
#define AVK_BINARY_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/plan.h"
#include "schema/schema_internal.h"

/* What a node does; one per avk_kind. */
typedef enum avki_op {
    AVKI_OP_NULL,
    AVKI_OP_BOOLEAN,
    AVKI_OP_INT,
    AVKI_OP_LONG,
    AVKI_OP_FLOAT,
    AVKI_OP_DOUBLE,
    AVKI_OP_BYTES,
    AVKI_OP_STRING,
    AVKI_OP_RECORD,
    AVKI_OP_ENUM,
    AVKI_OP_ARRAY,
    AVKI_OP_MAP,
    AVKI_OP_UNION,
    AVKI_OP_FIXED
} avki_op;

/* How an array's items are stored (avk_value.h documents the layout). */
typedef enum avki_store {
    AVKI_STORE_BOXED,   /* avk_value[] */
    AVKI_STORE_NULL,    /* nothing */
    AVKI_STORE_BOOLEAN, /* uint8_t[] */
    AVKI_STORE_INT,     /* int32_t[] */
    AVKI_STORE_LONG,    /* int64_t[] */
    AVKI_STORE_FLOAT,   /* float[] */
    AVKI_STORE_DOUBLE,  /* double[] */
    AVKI_STORE_FIXED    /* uint8_t[count * size] */
} avki_store;

/* A reference from a compound node to a child: the child's op copied in
 * so leaf children run without touching the child node. */
typedef struct avki_step {
    uint8_t op;         /* avki_op of the child */
    uint8_t run;        /* record fields: when > 1, this field starts a run of
                           `run` int (or long) fields that decode as one bulk
                           varint call; 0 otherwise */
    uint32_t node;      /* index of the child node in plan->nodes */
    const avk_type *type;
} avki_step;

/* Longest run of int/long fields decoded by one bulk call. */
#define AVKI_MAX_RUN 64

typedef struct avki_node {
    uint8_t op;          /* avki_op */
    uint8_t store;       /* arrays: avki_store of the items */
    uint32_t count;      /* record: fields; union: branches; enum: symbols;
                            fixed: size; array of fixed: the item size */
    uint32_t first;      /* record: first field step; union: first branch
                            step; array, map: the item/value step */
    uint64_t min_size;   /* fewest encoded bytes a value can take (capped) */
    const avk_type *type;
} avki_node;

struct avk_plan {
    avk_allocator alloc;
    const avk_type *type;
    avki_node *nodes;    /* nodes[0] is the root */
    size_t node_count;
    avki_step *steps;    /* children of records, unions, arrays, maps */
    size_t step_count;
    unsigned flags;      /* AVK_PLAN_* */
    avk_limits limits;   /* defaults filled in */
    size_t block_items;
    size_t node_cap, step_cap; /* allocated lengths of nodes and steps */
};

/* Item size in bytes of typed array storage (0 for NULL and BOXED). */
size_t avki_store_size(const avki_node *array_node);

#endif
