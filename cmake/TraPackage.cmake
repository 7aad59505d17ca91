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

set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "unknown")
set(CPACK_RPM_PACKAGE_GROUP "Applications/Engineering")
# rpmbuild would otherwise claim the standard folders (/usr/share/man, ...) that the
# filesystem package of an RPM distribution owns.
list(APPEND CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
     /usr/share/man /usr/share/man/man1 /usr/share/bash-completion
     /usr/share/bash-completion/completions /usr/share/doc)

# No /usr/lib/.build-id links: they would clash with any other package built the same way.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")

include(CPack)
