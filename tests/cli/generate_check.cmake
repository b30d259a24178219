# Checks `assignor generate ${ARGS} --seed ${SEED}`:
#   - two runs (one to --output, one to stdout) give the same bytes; another seed, other bytes;
#   - tests/cli/generate_reference.py, written from docs/generation.md alone, gives the same bytes;
#   - `assignor assign` accepts the file, and the independent checker (tests/tools/check_assignment.py)
#     accepts the assignment.
# Variables: CLI, ARGS (space-separated, without --seed), SEED, PYTHON, REFERENCE, CONFIG, WORK,
# CHECKER.
separate_arguments(args UNIX_COMMAND "${ARGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} exited ${rc}:\n${err}")
  endif()
endfunction()

function(expect_same a b what)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${a} ${b} RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${what}: ${a} and ${b} differ")
  endif()
endfunction()

run("assignor generate --output" ${CLI} generate ${args} --seed ${SEED} --output ${WORK}/first.json)
run("assignor generate" ${CLI} generate ${args} --seed ${SEED} OUTPUT_FILE ${WORK}/second.json)
expect_same(${WORK}/first.json ${WORK}/second.json "two runs with the same arguments")

# Another seed: SEED with its last digit changed (CMake's integers stop at 2^63 - 1).
string(LENGTH "${SEED}" n)
math(EXPR n "${n} - 1")
string(SUBSTRING "${SEED}" ${n} 1 last)
string(SUBSTRING "${SEED}" 0 ${n} head)
math(EXPR last "(${last} + 1) % 10")
set(other_seed "${head}${last}")
run("assignor generate (other seed)" ${CLI} generate ${args} --seed ${other_seed} OUTPUT_FILE ${WORK}/other.json)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/first.json ${WORK}/other.json RESULT_VARIABLE differ)
if(NOT differ)
  message(FATAL_ERROR "seeds ${SEED} and ${other_seed} gave the same file")
endif()

run("generate_reference.py" ${PYTHON} ${REFERENCE} ${args} --seed ${SEED} OUTPUT_FILE ${WORK}/reference.json)
expect_same(${WORK}/first.json ${WORK}/reference.json "the command and docs/generation.md (generate_reference.py)")

run("assignor assign" ${CLI} assign --config ${CONFIG} --cluster ${WORK}/first.json --output ${WORK}/assignment.json)
execute_process(COMMAND ${PYTHON} ${CHECKER} ${WORK}/first.json ${WORK}/assignment.json --kind ha --standbys 1 --warmups 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_assignment.py found problems:\n${out}${err}")
endif()
