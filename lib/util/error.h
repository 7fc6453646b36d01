#pragma once
// Error types for user and environment errors. Programs catch them in main (see program.h):
// a ConfigError is a usage error (exit code 2), any other Error exits with code 1. Messages name
// the file, key or value at fault so that the user can act on them without reading code.

#include <stdexcept>
#include <string>

#include "util/text.h"

namespace tengen {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Bad option, bad config file line, bad command-line argument.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& what) : Error(what) {}
};

// A file or directory could not be read, written, renamed or listed.
class IoError : public Error {
 public:
  explicit IoError(const std::string& what) : Error(what) {}
};

// A file was read but its content is malformed (SGF, npz, model metadata, ...).
class FormatError : public Error {
 public:
  explicit FormatError(const std::string& what) : Error(what) {}
};

// An internal invariant that does not hold: a bug, not a user error.
class CheckError : public std::logic_error {
 public:
  explicit CheckError(const std::string& what) : std::logic_error(what) {}
};

}  // namespace tengen

// TENGEN_CHECK(cond, message): throws CheckError naming the source line when cond is false.
#define TENGEN_CHECK(cond, msg)                                                           \
  do {                                                                                    \
    if (!(cond))                                                                          \
      throw ::tengen::CheckError(                                                         \
          ::tengen::StrCat(__FILE__, ":", __LINE__, ": check failed: " #cond ": ", msg)); \
  } while (0)
