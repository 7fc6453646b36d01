#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "util/text.h"

namespace tengen {
namespace {

TEST_CASE("text: Trim removes ASCII whitespace at both ends only") {
  CHECK(Trim("  a b \t\r\n") == "a b");
  CHECK(Trim("\f\vx") == "x");
  CHECK(Trim(" \t\n ").empty());
  CHECK(Trim("").empty());
  CHECK(Trim("a") == "a");
}

TEST_CASE("text: StartsWith and EndsWith") {
  CHECK(StartsWith("cuda:1", "cuda"));
  CHECK_FALSE(StartsWith("cud", "cuda"));
  CHECK(StartsWith("x", ""));
  CHECK(EndsWith("shard.npz", ".npz"));
  CHECK_FALSE(EndsWith("npz", ".npz"));
  CHECK_FALSE(EndsWith("shard.npz.tmp", ".npz"));
  CHECK(EndsWith("", ""));
}

TEST_CASE("text: StrCat writes strings, characters, booleans and numbers") {
  const std::string path = "a.cfg";
  CHECK(StrCat("file ", path, ": line ", 12, " of ", int64_t{40}) == "file a.cfg: line 12 of 40");
  CHECK(StrCat('[', -3, ']', true, ' ', false) == "[-3]true false");
  CHECK(StrCat(0.25, " ", 1e-05, " ", 3.14159265, " ", 2.0) == "0.25 1e-05 3.14159 2");
  CHECK(StrCat(uint64_t{18446744073709551615u}) == "18446744073709551615");
  CHECK(StrCat().empty());
}

}  // namespace
}  // namespace tengen
