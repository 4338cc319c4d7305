/* LD_PRELOAD shim that injects I/O faults and allocation failures into a test run. */
#define _GNU_SOURCE /* RTLD_NEXT, pread64 */
/* pread and pread64 are both defined here: without this, the headers would
 * rename pread to pread64 (the build asks for 64-bit offsets). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * Environment:
 *   AVKT_FAULT=op:N:kind   fail the Nth counted call of op. op is one of
 *                          read, write, fsync, close, malloc (read covers
 *                          read/pread/pread64/readv; write covers
 *                          write/pwrite/pwrite64/writev; fsync covers
 *                          fdatasync; malloc covers calloc/realloc). kind is
 *                          an errno name (EIO, ENOSPC, EINTR, ...), `short`
 *                          (transfer half, at least 1 byte), or for malloc
 *                          `null`.
 *   AVKT_FAULT_PATH=sub    count only calls on fds whose /proc/self/fd link
 *                          contains sub (a temp file beside the target
 *                          matches too when sub is the directory).
 *   AVKT_FAULT_COUNT=file  at exit, append "op count" lines to file.
 * close is counted only on fds open for writing.
 *
 * Allocations are counted only once the shim's constructor has run (so the
 * dynamic loader's own are not), and never those made by the shim itself.
 * The fault fires once: later calls pass through, so a retry recovers.
 */

enum { OP_READ, OP_WRITE, OP_FSYNC, OP_CLOSE, OP_MALLOC, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"read", "write", "fsync", "close", "malloc"};

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pread64)(int, void *, size_t, off_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_close)(int);
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static int fault_op = -1;
static unsigned long fault_n;
static int fault_errno; /* 0 with fault_short set: a short transfer */
static int fault_short;
static char path_filter[256];
static char count_file[512];
static unsigned long counts[OP_COUNT];
static volatile int ready;   /* constructor done: count and inject */
static __thread int in_shim; /* the shim's own calls (readlink, fopen) pass through */

/* dlsym may calloc before real_calloc is known: serve it from here. */
static unsigned char boot_buf[8192] __attribute__((aligned(16)));
static size_t boot_used;

static void *boot_alloc(size_t n)
{
    size_t at = (boot_used + 15) & ~(size_t)15;
    if (n > sizeof boot_buf - at)
        return NULL;
    boot_used = at + n;
    memset(boot_buf + at, 0, n);
    return boot_buf + at;
}

static int is_boot(const void *p)
{
    return (const unsigned char *)p >= boot_buf && (const unsigned char *)p < boot_buf + sizeof boot_buf;
}

static int resolving;
static void resolve(void)
{
    if (real_malloc || resolving)
        return;
    resolving = 1;
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    real_pread = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    real_pread64 = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    real_readv = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "readv");
    real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_pwrite = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
    real_writev = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    resolving = 0;
}

static int errno_by_name(const char *s)
{
    static const struct { const char *name; int value; } names[] = {
        {"EIO", EIO}, {"ENOSPC", ENOSPC}, {"EINTR", EINTR}, {"EDQUOT", EDQUOT},
        {"EAGAIN", EAGAIN}, {"EBADF", EBADF}, {"ENOMEM", ENOMEM}, {"EFBIG", EFBIG},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].value;
    return EIO;
}

static void write_counts(void)
{
    FILE *fp;
    if (!count_file[0])
        return;
    in_shim++;
    fp = fopen(count_file, "a");
    if (fp) {
        for (int i = 0; i < OP_COUNT; i++)
            fprintf(fp, "%s %lu\n", op_names[i], counts[i]);
        fclose(fp);
    }
    in_shim--;
}

__attribute__((constructor)) static void shim_init(void)
{
    const char *f, *p, *c;
    resolve();
    f = getenv("AVKT_FAULT");
    p = getenv("AVKT_FAULT_PATH");
    c = getenv("AVKT_FAULT_COUNT");
    if (p)
        snprintf(path_filter, sizeof path_filter, "%s", p);
    if (c)
        snprintf(count_file, sizeof count_file, "%s", c);
    if (f && *f) {
        char op[32] = {0}, kind[32] = {0};
        unsigned long n = 0;
        if (sscanf(f, "%31[a-z]:%lu:%31s", op, &n, kind) == 3) {
            for (int i = 0; i < OP_COUNT; i++)
                if (strcmp(op, op_names[i]) == 0)
                    fault_op = i;
            fault_n = n;
            if (strcmp(kind, "short") == 0)
                fault_short = 1;
            else
                fault_errno = errno_by_name(kind);
        }
    }
    if (count_file[0])
        atexit(write_counts);
    ready = 1;
}

/* Does fd's target contain the filter? Checked per call: fds are reused. */
static int fd_matches(int fd)
{
    char link[64], target[1024];
    ssize_t n;
    if (!path_filter[0])
        return fd > 2;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    in_shim++;
    n = readlink(link, target, sizeof target - 1);
    in_shim--;
    if (n < 0)
        return 0;
    target[n] = '\0';
    return strstr(target, path_filter) != NULL;
}

/* 0: pass through; 1: fail with errno set; 2: short transfer. */
static int check_fd(int op, int fd)
{
    int saved = errno;
    if (!ready || in_shim || !fd_matches(fd)) {
        errno = saved;
        return 0;
    }
    errno = saved;
    if (__atomic_add_fetch(&counts[op], 1, __ATOMIC_RELAXED) != fault_n || op != fault_op)
        return 0;
    if (fault_short)
        return 2;
    errno = fault_errno;
    return 1;
}

static int check_malloc(void)
{
    if (!ready || in_shim)
        return 0;
    if (__atomic_add_fetch(&counts[OP_MALLOC], 1, __ATOMIC_RELAXED) != fault_n ||
        fault_op != OP_MALLOC)
        return 0;
    errno = ENOMEM;
    return 1;
}

static size_t half(size_t n) { return n > 1 ? n / 2 : n; }

ssize_t read(int fd, void *buf, size_t n)
{
    int c;
    resolve();
    c = check_fd(OP_READ, fd);
    if (c == 1)
        return -1;
    return real_read(fd, buf, c == 2 ? half(n) : n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    int c;
    resolve();
    c = check_fd(OP_READ, fd);
    if (c == 1)
        return -1;
    return real_pread(fd, buf, c == 2 ? half(n) : n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    int c;
    resolve();
    c = check_fd(OP_READ, fd);
    if (c == 1)
        return -1;
    return real_pread64(fd, buf, c == 2 ? half(n) : n, off);
}

/* A short vector transfer: the first buffer only, halved when it is the only one. */
static int short_iov(const struct iovec *iov, int cnt, struct iovec *one)
{
    if (cnt <= 0)
        return cnt;
    *one = iov[0];
    if (cnt == 1)
        one->iov_len = half(one->iov_len);
    return 1;
}

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    struct iovec one;
    int c;
    resolve();
    c = check_fd(OP_READ, fd);
    if (c == 1)
        return -1;
    if (c == 2 && short_iov(iov, cnt, &one) == 1)
        return real_readv(fd, &one, 1);
    return real_readv(fd, iov, cnt);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    int c;
    resolve();
    c = check_fd(OP_WRITE, fd);
    if (c == 1)
        return -1;
    return real_write(fd, buf, c == 2 ? half(n) : n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    int c;
    resolve();
    c = check_fd(OP_WRITE, fd);
    if (c == 1)
        return -1;
    return real_pwrite(fd, buf, c == 2 ? half(n) : n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    int c;
    resolve();
    c = check_fd(OP_WRITE, fd);
    if (c == 1)
        return -1;
    return real_pwrite64(fd, buf, c == 2 ? half(n) : n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    struct iovec one;
    int c;
    resolve();
    c = check_fd(OP_WRITE, fd);
    if (c == 1)
        return -1;
    if (c == 2 && short_iov(iov, cnt, &one) == 1)
        return real_writev(fd, &one, 1);
    return real_writev(fd, iov, cnt);
}

/* A short fsync or close makes no sense: `short` passes through. */
int fsync(int fd)
{
    resolve();
    if (check_fd(OP_FSYNC, fd) == 1)
        return -1;
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    resolve();
    if (check_fd(OP_FSYNC, fd) == 1)
        return -1;
    return real_fdatasync(fd);
}

/* Linux releases the fd even when close reports an error (EINTR and EIO
 * included): the real close runs first, then the fault is reported, so a
 * caller that retried would get EBADF or close someone else's fd. */
int close(int fd)
{
    int c = 0, rc, fl;
    resolve();
    /* Only an fd open for writing: closing one only read loses no data,
     * and a program may rightly ignore what that close says. */
    fl = fcntl(fd, F_GETFL);
    if (fl != -1 && (fl & O_ACCMODE) != O_RDONLY)
        c = check_fd(OP_CLOSE, fd);
    rc = real_close(fd);
    if (c == 1) {
        int e = errno;
        (void)rc;
        errno = e;
        return -1;
    }
    return rc;
}

void *malloc(size_t n)
{
    if (!real_malloc) {
        resolve();
        if (!real_malloc)
            return boot_alloc(n);
    }
    if (check_malloc())
        return NULL;
    return real_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    if (!real_calloc) {
        if (b && a > SIZE_MAX / b)
            return NULL;
        return boot_alloc(a * b); /* dlsym's own, during resolve() */
    }
    if (check_malloc())
        return NULL;
    return real_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    if (!real_realloc)
        resolve();
    if (is_boot(p)) {
        void *q = malloc(n);
        size_t room = (size_t)(boot_buf + sizeof boot_buf - (unsigned char *)p);
        if (q)
            memcpy(q, p, n < room ? n : room);
        return q;
    }
    if (check_malloc())
        return NULL;
    return real_realloc(p, n);
}

void free(void *p)
{
    if (!p || is_boot(p))
        return;
    if (!real_free)
        resolve();
    real_free(p);
}
