/* Arena: bump allocation in blocks obtained from the caller's allocator, freed all at once. */
#include <stdint.h>
#include <string.h>

#include "common/alloc_internal.h"
#include "common/arena.h"

#define DEFAULT_FIRST_BLOCK ((size_t)4 * 1024)
#define MAX_GROWN_BLOCK ((size_t)1024 * 1024)
#define MAX_ALIGN 16

struct avki_arena_block {
    avki_arena_block *next;
    size_t size; /* bytes obtained from the allocator, header included */
    size_t used; /* bytes handed out, header included */
};

/* The header rounded up so the first byte after it is MAX_ALIGN-aligned
 * (allocators return at least that alignment for blocks this large). */
#define HEADER_SIZE ((sizeof(avki_arena_block) + MAX_ALIGN - 1) & ~(size_t)(MAX_ALIGN - 1))

void avki_arena_init(avki_arena *a, const avk_allocator *alloc, size_t first_block, size_t limit)
{
    a->alloc = avki_allocator_or_libc(alloc);
    a->head = NULL;
    a->next_size = first_block ? first_block : DEFAULT_FIRST_BLOCK;
    if (a->next_size < HEADER_SIZE + MAX_ALIGN)
        a->next_size = HEADER_SIZE + MAX_ALIGN;
    a->total = 0;
    a->limit = limit;
    a->limit_hit = 0;
    a->allocations = 0;
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
    b->used = (size_t)(p - base) + size;

    /* A request too large for the usual growth gets a block of its own,
     * placed behind the current one, which keeps filling: otherwise the
     * rest of the current block would be wasted. */
    if (a->head && need > a->next_size &&
        a->head->size - a->head->used >= block_size - b->used) {
        b->next = a->head->next;
        a->head->next = b;
    } else {
        b->next = a->head;
        a->head = b;
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
    avki_arena_block *b = a->head;
    if (align == 0)
        align = 1;
    if (align > MAX_ALIGN || (align & (align - 1)) != 0)
        return NULL;
    if (b) {
        uintptr_t base = (uintptr_t)b;
        uintptr_t p = (base + b->used + align - 1) & ~(uintptr_t)(align - 1);
        size_t off = (size_t)(p - base);
        if (off <= b->size && size <= b->size - off) {
            b->used = off + size;
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
    for (b = a->head; b; b = b->next)
        if (!keep || b->size > keep->size)
            keep = b;
    for (b = a->head; b; b = next) {
        next = b->next;
        if (b != keep)
            a->alloc.free(a->alloc.ctx, b, b->size);
    }
    a->head = keep;
    a->total = 0;
    if (keep) {
        keep->next = NULL;
        keep->used = HEADER_SIZE;
        a->total = keep->size;
    }
}

void avki_arena_destroy(avki_arena *a)
{
    avki_arena_block *b, *next;
    for (b = a->head; b; b = next) {
        next = b->next;
        a->alloc.free(a->alloc.ctx, b, b->size);
    }
    a->head = NULL;
    a->total = 0;
}
