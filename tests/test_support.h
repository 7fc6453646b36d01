#pragma once
// Helpers shared by the tests.

#include <boost/filesystem.hpp>
#include <fstream>
#include <string>

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

}  // namespace tengen::testing
