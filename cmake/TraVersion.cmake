# The version `tra --version` prints: the project version from project(), and the git commit of
# the source tree, computed here at configure time ("unknown" in a release tarball or anywhere
# outside a clone), so the binary says which commit it was built from without a build step
# running git on every build.
find_package(Git QUIET)
set(TRA_GIT_COMMIT "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE commit_status ERROR_QUIET)
  if(commit_status EQUAL 0 AND commit)
    set(TRA_GIT_COMMIT ${commit})
    # Reconfigure when HEAD moves (a commit, a checkout), so the commit printed is never stale;
    # logs/HEAD is in the worktree's own git folder, which for a worktree is not .git/.
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(git_dir AND EXISTS ${git_dir}/logs/HEAD)
      set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                   ${git_dir}/logs/HEAD)
    endif()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/tra_version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/tra_version.hpp @ONLY)
