#include "loop_report.h"

#include <stdio.h>

void loop_report(MPI_Comm comm, long id, long nrep, double loop_seconds, const double *seconds)
{
    double timed = 0;
    for (long i = 0; i < nrep; i++)
        timed += seconds[i];
    double own = (loop_seconds - timed) / (double)nrep;
    /* The slowest process's loop with its timed sections; own cost's range. */
    struct {
        double value;
        int rank;
    } mine, slowest;
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    mine.value = loop_seconds;
    mine.rank = rank;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    double timed_of_slowest = rank == slowest.rank ? timed : 0, timed_per_rep, own_max, own_min;
    MPI_Reduce(&timed_of_slowest, &timed_per_rep, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(&own, &own_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(&own, &own_min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
    if (rank == 0) {
        printf("loop id %ld processes %d nrep %ld loop_s %.6f timed_us_per_rep %.3f own_us_per_rep %.3f "
               "own_us_per_rep_min %.3f\n",
               id, p, nrep, slowest.value, timed_per_rep / (double)nrep * 1e6, own_max * 1e6, own_min * 1e6);
        fflush(stdout);
    }
}
