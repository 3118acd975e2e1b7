# SPDX-License-Identifier: GPL-2.0-only
# Runs clang-format --dry-run -Werror over every C++ source of the project.
file(GLOB_RECURSE sources
     ${ROOT}/contrib/ai-fabric/*.cc ${ROOT}/contrib/ai-fabric/*.h
     ${ROOT}/examples/*.cc ${ROOT}/scratch/*.cc)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror --style=file ${sources}
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "clang-format: sources differ from .clang-format (run clang-format -i)")
endif()
