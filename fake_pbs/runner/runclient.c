/*
 * runclient: the fast path of fake_pbs's PBS commands (fake_pbs/runner/listen.py).
 *
 *     runclient PYTHON WRAPPER [ARG]...
 *
 * fake_pbs/bin/fake-pbs execs this as `runclient "$py" "$0" "$@"`.  It hands the command to the
 * cluster's runner (its socket is written into runner_socket below in each cluster's copy; the
 * wrapper of the tree the runner runs is compiled in as RUNNER_WRAPPER: another checkout's
 * commands, whose code may differ, take the Python path):
 * its stdin, stdout, stderr and working directory as descriptors, its umask, argv and
 * environment; it forwards SIGINT, SIGTERM and SIGHUP to the command, and exits with the
 * command's status or dies of its signal.  Whenever the runner cannot take the command before
 * it starts (no runner, a stale socket, refused, busy, a command that may need a terminal) it
 * execs `PYTHON -S WRAPPER ARG...`, today's path: the fast path never makes a command fail.
 *
 * Before it sends anything it applies fake_pbs/verified_connect.py's rules to the runner's
 * socket (trusted_directory, trusted_peer below; docs/security.md, "Trust model"): a socket
 * that fails them gets nothing, and the Python path, which checks the server's socket in the
 * same directory by the same rules, refuses with the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(RUNNER_SOCKET_SLOT) || !defined(RUNNER_WRAPPER)
#error "build with -DRUNNER_SOCKET_SLOT=\"<mark>\" -DRUNNER_WRAPPER=\"<bin>/fake-pbs\""
#endif

/* The runner's socket path.  One compile serves every cluster: fake_pbs/runner/build.py writes
 * a cluster's path, NUL-padded, over this slot in that cluster's copy of the client; as compiled
 * it holds RUNNER_SOCKET_SLOT, which is no path.  Neither static nor const: the compiler keeps it
 * in the binary and reads it at run time. */
char runner_socket[sizeof(((struct sockaddr_un *)0)->sun_path)] = RUNNER_SOCKET_SLOT;

#define MAX_REQUEST (8u << 20) /* fake_pbs/runner/worker.py's */

extern char **environ;

static const char *const commands[] = {
    "pbsnodes", "qalter", "qdel", "qdisable", "qenable", "qhold", "qmgr", "qmove", "qmsg",
    "qorder", "qrerun", "qrls", "qrun", "qselect", "qsig", "qstart", "qstat", "qstop", "qsub",
    "qterm", "tracejob", "pbs_rsub", "pbs_rstat", "pbs_rdel", "pbs_ralter", NULL};

static char **fallback_argv;
static volatile sig_atomic_t command_pid;
/* A signal that came before the runner named the command's pid: sent to it once it is known
 * (dropping it left a qsub that waits on stdin running, and its client with it). */
static volatile sig_atomic_t pending_signal;

/* Today's path: the Python wrapper itself. */
static void fallback(void)
{
    execvp(fallback_argv[0], fallback_argv); /* "python3": searched on PATH, as sh does */
    fprintf(stderr, "%s: cannot start %s: %s\n", fallback_argv[2], fallback_argv[0],
            strerror(errno));
    _exit(127);
}

static int known_command(const char *name)
{
    for (int i = 0; commands[i]; i++)
        if (strcmp(name, commands[i]) == 0)
            return 1;
    return 0;
}

/* qsub -I (or -W interactive=..., -X) wants a controlling terminal, which a runner worker
 * has not: any option word that may ask for one takes the Python path. */
static int may_need_terminal(const char *name, int argc, char **argv)
{
    if (strcmp(name, "qsub") != 0)
        return 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (argv[i][0] == '-' && (strchr(argv[i], 'I') || strchr(argv[i], 'X')))
            return 1;
        if (strstr(argv[i], "nteractive"))
            return 1;
    }
    return 0;
}

static int put(char **buf, size_t *len, size_t *cap, const void *data, size_t size)
{
    if (*len + size > *cap) {
        size_t want = (*cap ? *cap : 4096);
        while (want < *len + size)
            want *= 2;
        char *grown = realloc(*buf, want);
        if (!grown)
            return -1;
        *buf = grown;
        *cap = want;
    }
    memcpy(*buf + *len, data, size);
    *len += size;
    return 0;
}

static void forward(int sig)
{
    if (command_pid > 0)
        kill((pid_t)command_pid, sig);
    else
        pending_signal = sig;
}

/* Die of a signal, as the command would have (its default action, unblocked). */
static void die_of(int sig)
{
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

/* Rule 1 (fake_pbs/verified_connect.py check_directory): the socket's directory, not followed
 * if a link, is a directory owned by this user or root and writable by neither group nor
 * others; its owner in *owner. */
static int trusted_directory(uid_t *owner)
{
    char folder[sizeof runner_socket];
    memcpy(folder, runner_socket, sizeof folder);
    char *slash = strrchr(folder, '/');
    if (!slash)
        return 0;
    slash[slash == folder ? 1 : 0] = '\0';
    struct stat info;
    if (lstat(folder, &info) != 0 || !S_ISDIR(info.st_mode))
        return 0;
    if (info.st_uid != geteuid() && info.st_uid != 0)
        return 0;
    if (info.st_mode & 022)
        return 0;
    *owner = info.st_uid;
    return 1;
}

/* Rule 2 (check_peer): the process at the other end runs as the directory's owner or root. */
static int trusted_peer(int sock, uid_t owner)
{
    struct ucred cred;
    socklen_t size = sizeof cred;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 || size != sizeof cred)
        return 0;
    return cred.uid == owner || cred.uid == 0;
}

/* Read exactly size bytes; 0 on success, -1 on EOF or error (EINTR is retried). */
static int read_exact(int fd, void *data, size_t size)
{
    char *at = data;
    while (size > 0) {
        ssize_t got = read(fd, at, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        at += got;
        size -= (size_t)got;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: runclient PYTHON WRAPPER [ARG]...\n");
        return 2;
    }
    /* PYTHON -S WRAPPER ARG...: argv shifted by one, with -S put in. */
    fallback_argv = calloc((size_t)argc + 1, sizeof(char *));
    if (!fallback_argv)
        return 127;
    fallback_argv[0] = argv[1];
    fallback_argv[1] = "-S";
    for (int i = 2; i < argc; i++)
        fallback_argv[i] = argv[i];

    const char *name = strrchr(argv[2], '/');
    name = name ? name + 1 : argv[2];
    if (!known_command(name) || may_need_terminal(name, argc - 3, argv + 3))
        fallback();
    /* A closed standard descriptor would be taken by the socket below and passed on as the
     * stream: Python sees it closed (sys.stdout None), so must the command. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            fallback();
    char *wrapper = realpath(argv[2], NULL);
    if (!wrapper || strcmp(wrapper, RUNNER_WRAPPER) != 0)
        fallback();
    free(wrapper);

    /* A copy whose slot holds no path (never filled) has no runner to go to. */
    if (runner_socket[0] != '/' || !memchr(runner_socket, '\0', sizeof runner_socket))
        fallback();
    uid_t owner;
    if (!trusted_directory(&owner))
        fallback(); /* not even a connection: the Python path says why */
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (sock < 0)
        fallback();
    memcpy(addr.sun_path, runner_socket, sizeof runner_socket);
    if (connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0 || !trusted_peer(sock, owner))
        fallback();
    int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0)
        fallback();

    /* The request: header, umask, argc, argv (as the wrapper was started), environment. */
    char *buf = NULL;
    size_t len = 0, cap = 0;
    mode_t mask = umask(0);
    umask(mask);
    uint32_t fields[2] = {(uint32_t)mask, (uint32_t)(argc - 2)};
    int bad = put(&buf, &len, &cap, "FPR1\0\0\0\0", 8) || put(&buf, &len, &cap, fields, 8);
    for (int i = 2; i < argc && !bad; i++)
        bad = put(&buf, &len, &cap, argv[i], strlen(argv[i]) + 1);
    for (char **env = environ; *env && !bad; env++) {
        const char *eq = strchr(*env, '=');
        if (eq && eq != *env) /* as Python's os.environ, which skips the others */
            bad = put(&buf, &len, &cap, *env, strlen(*env) + 1);
    }
    if (bad || len - 8 > MAX_REQUEST)
        fallback(); /* the runner would refuse it (runner.MAX_REQUEST) */
    uint32_t body = (uint32_t)(len - 8);
    memcpy(buf + 4, &body, 4);

    int fds[4] = {0, 1, 2, cwd};
    union {
        char space[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {buf, len};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.space;
    msg.msg_controllen = sizeof control.space;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    ssize_t sent;
    do
        sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent <= 0)
        fallback(); /* nothing reached the runner */
    close(cwd);

    /* Forward the signals a user or a batch system sends a command, from now on. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);

    /* The rest of the request, while the runner answers: a full socket must not block us
     * before the runner has handed it to the worker that reads it. */
    size_t done = (size_t)sent;
    char kind;
    uint32_t pid;
    int started = 0;
    while (done < len) {
        ssize_t more = send(sock, buf + done, len - done, MSG_NOSIGNAL);
        if (more < 0 && errno == EINTR)
            continue;
        if (more <= 0)
            break;
        done += (size_t)more;
    }
    if (read_exact(sock, &kind, 1) != 0 || kind != 'P') {
        if (pending_signal)
            die_of(pending_signal); /* the command did not start: end as it would have */
        fallback(); /* refused (X), busy (B) or gone: the command did not start */
    }
    if (read_exact(sock, &pid, 4) == 0) {
        /* Signals held while the pid is published, so none falls between the two steps. */
        sigset_t held, before;
        sigemptyset(&held);
        sigaddset(&held, SIGINT);
        sigaddset(&held, SIGTERM);
        sigaddset(&held, SIGHUP);
        sigprocmask(SIG_BLOCK, &held, &before);
        command_pid = (sig_atomic_t)pid;
        if (pending_signal)
            kill((pid_t)pid, pending_signal);
        pending_signal = 0;
        sigprocmask(SIG_SETMASK, &before, NULL);
        started = 1;
    }
    int32_t status;
    if (!started || read_exact(sock, &kind, 1) != 0 || kind != 'S' ||
        read_exact(sock, &status, 4) != 0) {
        fprintf(stderr, "%s: the fake cluster's command runner stopped during the command\n",
                name);
        return 1;
    }
    command_pid = 0;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        die_of(sig);
        return 128 + sig;
    }
    return 1;
}
