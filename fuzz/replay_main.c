/* Replays fuzz inputs as an ordinary program: runs LLVMFuzzerTestOneInput on every file given or found in a directory given. */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long size;
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot size %s\n", path);
        fclose(f);
        return -1;
    }
    /* Exactly size bytes, so a sanitizer build catches reads past the end. */
    data = (uint8_t *)malloc(size ? (size_t)size : 1);
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    free(data);
    return 0;
}

static int visible_file(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    int i;
    long count = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            struct dirent **names;
            int n = scandir(argv[i], &names, visible_file, alphasort), k;
            if (n < 0) {
                fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], strerror(errno));
                return 1;
            }
            for (k = 0; k < n; k++) {
                char path[4096];
                struct stat fst;
                snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
                if (stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
                    if (run_file(path) != 0)
                        return 1;
                    count++;
                }
                free(names[k]);
            }
            free(names);
        } else {
            if (run_file(argv[i]) != 0)
                return 1;
            count++;
        }
    }
    printf("replayed %ld inputs\n", count);
    if (count == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    return 0;
}
