#pragma once
// catch.hpp plus TEMPLATE_TEST_CASE, which Catch2 v3 (device host) keeps in a
// header of its own (v2, CI: already in catch.hpp).
#include "catch.hpp"
#if __has_include(<catch2/catch_template_test_macros.hpp>)
#include <catch2/catch_template_test_macros.hpp>
#endif
