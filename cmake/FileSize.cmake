# No source file of attn is over 500 lines (docs/design.md, "Files of each layer"): a file
# that grows past that is doing more than one job and is split by job. Run as a test:
#   cmake -DATTN_SOURCE_DIR=DIR -P cmake/FileSize.cmake
# It names each file over the limit and its length.
set(limit 500)
file(GLOB_RECURSE files "${ATTN_SOURCE_DIR}/src/*" "${ATTN_SOURCE_DIR}/include/*")
set(problems "")
foreach(file IN LISTS files)
    if(NOT file MATCHES "\\.(cpp|hpp|h|js|css)$")
        continue()
    endif()
    # every line, the empty ones too (file(STRINGS) would skip them)
    file(READ "${file}" text)
    string(REGEX REPLACE "[^\n]" "" newlines "${text}")
    string(LENGTH "${newlines}" lines)
    if(lines GREATER limit)
        string(APPEND problems "\n  ${file}: ${lines} lines")
    endif()
endforeach()
if(problems)
    message(FATAL_ERROR "attn: these files are over ${limit} lines; split each by job "
                        "(docs/design.md, Files of each layer):${problems}")
endif()
