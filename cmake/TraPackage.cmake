# `cpack -G DEB` and `cpack -G RPM` in the build folder package what cmake/TraInstall.cmake
# installs, under /usr. The .deb's library dependencies come from dpkg-shlibdeps (Debian's
# dpkg-dev), so they name the exact packages this build linked (Open MPI, parallel HDF5, the
# BLAS) instead of a hand-kept list that drifts; tools/test.d/45-package.sh installs and runs it.
set(CPACK_PACKAGE_NAME tra)
set(CPACK_PACKAGE_VENDOR "tra")
set(CPACK_PACKAGE_CONTACT "tra maintainers <tra@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Declarative distributed tensor computation (tensor relational algebra on MPI and HDF5)")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://localhost/tra")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# A RelWithDebInfo binary is mostly debug info; the package does not need it.
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tra_X.Y.Z_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Open MPI's singleton MPI_Init (tra run without a launcher) starts orted, and every
# multi-rank run needs mpirun: both are in openmpi-bin, which no shared library pulls in.
if(MPI_C_INCLUDE_DIRS MATCHES "openmpi")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin")
  set(CPACK_RPM_PACKAGE_REQUIRES "openmpi")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "hdf5-tools, python3-h5py")
# No /usr/lib/.build-id links: they would clash with any other package built the same way.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")

# A -DTRA_CUDA=ON build is its own package, tra-cuda (docs/install.md): both install
# /usr/bin/tra, so each conflicts with the other. The CUDA runtime and cuBLAS come from NVIDIA's
# toolkit or redistributables, which no Debian package provides, so the package does not depend
# on them and says what it needs at run time; dpkg-shlibdeps finds them in the toolkit's folder
# (where an installed binary, without the build's RPATH, would not look) and CPack's
# --ignore-missing-info lets it skip them; rpmbuild's automatic requirements leave them out.
if(TRA_CUDA)
  set(CPACK_PACKAGE_NAME tra-cuda)
  set(cuda_runtime_needs
      "Needs at run time an NVIDIA driver for CUDA ${CUDAToolkit_VERSION_MAJOR} and the CUDA "
      "runtime and cuBLAS libraries (libcudart.so.${CUDAToolkit_VERSION_MAJOR}, "
      "libcublas.so.${CUDAToolkit_VERSION_MAJOR}, libcublasLt.so.${CUDAToolkit_VERSION_MAJOR}: "
      "the CUDA toolkit or its redistributables) on the library path (ld.so.conf or "
      "LD_LIBRARY_PATH).")
  string(JOIN "" cuda_runtime_needs ${cuda_runtime_needs})
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}, GPU build")
  set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${cuda_runtime_needs}")
  set(CPACK_RPM_PACKAGE_DESCRIPTION "${cuda_runtime_needs}")
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS tra)
  set(CPACK_RPM_PACKAGE_CONFLICTS tra)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
  string(APPEND CPACK_RPM_SPEC_MORE_DEFINE
         "\n%global __requires_exclude ^lib(cudart|cublas|cublasLt)[.]so.*$")
else()
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS tra-cuda)
  set(CPACK_RPM_PACKAGE_CONFLICTS tra-cuda)
endif()

set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "unknown")
set(CPACK_RPM_PACKAGE_GROUP "Applications/Engineering")
# rpmbuild would otherwise claim the standard folders (/usr/share/man, ...) that the
# filesystem package of an RPM distribution owns.
list(APPEND CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
     /usr/share/man /usr/share/man/man1 /usr/share/bash-completion
     /usr/share/bash-completion/completions /usr/share/doc)

include(CPack)
