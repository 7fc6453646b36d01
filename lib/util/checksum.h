#pragma once
// zlib's CRC-32 of a byte string as 8 lower-case hex digits: model files record it, the
// trainer keys shuffled files by it.

#include <string>

namespace tengen {

std::string Crc32Hex(const std::string& bytes);

}  // namespace tengen
