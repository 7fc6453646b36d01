#include "util/program.h"

#include <exception>
#include <iostream>

#include "util/error.h"

namespace tengen {

int RunProgram(const char* program_name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const ConfigError& e) {
    std::cerr << program_name << ": usage error: " << e.what() << "\n"
              << "Try '" << program_name << " --help'.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << program_name << ": error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace tengen
