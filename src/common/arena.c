/* Arena: bump allocation in blocks obtained from the caller's allocator, freed all at once. */
#include <stdint.h>
#include <string.h>

#include "common/alloc_internal.h"
#include "common/arena.h"

#define DEFAULT_FIRST_BLOCK ((size_t)4 * 1024)
#define MAX_GROWN_BLOCK ((size_t)1024 * 1024)
#define MAX_ALIGN 16

/* The header rounded up so the first byte after it is MAX_ALIGN-aligned
 * (allocators return at least that alignment for blocks this large). */
#define HEADER_SIZE ((sizeof(avki_arena_block) + MAX_ALIGN - 1) & ~(size_t)(MAX_ALIGN - 1))

/* The room left in the head block. */
static size_t head_room(const avki_arena *a)
{
    return a->head ? (size_t)(a->end - a->cur) : 0;
}

/* Makes b the block being filled, empty. */
static void fill_from(avki_arena *a, avki_arena_block *b)
{
    a->head = b;
    a->cur = (uintptr_t)b + HEADER_SIZE;
    a->end = (uintptr_t)b + b->size;
}

void avki_arena_init(avki_arena *a, const avk_allocator *alloc, size_t first_block, size_t limit)
{
    a->cur = 0;
    a->end = 0;
    a->head = NULL;
    a->caller = NULL;
    a->alloc = avki_allocator_or_libc(alloc);
    a->next_size = first_block ? first_block : DEFAULT_FIRST_BLOCK;
    if (a->next_size < HEADER_SIZE + MAX_ALIGN)
        a->next_size = HEADER_SIZE + MAX_ALIGN;
    a->total = 0;
    a->limit = limit;
    a->limit_hit = 0;
    a->allocations = 0;
    a->grow = NULL;
}

int avki_arena_set_first_block(avki_arena *a, void *mem, size_t size)
{
    uintptr_t base = (uintptr_t)mem, aligned;
    avki_arena_block *b;
    if (a->head || !mem || size < AVKI_ARENA_MIN_CALLER_BLOCK)
        return 0;
    /* The header needs pointer alignment, and the bytes after it start
     * MAX_ALIGN-aligned like those of allocated blocks. */
    aligned = (base + MAX_ALIGN - 1) & ~(uintptr_t)(MAX_ALIGN - 1);
    if (size < (size_t)(aligned - base) + HEADER_SIZE)
        return 0;
    b = (avki_arena_block *)aligned;
    b->next = NULL;
    b->size = size - (size_t)(aligned - base);
    a->caller = b;
    fill_from(a, b);
    return 1;
}

/* Cold: obtains a block that holds size bytes at align and carves them out. */
static void *arena_alloc_slow(avki_arena *a, size_t size, size_t align)
{
    avki_arena_block *b;
    size_t need, block_size;
    uintptr_t base, p;

    /* Room for the header, the worst-case padding and the request. */
    if (size > SIZE_MAX - HEADER_SIZE - align)
        return NULL;
    need = HEADER_SIZE + align - 1 + size;
    block_size = a->next_size > need ? a->next_size : need;
    if (a->limit) {
        if (a->total > a->limit || need > a->limit - a->total) {
            a->limit_hit = 1;
            return NULL;
        }
        /* Near the limit, take only what is left rather than fail early. */
        if (block_size > a->limit - a->total)
            block_size = a->limit - a->total;
    }
    a->allocations++;
    b = (avki_arena_block *)a->alloc.alloc(a->alloc.ctx, block_size);
    if (!b)
        return NULL;
    a->total += block_size;
    b->size = block_size;
    base = (uintptr_t)b;
    p = (base + HEADER_SIZE + align - 1) & ~(uintptr_t)(align - 1);

    /* A request too large for the usual growth gets a block of its own,
     * placed behind the current one, which keeps filling: otherwise the
     * rest of the current block would be wasted. */
    if (a->head && need > a->next_size && head_room(a) >= block_size - (size_t)(p - base) - size) {
        b->next = a->head->next;
        a->head->next = b;
    } else {
        b->next = a->head;
        fill_from(a, b);
        a->cur = p + size;
        if (a->next_size < MAX_GROWN_BLOCK) {
            a->next_size *= 2;
            if (a->next_size > MAX_GROWN_BLOCK)
                a->next_size = MAX_GROWN_BLOCK;
        }
    }
    return (void *)p;
}

void *avki_arena_alloc(avki_arena *a, size_t size, size_t align)
{
    if (align == 0)
        align = 1;
    if (align > MAX_ALIGN || (align & (align - 1)) != 0)
        return NULL;
    if (a->head) {
        uintptr_t p = (a->cur + align - 1) & ~(uintptr_t)(align - 1);
        if (p <= a->end && size <= (size_t)(a->end - p)) {
            a->cur = p + size;
            return (void *)p;
        }
    }
    return arena_alloc_slow(a, size, align);
}

char *avki_arena_strndup(avki_arena *a, const char *s, size_t len)
{
    char *d;
    if (len == SIZE_MAX)
        return NULL;
    d = (char *)avki_arena_alloc(a, len + 1, 1);
    if (!d)
        return NULL;
    if (len)
        memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

void avki_arena_reset(avki_arena *a)
{
    avki_arena_block *b, *next, *keep = NULL;
    a->limit_hit = 0;
    a->grow = NULL; /* it lived in the blocks being emptied */
    /* The steady state of a decoding loop: one block, kept as it is. */
    if (a->head && !a->head->next) {
        fill_from(a, a->head);
        return;
    }
    /* The largest block; on a tie the caller's, which costs no memory of
     * ours to keep. */
    for (b = a->head; b; b = b->next)
        if (!keep || b->size > keep->size || (b->size == keep->size && b == a->caller))
            keep = b;
    for (b = a->head; b; b = next) {
        next = b->next;
        if (b != keep && b != a->caller)
            a->alloc.free(a->alloc.ctx, b, b->size);
    }
    /* A caller's block that lost to a larger one drops out for good:
     * bumping only ever fills the head block, so it would sit unused. */
    if (keep != a->caller)
        a->caller = NULL;
    a->total = 0;
    a->cur = 0;
    a->end = 0;
    a->head = NULL;
    if (keep) {
        keep->next = NULL;
        fill_from(a, keep);
        if (keep != a->caller)
            a->total = keep->size;
    }
}

void avki_arena_destroy(avki_arena *a)
{
    avki_arena_block *b, *next;
    for (b = a->head; b; b = next) {
        next = b->next;
        if (b != a->caller)
            a->alloc.free(a->alloc.ctx, b, b->size);
    }
    a->head = NULL;
    a->caller = NULL;
    a->cur = 0;
    a->end = 0;
    a->total = 0;
    a->grow = NULL;
}
