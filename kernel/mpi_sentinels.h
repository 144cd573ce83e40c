/* gcc >= 11 reads MPI's sentinel pointers (Open MPI's MPI_UNWEIGHTED,
 * MPICH's MPI_STATUSES_IGNORE: small constants cast to pointers) as
 * zero-sized arrays and warns falsely (-Wstringop-overread/-overflow) where
 * they are passed. Included only by the files that pass them. */
#ifndef NBH_MPI_SENTINELS_H
#define NBH_MPI_SENTINELS_H

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#endif
