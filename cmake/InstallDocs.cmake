# Run at install time (install(CODE) in CMakeLists.txt): copies README.md and docs/*.md,
# their pictures and docs/schema to the doc folder, where the README and the guides sit side
# by side. A link from the README into docs/ becomes a link to the guide beside it; every
# other link into the source tree (tests/, data/), which is not installed, is written as
# text naming the file in attn's source ("present-long.txt (tests/golden/present-long.txt in
# attn's source)"), so that no installed guide has a link that leads nowhere. Inputs:
# ATTN_SOURCE (the source folder) and ATTN_DOCS_DESTINATION (the doc folder, DESTDIR
# included).

# `text` with its links into the source tree rewritten; `up` is how a guide reaches the
# source folder ("../" from docs/, "" from the README)
function(attn_installed_links text up out)
    string(REGEX MATCHALL "!?\\[[^]]*\\]\\(${up}[^)]*\\)" links "${text}")
    list(REMOVE_DUPLICATES links)
    foreach(link IN LISTS links)
        string(REGEX REPLACE "^!?\\[([^]]*)\\]\\(${up}([^)]*)\\)$" "\\1" label "${link}")
        string(REGEX REPLACE "^!?\\[([^]]*)\\]\\(${up}([^)]*)\\)$" "\\2" path "${link}")
        if(path MATCHES "^docs/")
            string(REGEX REPLACE "^docs/" "" guide "${path}")
            string(REPLACE "(${up}${path})" "(${guide})" replacement "${link}")
        elseif(path MATCHES "^(https?:|#|[a-z-]+\\.(md|png))")
            continue()  # a web address, a place in the page, or a guide beside it
        elseif(label STREQUAL path OR label STREQUAL "`${path}`")
            set(replacement "${label} (in attn's source)")
        else()
            set(replacement "${label} (${path} in attn's source)")
        endif()
        string(REPLACE "${link}" "${replacement}" text "${text}")
    endforeach()
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY "${ATTN_DOCS_DESTINATION}")
file(READ "${ATTN_SOURCE}/README.md" readme)
attn_installed_links("${readme}" "" readme)
file(WRITE "${ATTN_DOCS_DESTINATION}/README.md" "${readme}")
message(STATUS "Installing: ${ATTN_DOCS_DESTINATION}/README.md")
file(GLOB guides "${ATTN_SOURCE}/docs/*.md")
foreach(guide IN LISTS guides)
    file(READ "${guide}" text)
    attn_installed_links("${text}" "\\.\\./" text)
    get_filename_component(name "${guide}" NAME)
    file(WRITE "${ATTN_DOCS_DESTINATION}/${name}" "${text}")
    message(STATUS "Installing: ${ATTN_DOCS_DESTINATION}/${name}")
endforeach()
file(GLOB pictures "${ATTN_SOURCE}/docs/*.png")
file(INSTALL ${pictures} DESTINATION "${ATTN_DOCS_DESTINATION}")
file(INSTALL "${ATTN_SOURCE}/docs/schema" DESTINATION "${ATTN_DOCS_DESTINATION}"
     FILES_MATCHING PATTERN "*.json")
