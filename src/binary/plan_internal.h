/* The compiled plan: one node per distinct schema type, records' fields laid out as flat step arrays. */
#ifndef AVK_BINARY_PLAN_INTERNAL_H
#define AVK_BINARY_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/plan.h"
#include "common/arena.h"
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
    AVKI_OP_FIXED,
    /* Resolution (plans from avk_plan_new_resolving; src/resolve/ compiles
     * them). Leaf promotions read the writer's wire form and store the
     * reader's: */
    AVKI_OP_INT_LONG,
    AVKI_OP_INT_FLOAT,
    AVKI_OP_INT_DOUBLE,
    AVKI_OP_LONG_FLOAT,
    AVKI_OP_LONG_DOUBLE,
    AVKI_OP_FLOAT_DOUBLE,
    AVKI_OP_SKIP,   /* record step: a writer field the reader lacks; node is
                       the writer type's plain node, skipped unread */
    AVKI_OP_UNWRAP, /* a writer union read as a non-union: count writer
                       branches, one step each (FAIL where none matches) */
    AVKI_OP_WRAP,   /* a writer non-union read as a union: count is the
                       reader's branch index, first its one step */
    AVKI_OP_FAIL    /* a writer branch the reader cannot take: an error
                       when read; extra indexes the message */
} avki_op;

/* The highest plain op: ops above it appear only in resolving plans. */
#define AVKI_OP_LAST_PLAIN AVKI_OP_FIXED

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
                           varint call; 0 otherwise. SKIP steps: the op of the
                           writer's node */
    uint32_t node;      /* index of the child node in plan->nodes */
    const avk_type *type;
} avki_step;

/* Longest run of int/long fields decoded by one bulk call. */
#define AVKI_MAX_RUN 64
/* The decoder takes runs of at least this many through the bulk kernel:
 * below a kernel's group of 8, a bulk call costs more than it saves, and
 * the branch-free word decoder per field wins (a record of 5 longs decodes
 * about 15% faster so). The encoder gathers every marked run. */
#define AVKI_DECODE_MIN_RUN 8

typedef struct avki_node {
    uint8_t op;          /* avki_op */
    uint8_t store;       /* arrays: avki_store of the items; records, enums and
                            unions of a resolving plan: 1 (see extra) */
    uint8_t flat;        /* records, unions, arrays and maps whose values never
                            recurse and nest at most AVKI_FLAT_MAX levels: their
                            height (1 to AVKI_FLAT_MAX), else 0. Walkers run flat
                            values on the C stack, without frames of their own */
    uint32_t count;      /* record: fields; union: branches; enum: symbols;
                            fixed: size; array of fixed: the item size */
    uint32_t first;      /* record: first field step; union: first branch
                            step; array, map: the item/value step */
    uint32_t extra;      /* resolving records, enums, unions and FAIL: index
                            in plan->rx */
    uint64_t min_size;   /* fewest encoded bytes a value can take (capped) */
    const avk_type *type;
} avki_node;

/* A reader field the writer lacks: its slot and default value. */
typedef struct avki_default {
    uint32_t slot;
    avk_value value;
} avki_default;

/* What a resolving node needs beyond avki_node. */
typedef struct avki_rx {
    uint32_t out_count;            /* record: the reader's field count */
    const uint32_t *slots;         /* record: reader field of each writer step */
    const avki_default *defaults;  /* record: reader fields the writer lacks */
    uint32_t default_count;
    const int32_t *map;            /* enum: reader symbol of each writer symbol;
                                      union: reader branch of each writer branch
                                      (-1: none, an error when read) */
    const char *message;           /* FAIL: why */
    const avk_type *writer;        /* the writer's type (enum symbols for errors) */
} avki_rx;

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

    /* Resolving plans (0 and NULL otherwise). nodes[0..) start with the
     * writer's plain plan, which skipping runs; decoding starts at root. */
    uint32_t root;
    const avk_type *writer_type;
    avki_rx *rx;
    avk_arena *rx_arena; /* rx, slots, maps, defaults, messages */
};

/* Values of a flat node nest this many levels at most, so walking them on
 * the C stack costs a few KiB whatever the input holds; deeper and
 * recursive types go on the walkers' explicit stacks. */
#define AVKI_FLAT_MAX 4

/* Sets nodes' flat heights; call once a plan's nodes and steps are final. */
void avki_plan_mark_flat(avk_plan *p);

/* Grows plan->nodes / plan->steps to hold n more; 0 when out of memory. */
int avki_plan_reserve(avk_plan *p, size_t nodes, size_t steps);

/* How an array of items of this type is stored. */
avki_store avki_store_of(const avk_type *items);

/* Item size in bytes of typed array storage (0 for NULL and BOXED). */
size_t avki_store_size(const avki_node *array_node);

#endif
