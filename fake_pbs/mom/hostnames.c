/* The fake hosts' names, for the processes of a job: an LD_PRELOAD library the mom puts in the
 * environment of every job shell and TM task (fake_pbs/mom/hostnames.py builds it at cluster
 * start, docs/multinode.md).
 *
 * FAKE_PBS_HOSTS="node1=127.1.0.1,node2=127.1.0.2" names each fake host and the loopback
 * address it resolves to (getaddrinfo, gethostbyname*, gethostbyaddr*, getnameinfo); every
 * other name goes to the C library as before.  Each host has an address of its own, so that a
 * launcher's "is this host me?" (its name, or its address among this machine's interfaces)
 * is true only for the host it runs on.
 *
 * FAKE_PBS_HOSTNAME names the host a process runs on (gethostname, uname): the value the
 * job shell or task the mom started has (see my_host).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <unistd.h>

#define NAME_MAX_LEN 64
#define MAX_HOSTS 256

struct fake_host {
    char name[NAME_MAX_LEN + 1];
    struct in_addr addr;
};

static struct fake_host hosts[MAX_HOSTS];
static int host_count = -1;
static char this_host[NAME_MAX_LEN + 1];
static int this_host_known = -1;

/* At load, while the process has one thread (MPI libraries start threads of their own). */
__attribute__((constructor)) static void load_hosts(void)
{
    const char *spec;
    char item[NAME_MAX_LEN + 32];
    if (host_count >= 0)
        return;
    host_count = 0;
    spec = getenv("FAKE_PBS_HOSTS");
    while (spec && *spec && host_count < MAX_HOSTS) {
        size_t len = strcspn(spec, ",");
        char *eq;
        if (len < sizeof(item)) {
            memcpy(item, spec, len);
            item[len] = '\0';
            eq = strchr(item, '=');
            if (eq && eq != item && (size_t)(eq - item) <= NAME_MAX_LEN) {
                *eq = '\0';
                if (inet_pton(AF_INET, eq + 1, &hosts[host_count].addr) == 1) {
                    strcpy(hosts[host_count].name, item);
                    host_count++;
                }
            }
        }
        spec += len;
        if (*spec == ',')
            spec++;
    }
}

static const struct fake_host *by_name(const char *name)
{
    int i;
    if (name == NULL)
        return NULL;
    for (i = 0; i < host_count; i++)
        if (strcasecmp(hosts[i].name, name) == 0)
            return &hosts[i];
    return NULL;
}

static const struct fake_host *by_addr(const void *addr, socklen_t len, int family)
{
    int i;
    if (family != AF_INET || len != sizeof(struct in_addr))
        return NULL;
    for (i = 0; i < host_count; i++)
        if (memcmp(&hosts[i].addr, addr, sizeof(struct in_addr)) == 0)
            return &hosts[i];
    return NULL;
}

/* FAKE_PBS_HOSTNAME's value in the environment process ``pid`` started with, copied to out;
 * 0 when it has none or cannot be read (a process of another user, such as a root shepherd). */
static int host_of_process(pid_t pid, char *out)
{
    static const char key[] = "FAKE_PBS_HOSTNAME=";
    static char block[1 << 17];
    char path[64];
    size_t got = 0, at = 0;
    ssize_t n;
    int fd;
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    while (got < sizeof(block) && (n = read(fd, block + got, sizeof(block) - got)) > 0)
        got += (size_t)n;
    close(fd);
    while (at < got) {
        const char *entry = block + at;
        size_t len = strnlen(entry, got - at);
        if (len > sizeof(key) - 1 && len - (sizeof(key) - 1) <= NAME_MAX_LEN
                && memcmp(entry, key, sizeof(key) - 1) == 0) {
            memcpy(out, entry + sizeof(key) - 1, len - (sizeof(key) - 1));
            out[len - (sizeof(key) - 1)] = '\0';
            return 1;
        }
        at += len + 1;
    }
    return 0;
}

static pid_t parent_of(pid_t pid)
{
    char path[64], text[512];
    const char *close_paren;
    ssize_t n;
    int fd, ppid = 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    close_paren = strrchr(text, ')');  /* "pid (comm) state ppid ...": comm may hold blanks */
    if (close_paren == NULL || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
        return 0;
    return (pid_t)ppid;
}

/* The name of the host this process runs on: that of the process the mom started (the job
 * shell or task: the last ancestor, walking up, whose parent has no FAKE_PBS_HOSTNAME, which
 * is its shepherd).  A launcher may give its children another host's environment (MPICH's
 * Hydra gives every rank mpiexec's), so a process's own variable is only the fallback. */
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void find_host(void)
{
    char above[NAME_MAX_LEN + 1];
    pid_t pid = getpid();
    int steps;
    const char *own = getenv("FAKE_PBS_HOSTNAME");
    this_host_known = 0;
    if (own && *own && strlen(own) <= NAME_MAX_LEN) {
        strcpy(this_host, own);
        this_host_known = 1;
    }
    for (steps = 0; steps < 64 && this_host_known; steps++) {
        pid_t parent = parent_of(pid);
        if (parent <= 1 || !host_of_process(parent, above))
            break;
        strcpy(this_host, above);
        pid = parent;
    }
}

static const char *my_host(void)
{
    pthread_once(&host_once, find_host);
    return this_host_known > 0 ? this_host : NULL;
}

static void *next(const char *symbol)
{
    return dlsym(RTLD_NEXT, symbol);
}

int gethostname(char *name, size_t len)
{
    const char *mine = my_host();
    int (*real)(char *, size_t);
    if (mine) {
        size_t need = strlen(mine) + 1;
        if (need > len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, mine, need);
        return 0;
    }
    real = (int (*)(char *, size_t))next("gethostname");
    return real ? real(name, len) : -1;
}

int uname(struct utsname *buf)
{
    int (*real)(struct utsname *) = (int (*)(struct utsname *))next("uname");
    const char *mine;
    int rc;
    if (!real)
        return -1;
    rc = real(buf);
    mine = my_host();
    if (rc == 0 && mine && strlen(mine) < sizeof(buf->nodename))
        strcpy(buf->nodename, mine);
    return rc;
}

/* A hostent for one fake host in buf: name, one address, no aliases. */
static int fill_hostent(const struct fake_host *host, struct hostent *he, char *buf,
                        size_t buflen)
{
    size_t name_len = strlen(host->name) + 1;
    size_t ptrs = (name_len + sizeof(char *) - 1) / sizeof(char *) * sizeof(char *);
    char **list;
    if (buflen < ptrs + 3 * sizeof(char *) + sizeof(struct in_addr))
        return ERANGE;
    memcpy(buf, host->name, name_len);
    list = (char **)(void *)(buf + ptrs);
    memcpy(buf + ptrs + 3 * sizeof(char *), &host->addr, sizeof(struct in_addr));
    list[0] = buf + ptrs + 3 * sizeof(char *);  /* h_addr_list: the address, then NULL */
    list[1] = NULL;
    list[2] = NULL;  /* h_aliases: none */
    he->h_name = buf;
    he->h_aliases = &list[2];
    he->h_addrtype = AF_INET;
    he->h_length = sizeof(struct in_addr);
    he->h_addr_list = &list[0];
    return 0;
}

static __thread struct hostent static_he;
static __thread char static_buf[NAME_MAX_LEN + 64];

typedef struct hostent *(*byname_fn)(const char *);
typedef struct hostent *(*byname2_fn)(const char *, int);
typedef int (*byname_r_fn)(const char *, struct hostent *, char *, size_t, struct hostent **,
                           int *);
typedef int (*byname2_r_fn)(const char *, int, struct hostent *, char *, size_t,
                            struct hostent **, int *);

struct hostent *gethostbyname2(const char *name, int af)
{
    const struct fake_host *host = by_name(name);
    if (host) {
        if (af != AF_INET) {
            h_errno = HOST_NOT_FOUND;
            return NULL;
        }
        fill_hostent(host, &static_he, static_buf, sizeof(static_buf));
        return &static_he;
    }
    return ((byname2_fn)next("gethostbyname2"))(name, af);
}

struct hostent *gethostbyname(const char *name)
{
    if (by_name(name))
        return gethostbyname2(name, AF_INET);
    return ((byname_fn)next("gethostbyname"))(name);
}

int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf, size_t buflen,
                     struct hostent **result, int *h_errnop)
{
    const struct fake_host *host = by_name(name);
    int rc;
    if (host) {
        *result = NULL;
        if (af != AF_INET) {
            *h_errnop = HOST_NOT_FOUND;
            return 0;
        }
        rc = fill_hostent(host, ret, buf, buflen);
        if (rc != 0) {
            *h_errnop = NETDB_INTERNAL;
            return rc;
        }
        *result = ret;
        return 0;
    }
    return ((byname2_r_fn)next("gethostbyname2_r"))(name, af, ret, buf, buflen, result,
                                                   h_errnop);
}

int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t buflen,
                    struct hostent **result, int *h_errnop)
{
    if (by_name(name))
        return gethostbyname2_r(name, AF_INET, ret, buf, buflen, result, h_errnop);
    return ((byname_r_fn)next("gethostbyname_r"))(name, ret, buf, buflen, result, h_errnop);
}

struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
    typedef struct hostent *(*fn)(const void *, socklen_t, int);
    const struct fake_host *host = by_addr(addr, len, type);
    if (host) {
        fill_hostent(host, &static_he, static_buf, sizeof(static_buf));
        return &static_he;
    }
    return ((fn)next("gethostbyaddr"))(addr, len, type);
}

int gethostbyaddr_r(const void *addr, socklen_t len, int type, struct hostent *ret, char *buf,
                    size_t buflen, struct hostent **result, int *h_errnop)
{
    typedef int (*fn)(const void *, socklen_t, int, struct hostent *, char *, size_t,
                      struct hostent **, int *);
    const struct fake_host *host = by_addr(addr, len, type);
    int rc;
    if (host) {
        *result = NULL;
        rc = fill_hostent(host, ret, buf, buflen);
        if (rc != 0) {
            *h_errnop = NETDB_INTERNAL;
            return rc;
        }
        *result = ret;
        return 0;
    }
    return ((fn)next("gethostbyaddr_r"))(addr, len, type, ret, buf, buflen, result, h_errnop);
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res)
{
    typedef int (*fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    fn real = (fn)next("getaddrinfo");
    const struct fake_host *host = by_name(node);
    struct addrinfo numeric;
    char text[INET_ADDRSTRLEN];
    int rc;
    if (!host)
        return real(node, service, hints, res);
    /* The host's address, looked up as a number: sockets, protocols, services and flags as
     * the caller asked (no AI_ADDRCONFIG: loopback is always there). */
    if (hints)
        numeric = *hints;
    else {
        memset(&numeric, 0, sizeof(numeric));
        numeric.ai_family = AF_UNSPEC;
        numeric.ai_flags = AI_V4MAPPED;
    }
    numeric.ai_flags = (numeric.ai_flags | AI_NUMERICHOST) & ~AI_ADDRCONFIG;
    inet_ntop(AF_INET, &host->addr, text, sizeof(text));
    rc = real(text, service, &numeric, res);
#ifdef __GLIBC__
    /* glibc's freeaddrinfo frees ai_canonname on its own: the name can be replaced. */
    if (rc == 0 && (numeric.ai_flags & AI_CANONNAME) && *res) {
        char *canon = strdup(host->name);
        if (canon) {
            free((*res)->ai_canonname);
            (*res)->ai_canonname = canon;
        }
    }
#endif
    return rc;
}

int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host, socklen_t hostlen,
                char *serv, socklen_t servlen, int flags)
{
    typedef int (*fn)(const struct sockaddr *, socklen_t, char *, socklen_t, char *, socklen_t,
                      int);
    fn real = (fn)next("getnameinfo");
    const struct fake_host *fake = NULL;
    int rc;
    if (sa && sa->sa_family == AF_INET && salen >= (socklen_t)sizeof(struct sockaddr_in)
            && host && hostlen > 0 && !(flags & NI_NUMERICHOST))
        fake = by_addr(&((const struct sockaddr_in *)(const void *)sa)->sin_addr,
                       sizeof(struct in_addr), AF_INET);
    rc = real(sa, salen, host, hostlen, serv, servlen, flags);
    if (rc == 0 && fake) {
        if (strlen(fake->name) >= (size_t)hostlen)
            return EAI_OVERFLOW;
        strcpy(host, fake->name);
    }
    return rc;
}
