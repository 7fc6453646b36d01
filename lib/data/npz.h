#pragma once
// The .npz container of our training data: a ZIP archive of .npy members (data/npy.h), which
// numpy.load opens as a dict of arrays. Written and read with zlib only, so that neither Python
// nor a zip library is needed at run time.
//
// What NpzWriter writes (all integers little-endian; PKWARE APPNOTE 6.3 section 4.3):
//   for each array, in the order added:
//     local file header (30 bytes): signature 0x04034b50, version needed 20, flags 0,
//       method 8 (deflate) or 0 (stored, when compression_level is 0), DOS time and date of
//       the writer's construction (UTC), CRC-32 of the uncompressed member, compressed size,
//       uncompressed size, name length, extra length 0
//     the name "<array name>.npy" (no directory part)
//     the member: a .npy v1.0 file, raw-deflated (zlib windowBits -15) or stored
//   central directory: one 46-byte header per member (signature 0x02014b50, version made by
//     20, the same fields as the local header, no extra or comment, disk 0, attributes 0, the
//     local header's offset) followed by the name
//   end of central directory record (22 bytes): signature 0x06054b50, disks 0, member count
//     twice, central directory size and offset, comment length 0
// No ZIP64: a member, or the whole file, of 4 GiB or more is refused (ConfigError: write fewer
// rows per file), as are more than 65535 members. The file is written under a temporary name
// and published atomically by Finish() (util/publish.h), so readers never see a partial file.
//
// NpzReader reads any such archive, including numpy.savez (stored) and savez_compressed
// (deflate) output, whose local headers carry a ZIP64 extra field for small members. It rejects
// with FormatError, naming the file and the member: a missing or damaged end record or central
// directory, offsets or sizes outside the file, ZIP64 sizes or records, multi-disk archives,
// encrypted members, methods other than 0 and 8, member names not ending in ".npy" or
// repeated, a local header that disagrees with the central directory, inflate errors, CRC-32
// or uncompressed size mismatches, and invalid .npy content. A file that cannot be opened or
// read is an IoError. Corrupt input never crashes, hangs or allocates much more than the file.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "data/npy.h"
#include "util/publish.h"

namespace tengen::data {

// Builds an .npz file member by member; nothing is visible at `path` until Finish().
// Each Add() compresses its array right away, so memory holds one array's compressed copy at
// a time, not the whole file. Destroying an unfinished writer removes its temporary file.
class NpzWriter {
 public:
  // compression_level: zlib level 1 (fast) to 9 (small), -1 for zlib's default (6, what
  // numpy.savez_compressed uses), or 0 to store members uncompressed.
  explicit NpzWriter(const std::string& path, int compression_level = -1);
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;

  // Adds `array` as member "<name>.npy". Throws ConfigError for an empty, repeated or
  // over-long name, or when a member or the file would reach 4 GiB.
  void Add(const std::string& name, const NpyArray& array);
  template <typename T>
  void Add(const std::string& name, const std::vector<T>& values, std::vector<int64_t> shape) {
    Add(name, NpyArray::Of(values, std::move(shape)));
  }
  // Writes the central directory and publishes the file. Nothing may be added afterwards.
  void Finish();

  const std::string& path() const { return path_; }

 private:
  struct Entry {
    std::string file_name;  // "<name>.npy"
    uint16_t method = 0;
    uint32_t crc = 0;
    uint64_t compressed_size = 0;
    uint64_t uncompressed_size = 0;
    uint64_t local_header_offset = 0;
  };
  void Write(const std::string& bytes);

  std::string path_;
  int level_;
  AtomicFile file_;
  uint16_t dos_time_ = 0;
  uint16_t dos_date_ = 0;
  uint64_t offset_ = 0;  // bytes written so far
  std::vector<Entry> entries_;
  std::set<std::string> names_;
  bool finished_ = false;
};

// Reads arrays from an .npz file. The constructor reads and checks the central directory and
// every local header (a few hundred bytes); arrays are read on demand with pread, so a reader
// may be shared by threads. The file stays open until the reader is destroyed.
class NpzReader {
 public:
  // Throws IoError if `path` cannot be opened, FormatError if it is not a valid npz.
  explicit NpzReader(const std::string& path);
  ~NpzReader();
  NpzReader(const NpzReader&) = delete;
  NpzReader& operator=(const NpzReader&) = delete;

  const std::string& path() const { return path_; }
  // Array names (member names without ".npy") in the archive's order.
  std::vector<std::string> names() const;
  bool Has(const std::string& name) const { return Find(name) != nullptr; }

  // The dtype and shape of array `name`, from the first bytes of its member only (a few KiB
  // are inflated, whatever the array's size), checked against the member's uncompressed size.
  NpyHeader ArrayHeader(const std::string& name) const;
  // The whole array, inflated, CRC-checked and parsed.
  NpyArray ReadArray(const std::string& name) const;
  // ReadArray(name).Values<T>(), with errors naming the file and array; `shape` if non-null
  // receives the array's shape.
  template <typename T>
  std::vector<T> Read(const std::string& name, std::vector<int64_t>* shape = nullptr) const {
    NpyArray array = ReadArray(name);
    if (shape != nullptr) *shape = array.shape;
    return array.Values<T>(Where(name));
  }

 private:
  struct Member {
    std::string name;  // without ".npy"
    uint16_t method = 0;
    uint32_t crc = 0;
    uint64_t compressed_size = 0;
    uint64_t uncompressed_size = 0;
    uint64_t data_offset = 0;  // of the compressed bytes, past the local header
  };
  void ReadCentralDirectory();
  // Checks entry i of the central directory at `pos` and adds its member; returns where the next
  // entry starts.
  size_t ReadCentralEntry(const std::string& directory, size_t pos, uint32_t i,
                          uint64_t directory_offset);
  void ReadLocalHeader(Member* member, uint64_t local_offset, const std::string& file_name,
                       uint64_t limit);
  const Member* Find(const std::string& name) const;
  const Member& Get(const std::string& name) const;
  std::string Where(const std::string& name) const;  // "<path>: array '<name>'"
  std::string ReadAt(uint64_t offset, uint64_t size) const;
  std::string Unpack(const Member& member) const;  // the member's .npy bytes, checked

  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  std::vector<Member> members_;
};

}  // namespace tengen::data
