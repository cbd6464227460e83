#pragma once
// Catch2 v2 and v3 name Approx differently; a plain tolerance serves both.
#include <cmath>

inline bool near(double value, double expected, double tolerance) {
  return std::fabs(value - expected) <= tolerance;
}
