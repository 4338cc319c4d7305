/* The plan format: what a compiled schema looks like to the walkers that run it (decoder, skipper, encoder, builder). */
#ifndef AVK_PLAN_PLAN_FORMAT_H
#define AVK_PLAN_PLAN_FORMAT_H

/*
 * A plan is two flat arrays, built once (plan.c for one schema, src/resolve/
 * for a writer and a reader schema) and never changed after:
 *
 * - nodes: one per distinct type. Named types are compiled once and found
 *   again by address, so a recursive type is a loop in the graph (a node
 *   whose step points back at it), not an infinite tree, and compiling
 *   takes time linear in the schema.
 * - steps: the edges. A compound node's children are `count` consecutive
 *   steps from `first` (a record's fields in order, a union's branches, an
 *   array's or map's one item step). Each step carries a copy of its
 *   child's op and type, so a walker at a record field can decode a leaf
 *   without loading the child node at all: the field loop stays on one
 *   cache line of steps.
 *
 * How the decoder (src/binary/decode.c) walks it: it starts at
 * nodes[plan->root]. A record runs its steps in order; a leaf step
 * (NULL..STRING, ENUM, FIXED, the promotions, FAIL) is decoded in place
 * from the step alone; a union reads its branch index and continues with
 * that branch's step; a record, array or map child opens a frame on the
 * decoder's explicit stack (values nest without using the C stack) unless
 * the child node is `flat`, in which case it runs in place. Arrays and
 * maps read Avro blocks (a count, a negative count with a byte size, 0 to
 * end) and run their one item step per item. The skipper and the encoder
 * walk the plain nodes from nodes[0] the same way; the ops after
 * AVKI_OP_LAST_PLAIN appear only in resolving plans, from plan->root, and
 * only the decoder runs them.
 */

#include <stddef.h>
#include <stdint.h>

#include "avrokit/plan.h"
#include "common/arena.h"
#include "schema/schema_internal.h"

/* What a node (and a step pointing at it) does. The plain ops have the
 * values of avk_kind, so compiling a type is `op = kind`; walkers switch
 * on the op alone. */
typedef enum avki_op {
    /* Leaves: one value, read from the step alone. */
    AVKI_OP_NULL,     /* no bytes */
    AVKI_OP_BOOLEAN,  /* one byte, 0 or 1 */
    AVKI_OP_INT,      /* zigzag varint, at most 5 bytes */
    AVKI_OP_LONG,     /* zigzag varint, at most 10 bytes */
    AVKI_OP_FLOAT,    /* 4 bytes little-endian */
    AVKI_OP_DOUBLE,   /* 8 bytes little-endian */
    AVKI_OP_BYTES,    /* a length (checked before anything else), then payload */
    AVKI_OP_STRING,   /* as BYTES; UTF-8 checked under AVK_PLAN_CHECK_UTF8 */
    /* Compounds: count children as steps from first. */
    AVKI_OP_RECORD,   /* count fields, in schema order (no bytes between them) */
    AVKI_OP_ENUM,     /* a leaf: an int index below count (symbols) */
    AVKI_OP_ARRAY,    /* blocks of items of step first; store says how they
                         are kept (typed C arrays avoid an avk_value each) */
    AVKI_OP_MAP,      /* blocks of (string key, value of step first) */
    AVKI_OP_UNION,    /* a long branch index below count, then that
                         branch's value (step first + index) */
    AVKI_OP_FIXED,    /* a leaf: exactly count bytes */

    /* Resolution (plans from avk_plan_new_resolving; src/resolve/ compiles
     * them). The bytes are the writer's, the values the reader's, so where
     * the two schemas differ the decoder needs an op that says how. */

    /* Promotions (the Avro spec's int -> long, float, double; long ->
     * float, double; float -> double): read the writer's wire form, store
     * the reader's type. Leaves, decoded in place like INT or FLOAT. */
    AVKI_OP_INT_LONG,
    AVKI_OP_INT_FLOAT,
    AVKI_OP_INT_DOUBLE,
    AVKI_OP_LONG_FLOAT,
    AVKI_OP_LONG_DOUBLE,
    AVKI_OP_FLOAT_DOUBLE,
    /* Record step only: a writer field the reader lacks. Its bytes must be
     * passed over to reach the next field, so node is the writer type's
     * plain node (what the skipper runs) and run holds that node's op, so
     * leaf fields are skipped inline without the skipper. */
    AVKI_OP_SKIP,
    /* A writer union read as a reader non-union: read the writer's branch
     * index, then its step (count writer branches, one step each). A
     * branch the reader cannot take is a FAIL step, so the error comes only
     * if such a value is met: data that never uses it reads fine. */
    AVKI_OP_UNWRAP,
    /* A writer non-union read as a reader union: no index on the wire. The
     * value becomes branch `count` (the reader's branch the writer's type
     * fits first) and is read through the node's one step. */
    AVKI_OP_WRAP,
    /* A value the reader cannot take (an enum symbol or a branch with no
     * match): an AVK_ERR_RESOLUTION when read, with plan->rx[extra].message.
     * Compiled rather than refused, for the reason UNWRAP gives. */
    AVKI_OP_FAIL
} avki_op;

/* The highest plain op: ops above it appear only in resolving plans. */
#define AVKI_OP_LAST_PLAIN AVKI_OP_FIXED

/* How an array's items are stored (avk_value.h documents the layout).
 * Arrays of fixed-size leaves are kept as plain C arrays: no avk_value per
 * item, and whole blocks decode through bulk kernels. */
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
    const avk_type *type; /* the value's type (the reader's, when resolving) */
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
                            fixed: size; array of fixed: the item size;
                            WRAP: the reader's branch */
    uint32_t first;      /* record: first field step; union: first branch
                            step; array, map, WRAP: the item/value step */
    uint32_t extra;      /* resolving records, enums, unions and FAIL: index
                            in plan->rx */
    uint64_t min_size;   /* fewest encoded bytes a value can take (capped).
                            A block of n items needs n * min_size bytes, so
                            a count the input cannot hold is refused before
                            anything is allocated for it; 0 marks items that
                            cost no bytes, counted against max_empty_items */
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
