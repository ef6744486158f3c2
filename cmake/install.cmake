# `cmake --install` and `cpack -G DEB`: where Debian puts things (GNUInstallDirs), and the package that says what
# running vimgpt needs. Details and the check that installs the package into a fresh Debian 12: docs/install.md and
# scripts/package.sh.
include(GNUInstallDirs)

# The man page and the shell completions are written by the binary from its own command line (`vimgpt completions
# bash|zsh|fish|man`, src/cli/completions.cpp), so they cannot drift from the flags it takes. The man page is
# gzipped as Debian ships man pages (-n: no name or time stamp inside, so the same page gives the same bytes).
set(VIMGPT_SHELL_DIR ${CMAKE_CURRENT_BINARY_DIR}/share)
set(VIMGPT_SHELL_FILES ${VIMGPT_SHELL_DIR}/vimgpt.bash ${VIMGPT_SHELL_DIR}/_vimgpt ${VIMGPT_SHELL_DIR}/vimgpt.fish
                       ${VIMGPT_SHELL_DIR}/vimgpt.1 ${VIMGPT_SHELL_DIR}/vimgpt.1.gz)
find_program(GZIP gzip REQUIRED)
add_custom_command(
  OUTPUT ${VIMGPT_SHELL_FILES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VIMGPT_SHELL_DIR}
  COMMAND sh -c "\"$0\" completions bash > \"$1\"/vimgpt.bash && \"$0\" completions zsh > \"$1\"/_vimgpt && \
\"$0\" completions fish > \"$1\"/vimgpt.fish && \"$0\" completions man > \"$1\"/vimgpt.1 && \
\"$2\" -9n -c \"$1\"/vimgpt.1 > \"$1\"/vimgpt.1.gz" $<TARGET_FILE:vimgpt> ${VIMGPT_SHELL_DIR} ${GZIP}
  DEPENDS vimgpt
  COMMENT "Writing vimgpt's man page and shell completions from its command line"
  VERBATIM)
add_custom_target(vimgpt_shell_files ALL DEPENDS ${VIMGPT_SHELL_FILES})

install(TARGETS vimgpt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# What lintian reports of the package and is meant so, each with its reason (packaging/lintian-overrides).
install(FILES packaging/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME vimgpt)
install(FILES ${VIMGPT_SHELL_DIR}/vimgpt.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${VIMGPT_SHELL_DIR}/vimgpt.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME vimgpt)
install(FILES ${VIMGPT_SHELL_DIR}/_vimgpt DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${VIMGPT_SHELL_DIR}/vimgpt.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
# The skill is data a coding agent reads (copied into its skills folder), not documentation: share/vimgpt.
install(DIRECTORY skills/ DESTINATION ${CMAKE_INSTALL_DATADIR}/vimgpt/skills)
# Debian's doc folder: the copyright file (MIT, in Debian's machine-readable form), the notices of what the binary
# links, the changelog Debian asks of a native package, and the user documentation.
set(VIMGPT_CHANGELOG_GZ ${CMAKE_CURRENT_BINARY_DIR}/share/changelog.gz)
add_custom_command(
  OUTPUT ${VIMGPT_CHANGELOG_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/share
  COMMAND sh -c "\"$0\" -9n -c \"$1\" > \"$2\"" ${GZIP} ${CMAKE_CURRENT_SOURCE_DIR}/packaging/changelog
          ${VIMGPT_CHANGELOG_GZ}
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/packaging/changelog
  VERBATIM)
add_custom_target(vimgpt_changelog ALL DEPENDS ${VIMGPT_CHANGELOG_GZ})
install(FILES packaging/copyright THIRD-PARTY-NOTICES.md README.md ${VIMGPT_CHANGELOG_GZ}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")

# The Debian package. Depends: the headless browser every default run starts, and the shared libraries the binary
# links as dpkg-shlibdeps computes them. Recommends: the full Chromium (--headed, --extension), Firefox ESR (--engine
# firefox), Xvfb (--xvfb: the full browser on a virtual display) and the label font (the frames the model gets with
# --hint-mode image or both-frames, and `hints --png`); each run says what to install when one is missing. Suggests:
# the offline speech model (--voice with --stt local).
set(VIMGPT_PACKAGE_MAINTAINER "vimgpt maintainers <maintainers@users.noreply.a-seed-86081e63.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(VIMGPT_PACKAGE_HOMEPAGE "" CACHE STRING "Homepage field of the Debian package (none when empty)")
set(CPACK_PACKAGE_NAME vimgpt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${VIMGPT_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "web-browsing agent that sees pages through link hints")
# The long description, in lines that fit Debian's 80 columns (CPack indents them and puts the summary above).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "vimgpt does an objective in a real Chromium the way a person does: it
takes a screenshot on which every clickable element carries a short yellow
label, in the manner of Vimium's link hints, asks a vision language model
(OpenAI, Anthropic, or any OpenAI-compatible server) what to do next, and
does it.

It also screenshots pages, prints their hint maps, serves the Model Context
Protocol, gives coding agents browser verbs from the shell, runs batches of
tasks, and replays recorded runs without a model.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # vimgpt_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "chromium-headless-shell")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "chromium, firefox-esr, xvfb, fonts-dejavu-core, poppler-utils")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pocketsphinx-en-us")
if(VIMGPT_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${VIMGPT_PACKAGE_HOMEPAGE}")
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
include(CPack)
