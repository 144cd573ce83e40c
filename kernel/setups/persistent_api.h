/* MPI-4 persistent neighborhood collectives: whether this build's library
 * has them, and under which names. Found at compile time, from the
 * library's own headers:
 *   MPI_VERSION >= 4                  MPI_Neighbor_*_init (MPICH 4, Intel MPI 2021.?+)
 *   Open MPI >= 5                     MPI_Neighbor_*_init, although it declares MPI 3.1
 *   Open MPI 4.1 (mpi-ext.h pcollreq) MPIX_Neighbor_*_init
 * Compiling with -DNBH_WITHOUT_PERSISTENT_COLLECTIVES builds a kernel as if
 * the library had none (how the tests check a library without them). */
#ifndef NBH_PERSISTENT_API_H
#define NBH_PERSISTENT_API_H

#include <mpi.h>

#if defined(NBH_WITHOUT_PERSISTENT_COLLECTIVES)
#define NBH_PERSISTENT_NAMES "none (built with -DNBH_WITHOUT_PERSISTENT_COLLECTIVES)"
#elif MPI_VERSION >= 4
#define NBH_PERSISTENT(name) MPI_##name
#define NBH_PERSISTENT_NAMES "MPI_Neighbor_*_init (MPI 4)"
#elif defined(OPEN_MPI) && OPEN_MPI && OMPI_MAJOR_VERSION >= 5
#define NBH_PERSISTENT(name) MPI_##name
#define NBH_PERSISTENT_NAMES "MPI_Neighbor_*_init (Open MPI 5 and later, which declares MPI 3.1)"
#elif defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NBH_PERSISTENT(name) MPIX_##name
#define NBH_PERSISTENT_NAMES "MPIX_Neighbor_*_init (the pcollreq extension of Open MPI in mpi-ext.h)"
#endif
#endif
#endif

#ifdef NBH_PERSISTENT
#define NBH_HAVE_PERSISTENT 1
#else
#define NBH_HAVE_PERSISTENT 0
#ifndef NBH_PERSISTENT_NAMES
#define NBH_PERSISTENT_NAMES "none: an MPI 3 library without MPI_Neighbor_*_init or MPIX_Neighbor_*_init"
#endif
#endif

#endif
