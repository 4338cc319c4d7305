/* -j N, --jobs N of the reading commands: how many threads read, and the default for large inputs. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* "A few blocks": writers cut blocks of about 64 KiB (avrokit, Java,
 * Python), so below 1 MiB threads would have little to share out. */
#define JOBS_MIN_BYTES ((uint64_t)1 << 20)
#define JOBS_MAX 64 /* the reader's own cap */

static unsigned cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > JOBS_MAX ? (unsigned)JOBS_MAX : (unsigned)n;
}

int avkcli_parse_jobs(const char *prefix, const char *text, char **inputs, size_t ninputs,
                      unsigned *jobs)
{
    uint64_t n = 0, bytes = 0;
    size_t i;
    int rc = avkcli_parse_u64(prefix, "--jobs", text, &n);
    if (rc != AVKCLI_OK)
        return rc;
    if (text && n > 0) {
        *jobs = n > JOBS_MAX ? JOBS_MAX : (unsigned)n;
        return AVKCLI_OK;
    }
    /* Standard input counts as small: read-ahead would hold a live
     * producer's records back until the blocks after them arrive. */
    for (i = 0; i < ninputs; i++) {
        if (inputs[i][0] == '-' && inputs[i][1] == '\0') {
            *jobs = 1;
            return AVKCLI_OK;
        }
        bytes += avkcli_file_size(inputs[i]);
    }
    *jobs = bytes >= JOBS_MIN_BYTES ? cores() : 1;
    return AVKCLI_OK;
}

void avkcli_jobs_apply(avk_file_reader_options *o, unsigned jobs)
{
    o->threads = jobs > 1 ? jobs : 0;
    if (jobs > 1)
        o->flags |= AVK_FILE_DECODE_AHEAD;
}
