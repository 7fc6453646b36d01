#pragma once
// The top of every program's main: runs the body and turns exceptions into a message on stderr
// and an exit code. ConfigError (usage) exits 2; any other error exits 1.

#include <functional>

namespace tengen {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

int RunProgram(const char* program_name, const std::function<int()>& body);

}  // namespace tengen
