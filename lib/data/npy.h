#pragma once
// The .npy format (numpy's one-array file), version 1.0, which is what each member of our
// .npz training files holds. We write it ourselves so that no Python or numpy is needed at run
// time, and read it back strictly because a training file may be truncated or foreign.
//
// On disk, a .npy is:
//   bytes 0-5   magic "\x93NUMPY"
//   byte  6-7   version: major 1, minor 0 (the reader also accepts 2.0 and 3.0, whose header
//               length is a uint32; numpy writes them only for huge structured dtypes)
//   bytes 8-9   header length H, little-endian uint16
//   bytes 10..  H bytes of ASCII: a Python dict literal, keys in sorted order, e.g.
//                 {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//               padded with spaces and ended by '\n' so that 10 + H is a multiple of 64 (what
//               current numpy writes, so the data is aligned for memory mapping)
//   then        the elements in C (row-major) order, little-endian, with no padding: exactly
//               product(shape) * itemsize bytes. A shape of () is a scalar (one element).
//
// Supported dtypes (descr: C++ type):
//   '|b1': bool (one byte, 0 or 1)   '|u1': uint8_t   '|i1': int8_t
//   '<u2': uint16_t   '<i2': int16_t   '<u4': uint32_t   '<i4': int32_t
//   '<u8': uint64_t   '<i8': int64_t   '<f4': float      '<f8': double
// The reader rejects, with a FormatError, anything else: big-endian or native ('>', '=')
// byte orders, other or structured dtypes, fortran_order True, malformed dicts, and a data size
// other than product(shape) * itemsize. One-byte types written as '<u1' are read as '|u1'.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "util/error.h"
#include "util/text.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "npy data is copied as is: a big-endian host would need byte swapping");

namespace tengen::data {

// The numpy descr string of each supported C++ element type.
template <typename T>
struct NpyDType;
template <>
struct NpyDType<bool> {
  static constexpr const char* kDescr = "|b1";
};
template <>
struct NpyDType<uint8_t> {
  static constexpr const char* kDescr = "|u1";
};
template <>
struct NpyDType<int8_t> {
  static constexpr const char* kDescr = "|i1";
};
template <>
struct NpyDType<uint16_t> {
  static constexpr const char* kDescr = "<u2";
};
template <>
struct NpyDType<int16_t> {
  static constexpr const char* kDescr = "<i2";
};
template <>
struct NpyDType<uint32_t> {
  static constexpr const char* kDescr = "<u4";
};
template <>
struct NpyDType<int32_t> {
  static constexpr const char* kDescr = "<i4";
};
template <>
struct NpyDType<uint64_t> {
  static constexpr const char* kDescr = "<u8";
};
template <>
struct NpyDType<int64_t> {
  static constexpr const char* kDescr = "<i8";
};
template <>
struct NpyDType<float> {
  static constexpr const char* kDescr = "<f4";
};
template <>
struct NpyDType<double> {
  static constexpr const char* kDescr = "<f8";
};

// Bytes per element of a supported descr; throws FormatError (naming `what`) otherwise.
size_t NpyItemSize(const std::string& dtype, const std::string& what);
// product(shape), with a FormatError (naming `what`) on a negative dimension or overflow.
int64_t NpyNumElements(const std::vector<int64_t>& shape, const std::string& what);

// What the header of a .npy says: enough to count rows without reading the data.
struct NpyHeader {
  std::string dtype;           // a supported descr, e.g. "<f4"
  std::vector<int64_t> shape;  // empty for a scalar
  int64_t NumElements() const { return NpyNumElements(shape, "npy header"); }
};

// One array: its dtype, shape and raw little-endian bytes in C order.
struct NpyArray {
  std::string dtype;
  std::vector<int64_t> shape;
  std::string data;

  NpyHeader header() const { return {dtype, shape}; }
  int64_t NumElements() const { return NpyNumElements(shape, "npy array"); }

  // Builds an array from values in C order; values.size() must equal product(shape)
  // (a CheckError otherwise: the caller's bug, not the data's).
  template <typename T>
  static NpyArray Of(const std::vector<T>& values, std::vector<int64_t> shape);
  // The elements as T. Throws FormatError naming `what` (e.g. "file.npz: 'policy'") if the
  // dtype is not T's, or, for bool, if a byte is neither 0 nor 1.
  template <typename T>
  std::vector<T> Values(const std::string& what) const;
};

// The magic, version, header length and padded dict of a v1.0 .npy for `header`.
std::string EncodeNpyHeader(const NpyHeader& header);
// A whole .npy file. Throws CheckError if data.size() does not match dtype and shape.
std::string EncodeNpy(const NpyArray& array);

// A parsed header and where the data starts.
struct NpyPreamble {
  NpyHeader header;
  size_t data_offset = 0;
};
// Parses the header at the start of `bytes`. Returns nullopt when `bytes` is a valid beginning
// that ends before the header does (read more and call again); throws FormatError, naming
// `what`, as soon as what is there cannot start a valid header.
std::optional<NpyPreamble> ParseNpyPreamble(std::string_view bytes, const std::string& what);
// Parses a whole .npy file, checking that the data size matches the header exactly.
NpyArray DecodeNpy(std::string_view bytes, const std::string& what);

namespace internal {
// Throws FormatError naming `what` unless array.dtype is `expected` and the data size matches.
void CheckArrayType(const NpyArray& array, const char* expected, const std::string& what);
void CheckValueCount(size_t count, const std::vector<int64_t>& shape);
}  // namespace internal

template <typename T>
NpyArray NpyArray::Of(const std::vector<T>& values, std::vector<int64_t> shape) {
  static_assert(std::is_arithmetic_v<T>, "npy elements are numbers or bools");
  internal::CheckValueCount(values.size(), shape);
  NpyArray array;
  array.dtype = NpyDType<T>::kDescr;
  array.shape = std::move(shape);
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is packed, so it is copied element by element.
    array.data.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) array.data[i] = values[i] ? 1 : 0;
  } else {
    array.data.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(array.data.data(), values.data(), array.data.size());
  }
  return array;
}

template <typename T>
std::vector<T> NpyArray::Values(const std::string& what) const {
  static_assert(std::is_arithmetic_v<T>, "npy elements are numbers or bools");
  internal::CheckArrayType(*this, NpyDType<T>::kDescr, what);
  std::vector<T> values(data.size() / sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < data.size(); ++i) {
      const unsigned char byte = static_cast<unsigned char>(data[i]);
      if (byte > 1) {
        throw FormatError(
            StrCat(what, ": bool element ", i, " has byte value ", byte, ", not 0 or 1"));
      }
      values[i] = byte == 1;
    }
  } else {
    if (!data.empty()) std::memcpy(values.data(), data.data(), data.size());
  }
  return values;
}

}  // namespace tengen::data
