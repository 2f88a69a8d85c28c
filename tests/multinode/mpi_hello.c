#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
int main(int argc, char **argv) {
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* the host's mom started this rank's parent (hydra proxy / orted): its PBS_NODENUM */
    char path[64], buf[65536], node_buf[16] = "-";
    const char *node = node_buf;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
            if (strncmp(buf + i, "PBS_NODENUM=", 12) == 0) { snprintf(node_buf, sizeof node_buf, "%s", buf + i + 12); }
        fclose(f);
    }
    char host[256] = "?";  /* this rank's host name (the fake host's, docs/multinode.md) */
    gethostname(host, sizeof host);
    printf("rank %d of %d host %s on PBS_NODENUM %s\n", rank, size, host, node ? node : "-");
    fflush(stdout);
    int mine = rank + 1;
    MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d\n", sum);
    if (argc > 1) { MPI_Barrier(MPI_COMM_WORLD); for (;;) { sleep(1); } }
    MPI_Finalize();
    return 0;
}
