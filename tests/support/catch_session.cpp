// Catch2's implementation and session, compiled once for every test runner
// (the Catch2 v2 single header makes this the slowest file of the tests).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "catch_session.hpp"

int run_catch_session(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
