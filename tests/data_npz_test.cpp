#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "data/npy.h"
#include "data/npz.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/subprocess.h"

namespace tengen::data {
namespace {

using testing::TempDir;

// Deterministic pseudo-random values, compressible enough to exercise deflate properly.
template <typename T>
std::vector<T> Values(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> values(count);
  for (size_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      values[i] = rng() % 3 == 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      values[i] = static_cast<T>(static_cast<int>(rng() % 2001) - 1000) / T{8};
    } else {
      values[i] = static_cast<T>(rng() % 200);
      if (std::is_signed_v<T> && i % 2 == 1) values[i] = static_cast<T>(-values[i]);
    }
  }
  if (count > 1 && !std::is_same_v<T, bool>) {
    values[0] = std::numeric_limits<T>::max();  // extremes survive the round trip
    values[1] = std::numeric_limits<T>::lowest();
  }
  return values;
}

template <typename T>
void CheckRoundTrip(const std::string& dir, const std::vector<int64_t>& shape, int level) {
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  const std::vector<T> values = Values<T>(count, 7);
  const std::string path = dir + "/rt_" + NpyDType<T>::kDescr[1] + ".npz";
  {
    NpzWriter writer(path, level);
    writer.Add("a", values, shape);
    writer.Add("b_second", NpyArray::Of(values, shape));
    writer.Finish();
  }
  NpzReader reader(path);
  CHECK(reader.names() == std::vector<std::string>{"a", "b_second"});
  for (const std::string& name : reader.names()) {
    std::vector<int64_t> read_shape;
    CHECK(reader.Read<T>(name, &read_shape) == values);
    CHECK(read_shape == shape);
    const NpyHeader header = reader.ArrayHeader(name);
    CHECK(header.dtype == NpyDType<T>::kDescr);
    CHECK(header.shape == shape);
  }
}

template <typename T>
void CheckAllShapes(const std::string& dir) {
  for (int level : {-1, 0, 1, 9}) {
    CAPTURE(level);
    CheckRoundTrip<T>(dir, {}, level);
    CheckRoundTrip<T>(dir, {0, 5}, level);
    CheckRoundTrip<T>(dir, {7}, level);
    CheckRoundTrip<T>(dir, {3, 4, 5}, level);
  }
}

// A small file with a few arrays, and its content for comparison.
std::string WriteSmall(const TempDir& dir, int level = -1) {
  const std::string path = dir / "small.npz";
  NpzWriter writer(path, level);
  writer.Add("x", std::vector<float>{1.5f, -2, 3, 4, 5, 6}, {2, 3});
  writer.Add("n", std::vector<int32_t>{1, 2, 3}, {3});
  writer.Add("m", std::vector<bool>{true, false}, {2});
  writer.Finish();
  return path;
}

// Reads every array of `path`, as WriteSmall wrote them; returns false if the content differs.
bool ReadsSmall(const std::string& path) {
  NpzReader reader(path);
  std::vector<int64_t> shape;
  bool same = reader.names() == std::vector<std::string>{"x", "n", "m"};
  for (const std::string& name : reader.names()) reader.ArrayHeader(name);
  same = same && reader.Read<float>("x", &shape) == std::vector<float>{1.5f, -2, 3, 4, 5, 6} &&
         shape == std::vector<int64_t>{2, 3};
  same = same && reader.Read<int32_t>("n") == std::vector<int32_t>{1, 2, 3};
  return same && reader.Read<bool>("m") == std::vector<bool>{true, false};
}

void CheckFormatError(const std::string& path, const std::string& expected_part) {
  try {
    ReadsSmall(path);
    FAIL("no FormatError for " << path);
  } catch (const FormatError& e) {
    const std::string message = e.what();
    CHECK_MESSAGE(message.find(path) != std::string::npos, message);
    CHECK_MESSAGE(message.find(expected_part) != std::string::npos, message);
  }
}

// Offset of the first member's compressed data in a file we wrote: no extra field.
size_t FirstDataOffset(const std::string& bytes) {
  const size_t name_size = static_cast<unsigned char>(bytes[26]);
  return 30 + name_size;
}

TEST_CASE("npy header golden bytes") {
  // Magic, version 1.0, header length 118 (0x76), the dict, 58 spaces and '\n': 128 bytes.
  const std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                               "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                               std::string(58, ' ') + "\n";
  CHECK(EncodeNpyHeader({"<f4", {2, 3}}) == expected);
  const std::string scalar = EncodeNpyHeader({"|u1", {}});
  CHECK(scalar.size() == 128);
  CHECK(scalar.find("{'descr': '|u1', 'fortran_order': False, 'shape': (), }  ") == 10);
  CHECK(EncodeNpyHeader({"|b1", {5}}).find("'shape': (5,), }") != std::string::npos);
  // Whatever the shape, the data starts at a multiple of 64.
  const std::string long_shape = EncodeNpyHeader({"<f8", {1000000000, 3, 4, 5, 6, 7, 8, 9, 10}});
  CHECK(long_shape.size() % 64 == 0);
  CHECK(long_shape.back() == '\n');
  CHECK(EncodeNpyHeader({"<f8", std::vector<int64_t>(20, 1000000000)}).size() == 320);
}

TEST_CASE("npy header parser accepts what numpy writes and rejects the rest") {
  auto parse = [](const std::string& dict) {
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(dict.size());
    bytes += '\0';
    return ParseNpyPreamble(bytes + dict, "t.npy");
  };
  // numpy 1.24's own header for np.zeros((2, 3), np.float32), spare spaces and all.
  auto ok = parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                  std::string(60, ' ') + "\n");
  REQUIRE(ok);
  CHECK(ok->header.dtype == "<f4");
  CHECK(ok->header.shape == std::vector<int64_t>{2, 3});
  CHECK(parse("{'shape': (3L,), 'fortran_order': False, 'descr': '<u1'}\n")->header.dtype == "|u1");
  CHECK(parse("{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": ()}")->header.shape ==
        std::vector<int64_t>{});

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", "fortran_order"},
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", "big-endian"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }", "unsupported dtype"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "structured"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", "negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (5), }", "trailing comma"},
      {"{'descr': '<f4', 'fortran_order': False}", "missing key"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", "duplicate"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", "unknown key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk", "after the closing"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': ()}", "expected ','"},
      {"{'descr': '<f4', 'fortran_order': Fals", "True or False"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': ()}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, "
       "99999999999)}",
       "too many elements"},
  };
  for (const auto& [dict, why] : bad) {
    CAPTURE(dict);
    try {
      parse(dict);
      FAIL("accepted");
    } catch (const FormatError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(why) != std::string::npos, e.what());
      CHECK(std::string(e.what()).find("t.npy") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(ParseNpyPreamble("PK\x03\x04", "t.npy"), FormatError);
  CHECK_THROWS_AS(ParseNpyPreamble(std::string("\x93NUMPY\x04\x00", 8), "t.npy"), FormatError);
  CHECK_FALSE(ParseNpyPreamble("\x93NUM", "t.npy"));  // a prefix: read more
  const std::string whole = EncodeNpy(NpyArray::Of(std::vector<int16_t>{1, 2, 3}, {3}));
  for (size_t size = 0; size < 64; ++size) CHECK_FALSE(ParseNpyPreamble(whole.substr(0, size), ""));
  CHECK(DecodeNpy(whole, "w").Values<int16_t>("w") == std::vector<int16_t>{1, 2, 3});
  CHECK_THROWS_AS(DecodeNpy(whole.substr(0, whole.size() - 1), "w"), FormatError);
  CHECK_THROWS_AS(DecodeNpy(whole + "x", "w"), FormatError);
}

TEST_CASE("typed access checks the dtype") {
  const NpyArray array = NpyArray::Of(std::vector<float>{1, 2}, {2});
  CHECK(array.Values<float>("here") == std::vector<float>{1, 2});
  try {
    array.Values<double>("file.npz: array 'v'");
    FAIL("accepted");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()) == "file.npz: array 'v': dtype '<f4' where '<f8' was expected");
  }
  NpyArray bools = NpyArray::Of(std::vector<bool>{true, false}, {2});
  bools.data[1] = 2;
  CHECK_THROWS_AS(bools.Values<bool>("b"), FormatError);
  CHECK_THROWS_AS(NpyArray::Of(std::vector<float>{1, 2, 3}, {2}), CheckError);
}

TEST_CASE("npz round trip of every dtype and shape") {
  TempDir dir;
  CheckAllShapes<bool>(dir.path());
  CheckAllShapes<uint8_t>(dir.path());
  CheckAllShapes<int8_t>(dir.path());
  CheckAllShapes<uint16_t>(dir.path());
  CheckAllShapes<int16_t>(dir.path());
  CheckAllShapes<uint32_t>(dir.path());
  CheckAllShapes<int32_t>(dir.path());
  CheckAllShapes<uint64_t>(dir.path());
  CheckAllShapes<int64_t>(dir.path());
  CheckAllShapes<float>(dir.path());
  CheckAllShapes<double>(dir.path());
}

TEST_CASE("npz writer publishes atomically and refuses bad names") {
  TempDir dir;
  const std::string path = dir / "w.npz";
  {
    NpzWriter writer(path);
    writer.Add("a", std::vector<float>{1}, {1});
    CHECK(ListPublished(dir.path()).empty());
    CHECK_THROWS_AS(writer.Add("a", std::vector<float>{1}, {1}), ConfigError);
    CHECK_THROWS_AS(writer.Add("", std::vector<float>{1}, {1}), ConfigError);
    CHECK_THROWS_AS(writer.Add("d/e", std::vector<float>{1}, {1}), ConfigError);
  }  // abandoned: nothing published, temporary removed
  CHECK(ListPublished(dir.path()).empty());
  CHECK_THROWS_AS(NpzWriter(path, 10), ConfigError);
  NpzWriter writer(path);
  writer.Finish();
  CHECK(NpzReader(path).names().empty());
  CHECK_THROWS_AS(writer.Add("late", std::vector<float>{1}, {1}), CheckError);
}

TEST_CASE("npz reader errors name the file and the array") {
  TempDir dir;
  const std::string path = WriteSmall(dir);
  REQUIRE(ReadsSmall(path));
  NpzReader reader(path);
  try {
    reader.Read<double>("x");
    FAIL("accepted");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()) == path + ": array 'x': dtype '<f4' where '<f8' was expected");
  }
  CHECK_THROWS_WITH_AS(reader.ReadArray("nope"),
                       (path + ": array 'nope': no such array in the file").c_str(), FormatError);
  CHECK_THROWS_AS(NpzReader(dir / "missing.npz"), IoError);
  CHECK_THROWS_AS(NpzReader(dir.path()), IoError);
}

TEST_CASE("npz reader rejects foreign files") {
  TempDir dir;
  CheckFormatError(dir.Write("empty.npz", ""), "too short");
  CheckFormatError(dir.Write("text.npz", "this is a text file, not an npz archive\n"),
                   "no zip end of central directory");
  std::mt19937 rng(3);
  std::string random(5000, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  CheckFormatError(dir.Write("random.npz", random), "not an npz file");
  const std::string png = std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + random;
  CheckFormatError(dir.Write("image.png", png), "not an npz file");
  // A zip whose member is not an array.
  std::string bytes = ReadFile(WriteSmall(dir));
  const size_t pos = bytes.rfind("x.npy");
  bytes.replace(pos, 5, "x.txt");
  bytes.replace(bytes.find("x.npy"), 5, "x.txt");
  CheckFormatError(dir.Write("notnpy.npz", bytes), "does not end in .npy");
}

TEST_CASE("npz reader rejects what it does not support") {
  TempDir dir;
  const std::string good = ReadFile(WriteSmall(dir));
  const size_t central = good.rfind(std::string("PK\x01\x02", 4));  // the last entry: "m"
  const size_t local_m = good.rfind(std::string("PK\x03\x04", 4));
  auto patched = [&](const std::string& name, size_t offset, const std::string& value) {
    std::string bytes = good;
    bytes.replace(offset, value.size(), value);
    return dir.Write(name, bytes);
  };
  CheckFormatError(patched("enc.npz", central + 8, std::string("\x01\x00", 2)), "encrypted");
  CheckFormatError(patched("bz.npz", central + 10, std::string("\x0c\x00", 2)),
                   "unsupported compression method 12");
  CheckFormatError(patched("z64.npz", central + 24, "\xff\xff\xff\xff"), "ZIP64");
  CheckFormatError(patched("z64e.npz", good.size() - 22 + 10, "\xff\xff"), "ZIP64");
  CheckFormatError(patched("dup.npz", central + 46, "n"), "appears twice");
  CheckFormatError(patched("local.npz", local_m + 30, "q"), "local header disagrees");
  CheckFormatError(patched("size.npz", central + 24, "\xff\xff\xff\x7f"), "implausible");
  CheckFormatError(patched("off.npz", central + 42, std::string("\x00\x00\x01\x00", 4)), "outside");
}

TEST_CASE("npz reader detects damaged data") {
  TempDir dir;
  for (int level : {-1, 0}) {
    const std::string good = ReadFile(WriteSmall(dir, level));
    std::string bytes = good;
    bytes[FirstDataOffset(bytes) + 20] ^= 0x10;
    const std::string path = dir.Write("flip.npz", bytes);
    CHECK_THROWS_AS(ReadsSmall(path), FormatError);
    try {
      NpzReader(path).ReadArray("x");
    } catch (const FormatError& e) {
      const std::string message = e.what();
      CHECK_MESSAGE(message.find(path + ": array 'x'") != std::string::npos, message);
      CHECK_MESSAGE((message.find("CRC") != std::string::npos ||
                     message.find("deflate") != std::string::npos ||
                     message.find("inflate") != std::string::npos ||
                     message.find("ends early") != std::string::npos),
                    message);
    }
  }
}

TEST_CASE("npz reader survives truncation and byte flips at every offset") {
  TempDir dir;
  for (int level : {-1, 0}) {
    const std::string good = ReadFile(WriteSmall(dir, level));
    const std::string path = dir / "damaged.npz";
    for (size_t size = 0; size < good.size(); ++size) {
      CAPTURE(size);
      CheckFormatError(dir.Write("damaged.npz", good.substr(0, size)), path);
    }
    // A flipped byte gives a FormatError or, where it hit a field we do not use (the timestamp,
    // version, attributes), exactly the original arrays: never wrong values.
    int errors = 0;
    for (size_t offset = 0; offset < good.size(); ++offset) {
      CAPTURE(offset);
      std::string bytes = good;
      bytes[offset] = static_cast<char>(bytes[offset] ^ 0x21);
      try {
        const bool same = ReadsSmall(dir.Write("damaged.npz", bytes));  // outside CHECK,
        CHECK(same);  // which would catch the exception itself
      } catch (const FormatError&) {
        ++errors;
      }
    }
    CHECK(errors > static_cast<int>(good.size()) / 2);
  }
}

TEST_CASE("npz ArrayHeader reads only the start of a member") {
  TempDir dir;
  const std::string path = dir / "big.npz";
  const std::vector<float> values = Values<float>(1000000, 11);
  {
    NpzWriter writer(path);
    writer.Add("before", std::vector<int8_t>{1, 2}, {2});
    writer.Add("planes", values, {1000, 10, 100});
    writer.Add("after", std::vector<int8_t>{3}, {1, 1});
    writer.Finish();
  }
  NpzReader reader(path);
  NpyHeader header = reader.ArrayHeader("planes");
  CHECK(header.dtype == "<f4");
  CHECK(header.shape == std::vector<int64_t>{1000, 10, 100});
  CHECK(header.NumElements() == 1000000);
  CHECK(reader.Read<float>("planes") == values);
  CHECK(reader.ArrayHeader("after").shape == std::vector<int64_t>{1, 1});

  // Damage the end of the big member: the header still reads, the array does not.
  std::string bytes = ReadFile(path);
  const size_t after = bytes.find("after.npy");
  for (size_t i = after - 30 - 200; i < after - 30; ++i) bytes[i] = static_cast<char>(~bytes[i]);
  const std::string damaged = dir.Write("damaged.npz", bytes);
  NpzReader damaged_reader(damaged);
  CHECK(damaged_reader.ArrayHeader("planes").shape == std::vector<int64_t>{1000, 10, 100});
  CHECK_THROWS_AS(damaged_reader.ReadArray("planes"), FormatError);
}

TEST_CASE("npz files interoperate with numpy") {
  const std::string python = testing::FindNumpyPython();
  REQUIRE_MESSAGE(!python.empty(),
                  "no python3 with numpy: install python3-numpy (apt-get install python3-numpy, "
                  "as scripts/test.sh does), or set TENGEN_PYTHON to a python3 that has numpy");
  TempDir dir;

  SUBCASE("numpy loads our files") {
    for (int level : {-1, 0}) {
      const std::string path = dir / "ours.npz";
      NpzWriter writer(path, level);
      writer.Add("f", std::vector<float>{0.5f, -1.25f, 3e38f, 0, 1, 2}, {2, 3});
      writer.Add("d", std::vector<double>{1e-300, -2.5}, {2});
      writer.Add("i", std::vector<int32_t>{-2147483647 - 1, 7}, {1, 2});
      writer.Add("l", std::vector<int64_t>{-5, int64_t{1} << 40}, {2});
      writer.Add("u", std::vector<uint8_t>{0, 255, 7}, {3});
      writer.Add("s", std::vector<int16_t>{-300}, {});
      writer.Add("b", std::vector<bool>{true, false, true}, {3, 1});
      writer.Add("e", std::vector<float>{}, {0, 5});
      writer.Add("big", Values<float>(100000, 5), {100, 1000});
      writer.Finish();
      const std::string script = R"(
import sys, numpy as np
z = np.load(sys.argv[1])
assert sorted(z.files) == sorted(['f', 'd', 'i', 'l', 'u', 's', 'b', 'e', 'big']), z.files
def same(name, dtype, shape, values):
    a = z[name]
    assert a.dtype == np.dtype(dtype), (name, a.dtype)
    assert a.shape == shape, (name, a.shape)
    assert np.array_equal(a, np.array(values, dtype=dtype).reshape(shape)), (name, a)
same('f', '<f4', (2, 3), [0.5, -1.25, 3e38, 0, 1, 2])
same('d', '<f8', (2,), [1e-300, -2.5])
same('i', '<i4', (1, 2), [-2**31, 7])
same('l', '<i8', (2,), [-5, 2**40])
same('u', '|u1', (3,), [0, 255, 7])
same('s', '<i2', (), -300)
same('b', '|b1', (3, 1), [True, False, True])
same('e', '<f4', (0, 5), [])
assert z['big'].shape == (100, 1000) and z['big'].dtype == np.float32
assert z['big'][0, 0] == np.finfo(np.float32).max and z['big'][0, 1] == np.finfo(np.float32).min
print('numpy read', len(z.files), 'arrays')
)";
      const ProcessResult result = RunProcess({python, "-c", script, path});
      CHECK_MESSAGE(result.exit_code == 0, result.output);
    }
  }

  SUBCASE("we load numpy's files") {
    const std::string script = R"(
import sys, numpy as np
arrays = dict(
    f=np.arange(12, dtype=np.float32).reshape(3, 4) / 4,
    d=np.array([1e-300, -2.5]),
    i=np.array([[-2**31, 7]], dtype=np.int32),
    u=np.arange(256, dtype=np.uint8),
    b=np.array([True, False, True]),
    s=np.int16(-300),
    e=np.zeros((0, 5), np.float32),
    big=(np.arange(1000000) % 1000).astype(np.float32).reshape(1000, 1000),
    fortran=np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    be=np.array([1, 2], dtype='>i4'))
np.savez_compressed(sys.argv[1], **arrays)
np.savez(sys.argv[2], **arrays)
)";
    const std::string compressed = dir / "compressed.npz", stored = dir / "stored.npz";
    const ProcessResult result = RunProcess({python, "-c", script, compressed, stored});
    REQUIRE_MESSAGE(result.exit_code == 0, result.output);
    for (const std::string& path : {compressed, stored}) {
      CAPTURE(path);
      NpzReader reader(path);
      CHECK(reader.names().size() == 10);
      std::vector<int64_t> shape;
      CHECK(reader.Read<float>("f", &shape) ==
            std::vector<float>{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75});
      CHECK(shape == std::vector<int64_t>{3, 4});
      CHECK(reader.Read<double>("d") == std::vector<double>{1e-300, -2.5});
      CHECK(reader.Read<int32_t>("i") == std::vector<int32_t>{-2147483647 - 1, 7});
      CHECK(reader.Read<uint8_t>("u").size() == 256);
      CHECK(reader.Read<uint8_t>("u")[255] == 255);
      CHECK(reader.Read<bool>("b") == std::vector<bool>{true, false, true});
      CHECK(reader.Read<int16_t>("s", &shape) == std::vector<int16_t>{-300});
      CHECK(shape.empty());
      CHECK(reader.Read<float>("e", &shape).empty());
      CHECK(shape == std::vector<int64_t>{0, 5});
      const NpyHeader big = reader.ArrayHeader("big");
      CHECK(big.dtype == "<f4");
      CHECK(big.shape == std::vector<int64_t>{1000, 1000});
      const std::vector<float> values = reader.Read<float>("big");
      REQUIRE(values.size() == 1000000);
      CHECK(values[999999] == 999);
      CHECK(values[1234] == 234);
      CHECK_THROWS_WITH_AS(reader.ReadArray("fortran"),
                           doctest::Contains("fortran_order True is not supported"), FormatError);
      CHECK_THROWS_WITH_AS(reader.ArrayHeader("be"), doctest::Contains("big-endian"), FormatError);
    }
  }
}

}  // namespace
}  // namespace tengen::data
