# The layers of attn and what each may include (docs/design.md, "Layers"):
#
#   core    attn/core/*, attn/version.hpp; <fmt/...> (header-only, for error messages) and
#           <utf8proc.h> besides the standard library; of POSIX, <sched.h> (the cores it may
#           use) and <sys/mman.h>, <unistd.h> (memory of its own for large matrices: pages.cpp)
#   io      core, attn/io/*, its own private headers; <nlohmann/...>, <fmt/...>
#   render  core, attn/render/*, its own private headers; <fmt/...> and <nlohmann/...> (the
#           small JSON files attn init and attn worksheet write, the HTML page's data)
#   cli     everything
#
# attn_check_layers() reads every source and header of the three lower layers and stops the
# configure step, naming the file, the line and the include, when one points up or across.
# The same check runs as a test: cmake -DATTN_SOURCE_DIR=DIR -P cmake/Layers.cmake

function(attn_check_layer layer allowed_quoted allowed_angled)
    set(depends CONFIGURE_DEPENDS)
    if(CMAKE_SCRIPT_MODE_FILE)
        set(depends "")
    endif()
    file(GLOB_RECURSE files ${depends}
         "${ATTN_SOURCE_DIR}/src/${layer}/*.cpp" "${ATTN_SOURCE_DIR}/src/${layer}/*.hpp"
         "${ATTN_SOURCE_DIR}/include/attn/${layer}/*.hpp")
    set(problems "")
    foreach(file IN LISTS files)
        file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include")
        foreach(line IN LISTS lines)
            if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
                set(target "${CMAKE_MATCH_1}")
                if(NOT target MATCHES "^(${allowed_quoted})$")
                    # a private header of the same folder is fine
                    get_filename_component(dir "${file}" DIRECTORY)
                    if(NOT (target MATCHES "^[A-Za-z0-9_]+\\.hpp$" AND
                            dir STREQUAL "${ATTN_SOURCE_DIR}/src/${layer}"))
                        string(APPEND problems "\n  ${file}: #include \"${target}\"")
                    endif()
                endif()
            elseif(line MATCHES "#[ \t]*include[ \t]*<([^>]+)>")
                set(target "${CMAKE_MATCH_1}")
                # the standard library's headers have no slash and no .h (but <sys/...>,
                # <unistd.h> and friends, which io and cli use, are POSIX)
                if(target MATCHES "/" OR target MATCHES "\\.h$")
                    if(NOT target MATCHES "^(${allowed_angled})$")
                        string(APPEND problems "\n  ${file}: #include <${target}>")
                    endif()
                endif()
            endif()
        endforeach()
    endforeach()
    if(problems)
        message(FATAL_ERROR "attn: the ${layer} layer includes what it may not "
                            "(docs/design.md, Layers):${problems}")
    endif()
endfunction()

function(attn_check_layers)
    # POSIX headers, and glibc's <malloc.h> (io measures the heap for --max-memory: heap.cpp)
    set(posix "sys/[a-z]+\\.h|unistd\\.h|fcntl\\.h|sched\\.h|signal\\.h|termios\\.h|poll\\.h|malloc\\.h")
    attn_check_layer(core "attn/core/[a-z0-9_]+\\.hpp|attn/version\\.hpp"
                     "fmt/[a-z]+\\.h|utf8proc\\.h|sched\\.h|sys/mman\\.h|unistd\\.h")
    attn_check_layer(io "attn/(core|io)/[a-z0-9_]+\\.hpp|attn/version\\.hpp"
                     "nlohmann/[a-z0-9_]+\\.hpp|fmt/[a-z]+\\.h|${posix}")
    attn_check_layer(render "attn/(core|render)/[a-z0-9_]+\\.hpp|attn/version\\.hpp"
                     "fmt/[a-z]+\\.h|nlohmann/[a-z0-9_]+\\.hpp")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
    if(NOT ATTN_SOURCE_DIR)
        message(FATAL_ERROR "usage: cmake -DATTN_SOURCE_DIR=DIR -P cmake/Layers.cmake")
    endif()
    attn_check_layers()
    message(STATUS "attn: every include of core, io and render stays in its layer")
else()
    set(ATTN_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/..")
    get_filename_component(ATTN_SOURCE_DIR "${ATTN_SOURCE_DIR}" ABSOLUTE)
endif()
