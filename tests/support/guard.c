/* Guard-page buffers for tests: reading past the end faults. */
#define _DEFAULT_SOURCE 1
#include "guard.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint8_t *avkt_guard_alloc(avkt_guard *g, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (len + page - 1) / page;
    uint8_t *base, *guard_after;
    memset(g, 0, sizeof *g);
    if (data_pages == 0)
        data_pages = 1;
    /* [guard][data pages][guard] */
    g->map_len = (data_pages + 2) * page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) {
        g->map = NULL;
        g->map_len = 0;
        return NULL;
    }
    base = (uint8_t *)g->map;
    guard_after = base + (data_pages + 1) * page;
    if (mprotect(base, page, PROT_NONE) != 0 || mprotect(guard_after, page, PROT_NONE) != 0) {
        avkt_guard_free(g);
        return NULL;
    }
    g->data = guard_after - len;
    g->len = len;
    return g->data;
}

uint8_t *avkt_guard_copy(avkt_guard *g, const void *src, size_t len)
{
    uint8_t *p = avkt_guard_alloc(g, len);
    if (p && len)
        memcpy(p, src, len);
    return p;
}

void avkt_guard_free(avkt_guard *g)
{
    if (g->map)
        munmap(g->map, g->map_len);
    memset(g, 0, sizeof *g);
}
