#pragma once
// Helpers shared by the tests.

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/subprocess.h"

namespace tengen::testing {

// A unique scratch directory under the system temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir()
      : path_(boost::filesystem::temp_directory_path() /
              boost::filesystem::unique_path("tengen-test-%%%%-%%%%-%%%%")) {
    boost::filesystem::create_directories(path_);
  }
  ~TempDir() {
    boost::system::error_code ignored;
    boost::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  // The path of `name` inside the directory (nothing is created).
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  // Writes `text` to `name` inside the directory and returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string file = *this / name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  boost::filesystem::path path_;
};

// The largest |a[i] - b[i]|; infinity when the sizes differ.
inline float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::numeric_limits<float>::infinity();
  float diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i]));
  return diff;
}

// A python3 that can import numpy: $TENGEN_PYTHON, python3 in PATH, or the system's (a pyenv
// python3 earlier in PATH may lack the Debian package). Empty if there is none.
inline std::string FindNumpyPython() {
  std::vector<std::string> candidates = {"python3", "/usr/bin/python3"};
  if (const char* env = std::getenv("TENGEN_PYTHON")) candidates.insert(candidates.begin(), env);
  for (const std::string& python : candidates) {
    try {
      if (RunProcess({python, "-c", "import numpy"}).exit_code == 0) return python;
    } catch (const IoError&) {
    }
  }
  return "";
}

}  // namespace tengen::testing
