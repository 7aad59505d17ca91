# The BLAS behind lib/kernels: -DTRA_BLAS takes CMake's BLA_VENDOR names (OpenBLAS, BLIS,
# FlexiBLAS, Generic for the reference BLAS, Intel10_64lp, ...). OpenBLAS stays the default: it
# is what the benchmarks and the thread control (kernels/blas_threads.cpp) are measured with.
set(TRA_BLAS OpenBLAS CACHE STRING "BLAS vendor, as CMake's BLA_VENDOR (OpenBLAS, BLIS, Generic, ...)")
set(BLA_VENDOR ${TRA_BLAS})
find_package(BLAS REQUIRED)
# Each Debian BLAS puts its cblas.h in its own folder; Generic (libblas-dev) uses the
# alternatives-managed one in the multiarch include folder, which needs no suffix.
if(TRA_BLAS STREQUAL "OpenBLAS")
  set(cblas_suffixes openblas openblas-pthread openblas-openmp openblas-serial)
elseif(TRA_BLAS STREQUAL "BLIS")
  set(cblas_suffixes blis)
elseif(TRA_BLAS STREQUAL "FlexiBLAS")
  set(cblas_suffixes flexiblas)
else()
  set(cblas_suffixes "")
endif()
find_path(CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES ${cblas_suffixes} REQUIRED)
message(STATUS "BLAS: ${TRA_BLAS} (${BLAS_LIBRARIES}), cblas.h in ${CBLAS_INCLUDE_DIR}")
