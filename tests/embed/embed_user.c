/* A program of the embedding project: links avrokit built as a subdirectory. */
#include <stdio.h>
#include <string.h>

#include <avrokit/avrokit.h>

int main(void)
{
    /* The run-time version is the one version.h writes. */
    if (strcmp(avk_version(), AVK_VERSION_STRING) != 0)
        return 1;
    printf("avrokit %s built as a subdirectory\n", avk_version());
    return 0;
}
