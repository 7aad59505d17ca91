# What `cmake --install` puts where (GNU layout): the binary, its man page and bash completion,
# generated from the binary's own help at build time so they never drift from the CLI
# (tools/man-page.sh, tools/bash-completion.sh), the docs, and plans/ and data/ side by side
# under share/tra so the examples' relative paths (../../data/...) still resolve.
include(GNUInstallDirs)

install(TARGETS tra RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/man/tra.1
    COMMAND bash ${PROJECT_SOURCE_DIR}/tools/man-page.sh $<TARGET_FILE:tra>
            ${PROJECT_BINARY_DIR}/man/tra.1 ${HELP2MAN}
    DEPENDS tra ${PROJECT_SOURCE_DIR}/tools/man-page.sh
    COMMENT "Generating the man page tra.1 from tra --help")
  add_custom_target(tra_man ALL DEPENDS ${PROJECT_BINARY_DIR}/man/tra.1)
  install(FILES ${PROJECT_BINARY_DIR}/man/tra.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found (Debian package help2man): no man page is built or installed")
endif()

add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/completion/tra
  COMMAND bash ${PROJECT_SOURCE_DIR}/tools/bash-completion.sh $<TARGET_FILE:tra>
          ${PROJECT_BINARY_DIR}/completion/tra
  DEPENDS tra ${PROJECT_SOURCE_DIR}/tools/bash-completion.sh
  COMMENT "Generating the bash completion of tra from tra --help")
add_custom_target(tra_completion ALL DEPENDS ${PROJECT_BINARY_DIR}/completion/tra)
install(FILES ${PROJECT_BINARY_DIR}/completion/tra
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

install(FILES README.md CHANGES.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Only what git tracks: a developer's tree may hold run outputs (out/) and generated inputs
# (plans/**/*.h5, ignored by .gitignore) that do not belong in an install.
install(DIRECTORY plans DESTINATION ${CMAKE_INSTALL_DATADIR}/tra
        PATTERN "out" EXCLUDE PATTERN "*.h5" EXCLUDE PATTERN "*.h5.tmp*" EXCLUDE
        PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY data DESTINATION ${CMAKE_INSTALL_DATADIR}/tra
        PATTERN "out" EXCLUDE PATTERN "*.h5.tmp*" EXCLUDE)
