# lineup_add_harness(<name> [SOURCES] <source>...)
#
# Builds the shared object <name>.so (no "lib" prefix) from C sources, as
# `lineup-cc -shared -o <name>.so <sources>` does: ThreadSanitizer
# instrumentation with volatile distinction, -g, frame pointers,
# -Wreturn-type, libc's memory and string functions left as calls (gcc:
# -fno-builtin-..., _FORTIFY_SOURCE undefined; clang: reads before writes
# instrumented), lineup.h on the include path, and no TSan runtime at link
# time (the __tsan_* and lineup_* symbols stay undefined: the lineup process
# that loads the object defines them). Test it with `lineup ./<name>.so`.
# Options added to the target after this call come after lineup's, as with
# any target: a -D_FORTIFY_SOURCE there would turn it on again (gcc).
#
# Inside lineup's own build this file is included by the top-level
# CMakeLists.txt. From another project, include it from a lineup checkout or
# installation; lineup.h is looked up relative to this file (the source
# tree's harness/, or PREFIX/include when installed as
# PREFIX/lib/cmake/lineup/LineupHarness.cmake), or set LINEUP_INCLUDE_DIR:
#
#     cmake_minimum_required(VERSION 3.18)
#     project(myqueue C)
#     include(/path/to/lineup/cmake/LineupHarness.cmake)
#     lineup_add_harness(queue_harness SOURCES queue_harness.c)
#     # optional, as for any target:
#     target_compile_options(queue_harness PRIVATE -O2)
#
# The C compiler must be gcc >= 11 or clang >= 11 (CMAKE_C_COMPILER=clang to
# use clang). The function returns a regular MODULE library target: link it
# with other libraries, or set its output directory, as usual.

include_guard(GLOBAL)

if(NOT DEFINED LINEUP_INCLUDE_DIR)
  if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../harness/lineup.h")
    get_filename_component(_lineup_inc "${CMAKE_CURRENT_LIST_DIR}/../harness" ABSOLUTE)
  else()
    get_filename_component(_lineup_inc "${CMAKE_CURRENT_LIST_DIR}/../../../include" ABSOLUTE)
  endif()
  set(LINEUP_INCLUDE_DIR "${_lineup_inc}" CACHE PATH "Directory of lineup.h")
  unset(_lineup_inc)
endif()

# The libc functions gcc expands inline after its instrumentation pass
# (memcpy of 24 bytes or memset of 40 from -O1, memcmp(...) == 0 and strcmp
# with a literal at -O2, strcpy of a literal at -O0), where no hook sees
# their loads and stores; as calls, liblineup.so sees what they touch
# (lu_ipose_libc.c). Both lineup_add_harness and lineup-cc (configured from
# this list, harness/CMakeLists.txt) give gcc -fno-builtin-<f> for each.
set(LINEUP_GCC_LIBC_CALLS
    memcpy mempcpy memmove memset memcmp bcmp strlen strnlen strcmp strncmp strcpy strncpy stpcpy stpncpy
    strcat strncat strchr strrchr memchr strdup strndup snprintf vsnprintf sprintf vsprintf
    CACHE INTERNAL "libc functions gcc must leave as calls in code that runs under lineup")

function(lineup_add_harness name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  set(sources ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
  if(NOT sources)
    message(FATAL_ERROR "lineup_add_harness(${name}): no sources given")
  endif()
  if(NOT EXISTS "${LINEUP_INCLUDE_DIR}/lineup.h")
    message(FATAL_ERROR "lineup_add_harness(${name}): lineup.h not found in LINEUP_INCLUDE_DIR "
                        "(${LINEUP_INCLUDE_DIR}); set it to the directory that holds lineup.h")
  endif()

  # The flags lineup-cc gives (harness/lineup-cc.in says why each is there;
  # tooling.cmake_external compares the two). Volatile distinction gives
  # volatile accesses their own hooks, which lineup turns into scheduling
  # points; both compilers have it since 11. The others keep the
  # partial-order reduction sound: without them a harness built here
  # passed where the same one built by lineup-cc failed (an audit).
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    # -Wno-tsan: gcc warns that TSan does not support atomic_thread_fence;
    # lineup does.
    set(family_flags --param=tsan-distinguish-volatile=1 -Wno-tsan)
    foreach(f IN LISTS LINEUP_GCC_LIBC_CALLS)
      list(APPEND family_flags -fno-builtin-${f})
    endforeach()
    # _FORTIFY_SOURCE's checking builtins are folded inline the same way.
    # Compile options come after CMAKE_C_FLAGS, the definitions and the
    # directory's options (but before options added to the target after
    # this call). One SHELL: group, so that CMake's de-duplication, which
    # keeps the first copy, cannot drop these for an earlier
    # -Wp,-U_FORTIFY_SOURCE that a -Wp,-D_FORTIFY_SOURCE=2 follows.
    # -fno-lto: gcc runs its TSan pass at link time on LTO objects, and the
    # link has no -fsanitize=thread, so they were not instrumented at all
    # (lineup-cc.in). It comes after CMAKE_C_FLAGS and the flags of
    # INTERPROCEDURAL_OPTIMIZATION, so it wins over their -flto.
    set(late_flags "SHELL:-U_FORTIFY_SOURCE -Wp,-U_FORTIFY_SOURCE -fno-lto")
  elseif(CMAKE_C_COMPILER_ID MATCHES "Clang")
    # -tsan-instrument-read-before-write: LLVM's pass leaves out a read
    # that a write of the same address follows in its basic block
    # -mcx16: 16-byte atomic arithmetic as __tsan_atomic128_* hooks rather
    # than uninstrumented libatomic calls (lineup-cc.in)
    set(family_flags "SHELL:-mllvm -tsan-distinguish-volatile=1"
                     "SHELL:-mllvm -tsan-instrument-read-before-write=1" -mcx16)
    set(late_flags)
  else()
    message(FATAL_ERROR "lineup_add_harness(${name}): the C compiler is ${CMAKE_C_COMPILER_ID}; "
                        "lineup needs gcc or clang (ThreadSanitizer instrumentation)")
  endif()
  if(CMAKE_C_COMPILER_VERSION VERSION_LESS 11)
    message(FATAL_ERROR "lineup_add_harness(${name}): ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION} "
                        "is too old; lineup needs gcc >= 11 or clang >= 11")
  endif()

  add_library(${name} MODULE ${sources})
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".so" POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PRIVATE "${LINEUP_INCLUDE_DIR}")
  # Compile options only: -fsanitize=thread must not reach the link, where
  # the compiler driver would add libtsan.
  # -Wreturn-type: an operation that forgets its return statement returns
  # garbage, which a check then takes for its result.
  # -include lineup-cc-mark.h: the object says it was compiled with these
  # flags, as lineup-cc's objects do (lineup refuses a harness compiled
  # with a plain -fsanitize=thread; the header says why).
  target_compile_options(${name} PRIVATE -g -fsanitize=thread -fno-omit-frame-pointer -Wreturn-type
                                         "SHELL:-include ${LINEUP_INCLUDE_DIR}/lineup-cc-mark.h"
                                         ${family_flags} ${late_flags})

  # The object is meant to have undefined symbols; undo a -z defs or
  # --no-undefined from the project's linker flags. The last one wins, and
  # link items come after CMAKE_MODULE_LINKER_FLAGS on the command line,
  # link options before them.
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  if("${CMAKE_MODULE_LINKER_FLAGS} ${CMAKE_MODULE_LINKER_FLAGS_${config}}" MATCHES "defs|no-undefined")
    target_link_libraries(${name} PRIVATE -Wl,-z,undefs)
  endif()
endfunction()
