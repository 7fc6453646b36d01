#include "util/checksum.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

namespace tengen {

std::string Crc32Hex(const std::string& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large inputs in chunks.
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t pos = 0; pos < bytes.size(); pos += kChunk) {
    const size_t len = std::min(kChunk, bytes.size() - pos);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + pos), static_cast<uInt>(len));
  }
  char hex[9];
  std::snprintf(hex, sizeof(hex), "%08lx", static_cast<unsigned long>(crc & 0xffffffffUL));
  return hex;
}

}  // namespace tengen
