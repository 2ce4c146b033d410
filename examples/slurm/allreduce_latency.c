/* The per-step cost of a mean field spanning ranks: the latency of
 * MPI_Allreduce of a few doubles (docs/SCALING.md).  Median of 20 rounds of
 * 1000 allreduces after a warm-up, printed by rank 0 in microseconds.
 *
 *   mpicc -O2 allreduce_latency.c -o allreduce_latency
 *   mpirun -np R ./allreduce_latency [doubles]        (default 2)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 2;
  if (n < 1 || n > 1 << 20) n = 2;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *v = calloc((size_t)n, sizeof *v), t[20];
  for (int i = 0; i < 1000; i++)
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < 20; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 1000; i++)
      MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t[r] = (MPI_Wtime() - t0) * 1e3; /* microseconds per allreduce */
  }
  qsort(t, 20, sizeof *t, cmp);
  if (rank == 0)
    printf("allreduce of %d doubles over %d ranks: %.2f us (median of 20 x 1000)\n", n, size,
           0.5 * (t[9] + t[10]));
  free(v);
  MPI_Finalize();
  return 0;
}
