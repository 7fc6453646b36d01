#include "data/npy.h"
#include "util/text.h"

#include <limits>

namespace tengen::data {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy aligns the data to 64 bytes since 1.x (ARRAY_ALIGN in numpy/lib/format.py).
constexpr size_t kAlignment = 64;
// numpy's NPY_MAXDIMS was 32 for most of its life; more is certainly not ours.
constexpr size_t kMaxDims = 32;
// A real header is under 200 bytes; v2.0 and v3.0 headers could claim up to 4 GiB, and a
// corrupt length must not make the caller wait for that much.
constexpr size_t kMaxHeaderSize = 1 << 20;

struct DTypeInfo {
  const char* descr;
  size_t item_size;
};
constexpr DTypeInfo kDTypes[] = {
    {"|b1", 1}, {"|u1", 1}, {"|i1", 1}, {"<u2", 2}, {"<i2", 2}, {"<u4", 4},
    {"<i4", 4}, {"<u8", 8}, {"<i8", 8}, {"<f4", 4}, {"<f8", 8},
};

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// A recursive-descent parser for the dict literal numpy writes: string keys, string, bool and
// tuple-of-int values. Anything else (nested structures, escapes, expressions) is malformed.
class HeaderDictParser {
 public:
  HeaderDictParser(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  NpyHeader Parse() {
    bool has_descr = false, has_order = false, has_shape = false;
    NpyHeader header;
    SkipSpace();
    Expect('{');
    while (true) {
      SkipSpace();
      if (Peek() == '}') break;
      const std::string key = ParseString();
      SkipSpace();
      Expect(':');
      SkipSpace();
      if (key == "descr") {
        Once(&has_descr, key);
        if (Peek() == '[') Fail("structured dtypes are not supported");
        header.dtype = ParseString();
      } else if (key == "fortran_order") {
        Once(&has_order, key);
        if (ParseBool()) Fail("fortran_order True is not supported (C order only)");
      } else if (key == "shape") {
        Once(&has_shape, key);
        header.shape = ParseShape();
      } else {
        Fail("unknown key " + Quote(key));
      }
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() != '}') Fail("expected ',' or '}'");
    }
    ++pos_;
    SkipSpace();
    if (pos_ != text_.size()) Fail("text after the closing '}'");
    if (!has_descr || !has_order || !has_shape) {
      Fail("missing key (descr, fortran_order and shape are required)");
    }
    header.dtype = NormalizeDType(header.dtype);
    return header;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw FormatError(StrCat(what_, ": malformed npy header at character ", pos_, ": ", why,
                             " in \"", std::string(text_), "\""));
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void Once(bool* seen, const std::string& key) {
    if (*seen) Fail("duplicate key " + Quote(key));
    *seen = true;
  }
  std::string ParseString() {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') Fail("expected a quoted string");
    const size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') Fail("escapes are not supported");
      ++pos_;
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  bool ParseBool() {
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const std::string_view w(word);
      if (text_.substr(pos_, w.size()) == w) {
        pos_ += w.size();
        return value;
      }
    }
    Fail("expected True or False");
  }
  int64_t ParseDim() {
    if (Peek() == '-') Fail("negative dimension");
    if (Peek() < '0' || Peek() > '9') Fail("expected a dimension");
    int64_t value = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) Fail("dimension too large");
      value = value * 10 + (Peek() - '0');
      ++pos_;
    }
    if (Peek() == 'L') ++pos_;  // Python 2's numpy wrote longs as "3L"
    return value;
  }
  // "()", "(5,)", "(2, 3)" or "(2, 3,)"; "(5)" is an int in Python, not a tuple.
  std::vector<int64_t> ParseShape() {
    std::vector<int64_t> shape;
    Expect('(');
    SkipSpace();
    bool trailing_comma = false;
    while (Peek() != ')') {
      shape.push_back(ParseDim());
      if (shape.size() > kMaxDims) Fail(StrCat("more than ", kMaxDims, " dimensions"));
      SkipSpace();
      trailing_comma = Peek() == ',';
      if (trailing_comma) {
        ++pos_;
        SkipSpace();
      } else if (Peek() != ')') {
        Fail("expected ',' or ')' in the shape");
      }
    }
    if (shape.size() == 1 && !trailing_comma) Fail("a one-element shape needs a trailing comma");
    ++pos_;
    return shape;
  }
  std::string NormalizeDType(const std::string& dtype) const {
    std::string d = dtype;
    // Byte order is meaningless for one-byte types; numpy writes '|' but accepts '<' too.
    if (d.size() == 3 && d[2] == '1' && (d[0] == '<' || d[0] == '>' || d[0] == '=')) d[0] = '|';
    if (!d.empty() && (d[0] == '>' || d[0] == '!')) {
      throw FormatError(what_ + ": big-endian dtype " + Quote(dtype) + " is not supported");
    }
    NpyItemSize(d, what_);  // throws for unknown dtypes
    return d;
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

std::string ShapeRepr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

uint32_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t size) {
  uint32_t value = 0;
  for (size_t i = 0; i < size; ++i) {
    value |= uint32_t{static_cast<unsigned char>(bytes[offset + i])} << (8 * i);
  }
  return value;
}

}  // namespace

size_t NpyItemSize(const std::string& dtype, const std::string& what) {
  for (const DTypeInfo& info : kDTypes) {
    if (dtype == info.descr) return info.item_size;
  }
  throw FormatError(what + ": unsupported dtype " + Quote(dtype) +
                    " (supported: |b1 |u1 |i1 <u2 <i2 <u4 <i4 <u8 <i8 <f4 <f8)");
}

int64_t NpyNumElements(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) throw FormatError(what + ": negative dimension in shape " + ShapeRepr(shape));
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim) {
      throw FormatError(what + ": shape " + ShapeRepr(shape) + " has too many elements");
    }
    count *= dim;
  }
  return count;
}

namespace internal {

void CheckArrayType(const NpyArray& array, const char* expected, const std::string& what) {
  if (array.dtype != expected) {
    throw FormatError(what + ": dtype " + Quote(array.dtype) + " where " + Quote(expected) +
                      " was expected");
  }
  const int64_t count = NpyNumElements(array.shape, what);
  if (static_cast<uint64_t>(count) * NpyItemSize(array.dtype, what) != array.data.size()) {
    throw FormatError(StrCat(what, ": ", array.data.size(), " data bytes do not match shape ",
                             ShapeRepr(array.shape)));
  }
}

void CheckValueCount(size_t count, const std::vector<int64_t>& shape) {
  const int64_t expected = NpyNumElements(shape, "NpyArray::Of");
  TENGEN_CHECK(static_cast<uint64_t>(expected) == count,
               StrCat(count, " values for shape ", ShapeRepr(shape)));
}

}  // namespace internal

std::string EncodeNpyHeader(const NpyHeader& header) {
  NpyItemSize(header.dtype, "EncodeNpyHeader");
  TENGEN_CHECK(header.shape.size() <= kMaxDims, "too many dimensions");
  std::string dict = "{'descr': '" + header.dtype +
                     "', 'fortran_order': False, 'shape': " + ShapeRepr(header.shape) + ", }";
  const size_t unpadded = kMagicSize + 2 + 2 + dict.size() + 1;  // + 1 for the '\n'
  dict.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  dict += '\n';
  TENGEN_CHECK(dict.size() <= 0xFFFF, "npy header too long");
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

std::string EncodeNpy(const NpyArray& array) {
  const uint64_t count = static_cast<uint64_t>(array.NumElements());
  TENGEN_CHECK(count * NpyItemSize(array.dtype, "EncodeNpy") == array.data.size(),
               StrCat(array.data.size(), " data bytes for dtype ", array.dtype, " and shape ",
                      ShapeRepr(array.shape)));
  return EncodeNpyHeader(array.header()) + array.data;
}

std::optional<NpyPreamble> ParseNpyPreamble(std::string_view bytes, const std::string& what) {
  const size_t magic_seen = std::min(bytes.size(), kMagicSize);
  if (bytes.substr(0, magic_seen) != std::string_view(kMagic, magic_seen)) {
    throw FormatError(what + ": not an npy file (bad magic)");
  }
  if (bytes.size() < kMagicSize + 2) return std::nullopt;
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    throw FormatError(StrCat(what, ": unsupported npy version ", major, ".", minor));
  }
  const size_t length_size = major == 1 ? 2 : 4;
  const size_t dict_start = kMagicSize + 2 + length_size;
  if (bytes.size() < dict_start) return std::nullopt;
  const size_t dict_size = ReadLittleEndian(bytes, kMagicSize + 2, length_size);
  if (dict_size > kMaxHeaderSize) {
    throw FormatError(StrCat(what, ": npy header length ", dict_size, " is implausible"));
  }
  if (bytes.size() < dict_start + dict_size) return std::nullopt;
  const std::string_view dict = bytes.substr(dict_start, dict_size);
  for (char c : dict) {
    if (static_cast<unsigned char>(c) >= 0x80 || c == '\0') {
      throw FormatError(what + ": npy header is not ASCII text");
    }
  }
  NpyPreamble preamble;
  preamble.header = HeaderDictParser(dict, what).Parse();
  NpyNumElements(preamble.header.shape, what);  // rejects overflowing shapes early
  preamble.data_offset = dict_start + dict_size;
  return preamble;
}

NpyArray DecodeNpy(std::string_view bytes, const std::string& what) {
  const std::optional<NpyPreamble> preamble = ParseNpyPreamble(bytes, what);
  if (!preamble) {
    throw FormatError(StrCat(what, ": truncated npy header (", bytes.size(), " bytes)"));
  }
  NpyArray array;
  array.dtype = preamble->header.dtype;
  array.shape = preamble->header.shape;
  const uint64_t count = static_cast<uint64_t>(NpyNumElements(array.shape, what));
  const uint64_t item_size = NpyItemSize(array.dtype, what);
  const uint64_t data_size = bytes.size() - preamble->data_offset;
  if (count > std::numeric_limits<uint64_t>::max() / item_size || count * item_size != data_size) {
    throw FormatError(StrCat(what, ": npy data is ", data_size, " bytes but dtype ",
                             Quote(array.dtype), " and shape ", ShapeRepr(array.shape), " need ",
                             count, " * ", item_size));
  }
  array.data.assign(bytes.substr(preamble->data_offset));
  return array;
}

}  // namespace tengen::data
