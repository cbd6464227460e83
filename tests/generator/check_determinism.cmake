# Runs generate_synthetic twice with the same options, the second time with 3 threads (genera
# made at the same time), and requires byte-identical output;
# with REFERENCE set, also requires the output to equal that folder (test_data/), so the
# committed data set stays reproducible from the command in test_data/README.md.
# Variables: GENERATOR (executable), WORK (scratch folder), REFERENCE (optional folder).
set(options --seed 42 --genera 3 --species-per-genus 3 --strains-per-species 2
            --genome-length 30000 --read-pairs 2000 --quiet)
file(REMOVE_RECURSE ${WORK})
set(threads_a 1)
set(threads_b 3)
foreach(run a b)
  execute_process(COMMAND ${GENERATOR} -o ${WORK}/${run} ${options} --threads ${threads_${run}}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generate_synthetic failed (${rc}) for run ${run}")
  endif()
endforeach()

file(GLOB_RECURSE files RELATIVE ${WORK}/a ${WORK}/a/*)
list(LENGTH files count)
if(count LESS 8)
  message(FATAL_ERROR "only ${count} files written to ${WORK}/a")
endif()
foreach(f ${files})
  file(SHA256 ${WORK}/a/${f} first)
  file(SHA256 ${WORK}/b/${f} second)
  if(NOT first STREQUAL second)
    message(FATAL_ERROR "${f} differs between two runs with the same seed (1 and 3 threads)")
  endif()
  if(DEFINED REFERENCE)
    if(NOT EXISTS ${REFERENCE}/${f})
      message(FATAL_ERROR "${f} is missing from ${REFERENCE}: regenerate it (see README.md there)")
    endif()
    file(SHA256 ${REFERENCE}/${f} committed)
    if(NOT first STREQUAL committed)
      message(FATAL_ERROR "${REFERENCE}/${f} differs from the generator's output: "
                          "regenerate it with the command in ${REFERENCE}/README.md")
    endif()
  endif()
endforeach()
message(STATUS "${count} files identical")
