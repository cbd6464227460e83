#pragma once
// Runs the tests linked into this executable (catch_session.cpp).
int run_catch_session(int argc, char* argv[]);
