# The plan proof (plan_proof.py): `envlock plan` / `envlock export` checked by
# the real installers (pip, npm ci, apt-get -s), a recording modal stub and
# dockerfile-ast, against the fixture mirror of plan-proof.scn served by nginx
# (and Verdaccio when installed). plan_proof_setup builds the mirror, starts
# the servers, resolves the lock and runs plan and export once; every
# plan_proof_<test> reads that state; plan_proof_cleanup stops the servers.
# Exit 77 (skipped) only when a tool is missing: nginx, dpkg-deb, gpg,
# apt-get, PyYAML (setup), pip, npm/node, dockerfile-ast (per test).
# Included by tests/plan/CMakeLists.txt. Label: plan-proof.
find_program(EL_PROOF_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT EL_PROOF_PYTHON3)
  message(STATUS "plan proof: /usr/bin/python3 not found, not registered")
  return()
endif()
set(proof ${CMAKE_CURRENT_SOURCE_DIR}/plan_proof.py)
set(proof_state ${CMAKE_CURRENT_BINARY_DIR}/proof-state)
set(proof_env "PYTHONDONTWRITEBYTECODE=1")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${proof})
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONDONTWRITEBYTECODE=1 ${EL_PROOF_PYTHON3} ${proof} list
                OUTPUT_VARIABLE EL_PROOF_TESTS RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(WARNING "plan proof: `plan_proof.py list` failed: ${err}")
  return()
endif()

add_test(NAME plan_proof_setup
         COMMAND ${EL_PROOF_PYTHON3} ${proof} setup ${proof_state} --envlock $<TARGET_FILE:envlock>)
add_test(NAME plan_proof_cleanup COMMAND ${EL_PROOF_PYTHON3} ${proof} cleanup ${proof_state})
set_tests_properties(plan_proof_setup PROPERTIES FIXTURES_SETUP plan_proof TIMEOUT 180
                     LABELS plan-proof ENVIRONMENT "${proof_env}")
set_tests_properties(plan_proof_cleanup PROPERTIES FIXTURES_CLEANUP plan_proof TIMEOUT 60
                     LABELS plan-proof ENVIRONMENT "${proof_env}")

string(REPLACE "\n" ";" EL_PROOF_TESTS "${EL_PROOF_TESTS}")
foreach(t ${EL_PROOF_TESTS})
  if(t STREQUAL "")
    continue()
  endif()
  add_test(NAME plan_proof_${t} COMMAND ${EL_PROOF_PYTHON3} ${proof} run ${proof_state} ${t})
  set_tests_properties(plan_proof_${t} PROPERTIES FIXTURES_REQUIRED plan_proof TIMEOUT 120
                       SKIP_RETURN_CODE 77 LABELS plan-proof ENVIRONMENT "${proof_env}")
endforeach()
