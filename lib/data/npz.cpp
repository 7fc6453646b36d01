#include "data/npz.h"

#define ZLIB_CONST
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <optional>

#include "util/text.h"

namespace tengen::data {
namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndRecordSignature = 0x06054b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kMaxCommentSize = 0xFFFF;
// Sizes and offsets are 32-bit without ZIP64, and 0xFFFFFFFF itself means "see ZIP64".
constexpr uint64_t kZipLimit = 0xFFFFFFFF;
constexpr size_t kMaxMembers = 0xFFFF;
constexpr uint16_t kVersion = 20;  // 2.0: deflate, no ZIP64
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;
// Deflate cannot do better than about 1032:1, so a member claiming more is corrupt; checking it
// keeps a damaged size field from making us allocate gigabytes for a small file.
constexpr uint64_t kMaxDeflateRatio = 1100;
// How much compressed input ArrayHeader() reads at a time.
constexpr size_t kHeaderChunk = 4096;
// zlib's stream lengths are 32-bit, so large buffers are fed in pieces.
constexpr size_t kZlibChunk = size_t{1} << 30;

void Put16(std::string* out, uint32_t value) {
  out->push_back(static_cast<char>(value & 0xFF));
  out->push_back(static_cast<char>((value >> 8) & 0xFF));
}
void Put32(std::string* out, uint64_t value) {
  Put16(out, static_cast<uint32_t>(value & 0xFFFF));
  Put16(out, static_cast<uint32_t>((value >> 16) & 0xFFFF));
}
uint32_t Get16(const std::string& bytes, size_t offset) {
  return uint32_t{static_cast<unsigned char>(bytes[offset])} |
         uint32_t{static_cast<unsigned char>(bytes[offset + 1])} << 8;
}
uint32_t Get32(const std::string& bytes, size_t offset) {
  return Get16(bytes, offset) | Get16(bytes, offset + 2) << 16;
}

std::string Hex(uint32_t value) {
  char buffer[11];
  std::snprintf(buffer, sizeof(buffer), "0x%08x", value);
  return buffer;
}

uint32_t Crc32(uint32_t crc, const std::string& bytes) {
  return static_cast<uint32_t>(
      crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

// Raw-deflates header + data (one stream) at `level`.
std::string Deflate(const std::string& header, const std::string& data, int level,
                    const std::string& what) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw ConfigError(StrCat(what, ": zlib rejected compression level ", level));
  }
  std::string out(deflateBound(&zs, header.size() + data.size()), '\0');
  size_t produced = 0;
  auto pump = [&](const char* in, size_t size, int flush) {
    zs.next_in = reinterpret_cast<const Bytef*>(in);
    zs.avail_in = static_cast<uInt>(size);
    while (true) {
      if (out.size() - produced < 4096) out.resize(out.size() * 2 + 4096);
      zs.next_out = reinterpret_cast<Bytef*>(&out[produced]);
      zs.avail_out = static_cast<uInt>(std::min(out.size() - produced, kZlibChunk));
      const uInt room = zs.avail_out;
      const int rc = deflate(&zs, flush);
      produced += room - zs.avail_out;
      if (rc == Z_STREAM_END) return;
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        deflateEnd(&zs);
        throw CheckError(StrCat(what, ": deflate failed with code ", rc));
      }
      if (flush != Z_FINISH && zs.avail_in == 0) return;
    }
  };
  for (const std::string* piece : {&header, &data}) {
    for (size_t pos = 0; pos < piece->size(); pos += kZlibChunk) {
      pump(piece->data() + pos, std::min(kZlibChunk, piece->size() - pos), Z_NO_FLUSH);
    }
  }
  pump(nullptr, 0, Z_FINISH);
  deflateEnd(&zs);
  out.resize(produced);
  return out;
}

// Owns a z_stream set up for raw inflate.
class Inflater {
 public:
  explicit Inflater(const std::string& what) {
    if (inflateInit2(&zs_, -MAX_WBITS) != Z_OK) throw FormatError(what + ": inflateInit failed");
  }
  ~Inflater() { inflateEnd(&zs_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream* get() { return &zs_; }

 private:
  z_stream zs_{};
};

std::string InflateError(const z_stream& zs, int rc) {
  return "corrupt deflate data (" + std::string(zs.msg != nullptr ? zs.msg : zError(rc)) + ")";
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// NpzWriter

NpzWriter::NpzWriter(const std::string& path, int compression_level)
    : path_(path), level_(compression_level), file_(path) {
  if (level_ < -1 || level_ > 9) {
    throw ConfigError(StrCat(path, ": compression level ", level_, " is not in -1..9"));
  }
  // DOS timestamps count from 1980 with two-second resolution; UTC keeps them host-independent.
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  const int year = std::max(utc.tm_year + 1900, 1980);
  dos_date_ = static_cast<uint16_t>((year - 1980) << 9 | (utc.tm_mon + 1) << 5 | utc.tm_mday);
  dos_time_ = static_cast<uint16_t>(utc.tm_hour << 11 | utc.tm_min << 5 | utc.tm_sec / 2);
}

void NpzWriter::Write(const std::string& bytes) {
  file_.Write(bytes);
  offset_ += bytes.size();
}

void NpzWriter::Add(const std::string& name, const NpyArray& array) {
  TENGEN_CHECK(!finished_, path_ + ": Add('" + name + "') after Finish()");
  const std::string file_name = name + ".npy";
  const std::string what = path_ + ": member '" + file_name + "'";
  if (name.empty() || name.find('/') != std::string::npos || name.find('\0') != std::string::npos ||
      file_name.size() > 0xFFFF) {
    throw ConfigError(path_ + ": invalid array name '" + name + "'");
  }
  if (!names_.insert(name).second) throw ConfigError(what + " added twice");
  if (entries_.size() >= kMaxMembers) throw ConfigError(what + ": more than 65535 members");
  const uint64_t count = static_cast<uint64_t>(array.NumElements());
  TENGEN_CHECK(count * NpyItemSize(array.dtype, what) == array.data.size(),
               what + ": data size does not match dtype and shape");

  const std::string header = EncodeNpyHeader(array.header());
  Entry entry;
  entry.file_name = file_name;
  entry.local_header_offset = offset_;
  entry.uncompressed_size = header.size() + array.data.size();
  if (entry.uncompressed_size >= kZipLimit) {
    throw ConfigError(StrCat(what, " is ", entry.uncompressed_size,
                             " bytes; members of 4 GiB or more need ZIP64, which we do not write"));
  }
  entry.crc = Crc32(Crc32(0, header), array.data);
  std::string compressed;
  if (level_ == 0) {
    entry.method = kMethodStored;
    entry.compressed_size = entry.uncompressed_size;
  } else {
    entry.method = kMethodDeflate;
    compressed = Deflate(header, array.data, level_, what);
    entry.compressed_size = compressed.size();
  }
  const uint64_t end = offset_ + kLocalHeaderSize + file_name.size() + entry.compressed_size;
  if (entry.compressed_size >= kZipLimit || end >= kZipLimit) {
    throw ConfigError(what +
                      ": the file would reach 4 GiB, which needs ZIP64; write fewer rows "
                      "per file");
  }

  std::string local;
  Put32(&local, kLocalHeaderSignature);
  Put16(&local, kVersion);
  Put16(&local, 0);  // flags: sizes and CRC are in this header, no data descriptor
  Put16(&local, entry.method);
  Put16(&local, dos_time_);
  Put16(&local, dos_date_);
  Put32(&local, entry.crc);
  Put32(&local, entry.compressed_size);
  Put32(&local, entry.uncompressed_size);
  Put16(&local, static_cast<uint32_t>(file_name.size()));
  Put16(&local, 0);  // extra field length
  Write(local + file_name);
  if (entry.method == kMethodStored) {
    Write(header);
    Write(array.data);
  } else {
    Write(compressed);
  }
  entries_.push_back(std::move(entry));
}

void NpzWriter::Finish() {
  TENGEN_CHECK(!finished_, path_ + ": Finish() called twice");
  const uint64_t directory_offset = offset_;
  std::string directory;
  for (const Entry& entry : entries_) {
    Put32(&directory, kCentralHeaderSignature);
    Put16(&directory, kVersion);  // made by: MS-DOS attributes (none), spec version 2.0
    Put16(&directory, kVersion);  // needed to extract
    Put16(&directory, 0);         // flags
    Put16(&directory, entry.method);
    Put16(&directory, dos_time_);
    Put16(&directory, dos_date_);
    Put32(&directory, entry.crc);
    Put32(&directory, entry.compressed_size);
    Put32(&directory, entry.uncompressed_size);
    Put16(&directory, static_cast<uint32_t>(entry.file_name.size()));
    Put16(&directory, 0);  // extra length
    Put16(&directory, 0);  // comment length
    Put16(&directory, 0);  // disk number start
    Put16(&directory, 0);  // internal attributes
    Put32(&directory, 0);  // external attributes
    Put32(&directory, entry.local_header_offset);
    directory += entry.file_name;
  }
  if (directory_offset + directory.size() + kEndRecordSize >= kZipLimit) {
    throw ConfigError(path_ +
                      ": the file would reach 4 GiB, which needs ZIP64; write fewer "
                      "rows per file");
  }
  std::string end;
  Put32(&end, kEndRecordSignature);
  Put16(&end, 0);  // this disk
  Put16(&end, 0);  // disk with the central directory
  Put16(&end, static_cast<uint32_t>(entries_.size()));
  Put16(&end, static_cast<uint32_t>(entries_.size()));
  Put32(&end, directory.size());
  Put32(&end, directory_offset);
  Put16(&end, 0);  // comment length
  Write(directory + end);
  file_.Commit();
  finished_ = true;
}

// ----------------------------------------------------------------------------------------------
// NpzReader

NpzReader::NpzReader(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError(path + ": cannot open: " + std::strerror(errno));
  try {
    struct stat st {};
    if (fstat(fd_, &st) != 0) throw IoError(path + ": cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw IoError(path + ": not a regular file");
    file_size_ = static_cast<uint64_t>(st.st_size);
    ReadCentralDirectory();
  } catch (...) {
    close(fd_);
    throw;
  }
}

NpzReader::~NpzReader() { close(fd_); }

std::string NpzReader::ReadAt(uint64_t offset, uint64_t size) const {
  std::string bytes(size, '\0');
  uint64_t done = 0;
  while (done < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(size - done, kZlibChunk));
    const ssize_t got = pread(fd_, &bytes[done], want, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw IoError(StrCat(path_, ": cannot read ", size, " bytes at offset ", offset, ": ",
                           std::strerror(errno)));
    }
    if (got == 0) {
      throw FormatError(StrCat(path_, ": file ends at ", offset + done, " bytes, before the ", size,
                               " bytes at offset ", offset, " (truncated while being read?)"));
    }
    done += static_cast<uint64_t>(got);
  }
  return bytes;
}

namespace {

// Where the zip end of central directory record starts in `tail`, the file's last bytes: the
// last signature whose comment fits in the file. FormatError when there is none.
size_t FindEndRecord(const std::string& tail, const std::string& path) {
  const size_t tail_size = tail.size();
  std::optional<size_t> found;
  for (size_t i = tail_size - kEndRecordSize + 1; i-- > 0;) {
    if (Get32(tail, i) == kEndRecordSignature &&
        i + kEndRecordSize + Get16(tail, i + 20) <= tail_size) {
      found = i;
      break;
    }
  }
  if (!found) {
    throw FormatError(path +
                      ": not an npz file: no zip end of central directory record "
                      "(a foreign or truncated file)");
  }
  return *found;
}

}  // namespace

size_t NpzReader::ReadCentralEntry(const std::string& directory, size_t pos, uint32_t i,
                                   uint64_t directory_offset) {
  const std::string where = StrCat(path_, ": central directory entry ", i);
  if (pos + kCentralHeaderSize > directory.size() ||
      Get32(directory, pos) != kCentralHeaderSignature) {
    throw FormatError(where + ": bad signature or truncated");
  }
  const uint32_t flags = Get16(directory, pos + 8);
  const size_t name_size = Get16(directory, pos + 28);
  const size_t variable_size = name_size + Get16(directory, pos + 30) + Get16(directory, pos + 32);
  if (pos + kCentralHeaderSize + variable_size > directory.size()) {
    throw FormatError(where + ": runs past the end of the central directory");
  }
  const std::string file_name = directory.substr(pos + kCentralHeaderSize, name_size);
  const std::string what = path_ + ": member '" + file_name + "'";
  Member member;
  member.method = static_cast<uint16_t>(Get16(directory, pos + 10));
  member.crc = Get32(directory, pos + 16);
  member.compressed_size = Get32(directory, pos + 20);
  member.uncompressed_size = Get32(directory, pos + 24);
  const uint32_t start_disk = Get16(directory, pos + 34);
  const uint64_t local_offset = Get32(directory, pos + 42);
  pos += kCentralHeaderSize + variable_size;

  if ((flags & 0x0001) != 0 || (flags & 0x0040) != 0 || (flags & 0x2000) != 0) {
    throw FormatError(what + " is encrypted");
  }
  if (member.method != kMethodStored && member.method != kMethodDeflate) {
    throw FormatError(StrCat(what, ": unsupported compression method ", member.method,
                             " (only stored and deflate)"));
  }
  if (member.compressed_size == kZipLimit || member.uncompressed_size == kZipLimit ||
      local_offset == kZipLimit) {
    throw FormatError(what + ": ZIP64 sizes are not supported");
  }
  if (start_disk != 0) throw FormatError(what + ": multi-disk archives are not supported");
  if (file_name.size() <= 4 || file_name.compare(file_name.size() - 4, 4, ".npy") != 0) {
    throw FormatError(what + ": not an array (the name does not end in .npy)");
  }
  member.name = file_name.substr(0, file_name.size() - 4);
  if (Find(member.name) != nullptr) throw FormatError(what + " appears twice");
  const bool plausible =
      member.method == kMethodStored
          ? member.compressed_size == member.uncompressed_size
          : member.uncompressed_size <= member.compressed_size * kMaxDeflateRatio + 1024;
  if (!plausible) {
    throw FormatError(StrCat(what, ": implausible sizes (", member.compressed_size, " compressed, ",
                             member.uncompressed_size, " uncompressed, method ", member.method,
                             ")"));
  }
  ReadLocalHeader(&member, local_offset, file_name, directory_offset);
  members_.push_back(std::move(member));
  return pos;
}

void NpzReader::ReadCentralDirectory() {
  if (file_size_ < kEndRecordSize) {
    throw FormatError(
        StrCat(path_, ": not an npz file: ", file_size_, " bytes is too short for a zip archive"));
  }
  // The end record is the last 22 bytes unless a comment follows it, so search backwards over
  // at most the longest comment for a signature whose comment fits in the file.
  const uint64_t tail_size = std::min<uint64_t>(file_size_, kEndRecordSize + kMaxCommentSize);
  const uint64_t tail_offset = file_size_ - tail_size;
  const std::string tail = ReadAt(tail_offset, tail_size);
  const size_t e = FindEndRecord(tail, path_);
  const uint64_t end_offset = tail_offset + e;
  const uint32_t disk = Get16(tail, e + 4), directory_disk = Get16(tail, e + 6);
  const uint32_t disk_entries = Get16(tail, e + 8), entries = Get16(tail, e + 10);
  const uint64_t directory_size = Get32(tail, e + 12), directory_offset = Get32(tail, e + 16);
  if (entries == 0xFFFF || directory_size == kZipLimit || directory_offset == kZipLimit ||
      (e >= kZip64LocatorSize && Get32(tail, e - kZip64LocatorSize) == kZip64LocatorSignature)) {
    throw FormatError(path_ + ": ZIP64 archives are not supported");
  }
  if (disk != 0 || directory_disk != 0 || disk_entries != entries) {
    throw FormatError(path_ + ": multi-disk zip archives are not supported");
  }
  if (directory_offset + directory_size > end_offset ||
      uint64_t{entries} * kCentralHeaderSize > directory_size) {
    throw FormatError(StrCat(path_, ": central directory (", entries, " entries, ", directory_size,
                             " bytes at offset ", directory_offset,
                             ") does not fit before the end record at offset ", end_offset));
  }
  const std::string directory = ReadAt(directory_offset, directory_size);
  size_t pos = 0;
  for (uint32_t i = 0; i < entries; ++i) {
    pos = ReadCentralEntry(directory, pos, i, directory_offset);
  }
  if (pos != directory.size()) {
    throw FormatError(StrCat(path_, ": central directory has ", directory.size() - pos,
                             " bytes after its ", entries, " entries"));
  }
}

void NpzReader::ReadLocalHeader(Member* member, uint64_t local_offset, const std::string& file_name,
                                uint64_t limit) {
  const std::string what = path_ + ": member '" + file_name + "'";
  if (local_offset + kLocalHeaderSize > limit) {
    throw FormatError(
        StrCat(what, ": local header offset ", local_offset, " is outside the data area"));
  }
  const std::string local = ReadAt(local_offset, kLocalHeaderSize);
  if (Get32(local, 0) != kLocalHeaderSignature) {
    throw FormatError(StrCat(what, ": bad local header signature at offset ", local_offset));
  }
  const uint32_t flags = Get16(local, 6);
  const uint64_t name_size = Get16(local, 26), extra_size = Get16(local, 28);
  member->data_offset = local_offset + kLocalHeaderSize + name_size + extra_size;
  if (member->data_offset + member->compressed_size > limit) {
    throw FormatError(StrCat(what, ": data (", member->compressed_size, " bytes at offset ",
                             member->data_offset, ") runs past the data area, which ends at ",
                             limit));
  }
  if (Get16(local, 8) != member->method || (flags & 0x0001) != 0 ||
      ReadAt(local_offset + kLocalHeaderSize, name_size) != file_name) {
    throw FormatError(what + ": local header disagrees with the central directory");
  }
  // Without a data descriptor (flag bit 3) the local header repeats CRC and sizes; numpy's
  // ZIP64 local headers put 0xFFFFFFFF in the size fields only for members over 4 GiB.
  if ((flags & 0x0008) == 0) {
    const uint64_t compressed = Get32(local, 18), uncompressed = Get32(local, 22);
    if (Get32(local, 14) != member->crc ||
        (compressed != kZipLimit && compressed != member->compressed_size) ||
        (uncompressed != kZipLimit && uncompressed != member->uncompressed_size)) {
      throw FormatError(what + ": local header CRC or sizes disagree with the central directory");
    }
  }
}

const NpzReader::Member* NpzReader::Find(const std::string& name) const {
  for (const Member& member : members_) {
    if (member.name == name) return &member;
  }
  return nullptr;
}

const NpzReader::Member& NpzReader::Get(const std::string& name) const {
  const Member* member = Find(name);
  if (member == nullptr) throw FormatError(Where(name) + ": no such array in the file");
  return *member;
}

std::string NpzReader::Where(const std::string& name) const {
  return path_ + ": array '" + name + "'";
}

std::vector<std::string> NpzReader::names() const {
  std::vector<std::string> names;
  for (const Member& member : members_) names.push_back(member.name);
  return names;
}

std::string NpzReader::Unpack(const Member& member) const {
  const std::string what = Where(member.name);
  std::string compressed = ReadAt(member.data_offset, member.compressed_size);
  std::string out;
  if (member.method == kMethodStored) {
    out = std::move(compressed);
  } else {
    out.assign(member.uncompressed_size, '\0');
    Inflater inflater(what);
    z_stream* zs = inflater.get();
    // Sizes are below 4 GiB (checked when the directory was read), so they fit zlib's uInt.
    zs->next_in = reinterpret_cast<const Bytef*>(compressed.data());
    zs->avail_in = static_cast<uInt>(compressed.size());
    zs->next_out = reinterpret_cast<Bytef*>(out.data());
    zs->avail_out = static_cast<uInt>(out.size());
    int rc;
    // Every Z_OK made progress over bounded buffers, so this loop ends.
    while ((rc = inflate(zs, Z_FINISH)) == Z_OK) {
    }
    if (rc == Z_BUF_ERROR && zs->avail_out == 0) {
      throw FormatError(StrCat(what, ": inflates to more than the recorded ",
                               member.uncompressed_size, " bytes"));
    }
    if (rc == Z_BUF_ERROR) {
      throw FormatError(StrCat(what, ": compressed data ends early (inflated ", zs->total_out,
                               " of ", member.uncompressed_size, " bytes)"));
    }
    if (rc != Z_STREAM_END) throw FormatError(what + ": " + InflateError(*zs, rc));
    if (zs->avail_out != 0 || zs->avail_in != 0) {
      throw FormatError(StrCat(what, ": inflated ", zs->total_out, " bytes from ", zs->total_in,
                               ", but the directory records ", member.uncompressed_size, " from ",
                               member.compressed_size));
    }
  }
  const uint32_t crc = Crc32(0, out);
  if (crc != member.crc) {
    throw FormatError(what + ": CRC-32 mismatch (computed " + Hex(crc) + ", recorded " +
                      Hex(member.crc) + ")");
  }
  return out;
}

NpyArray NpzReader::ReadArray(const std::string& name) const {
  const Member& member = Get(name);
  return DecodeNpy(Unpack(member), Where(name));
}

NpyHeader NpzReader::ArrayHeader(const std::string& name) const {
  const Member& member = Get(name);
  const std::string what = Where(name);
  std::optional<NpyPreamble> preamble;
  std::string out;  // the member's first bytes, uncompressed
  uint64_t read = 0;
  std::string chunk;
  if (member.method == kMethodStored) {
    while (!preamble && read < member.compressed_size) {
      const uint64_t size = std::min<uint64_t>(kHeaderChunk, member.compressed_size - read);
      out += ReadAt(member.data_offset + read, size);
      read += size;
      preamble = ParseNpyPreamble(out, what);
    }
  } else {
    Inflater inflater(what);
    z_stream* zs = inflater.get();
    while (!preamble && out.size() < member.uncompressed_size) {
      if (zs->avail_in == 0 && read < member.compressed_size) {
        const uint64_t size = std::min<uint64_t>(kHeaderChunk, member.compressed_size - read);
        chunk = ReadAt(member.data_offset + read, size);
        read += size;
        zs->next_in = reinterpret_cast<const Bytef*>(chunk.data());
        zs->avail_in = static_cast<uInt>(chunk.size());
      }
      const size_t before = out.size();
      const size_t room =
          static_cast<size_t>(std::min<uint64_t>(kHeaderChunk, member.uncompressed_size - before));
      out.resize(before + room);
      zs->next_out = reinterpret_cast<Bytef*>(&out[before]);
      zs->avail_out = static_cast<uInt>(room);
      const int rc = inflate(zs, Z_NO_FLUSH);
      out.resize(before + room - zs->avail_out);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        throw FormatError(what + ": " + InflateError(*zs, rc));
      }
      preamble = ParseNpyPreamble(out, what);
      if (preamble) break;
      if (rc == Z_STREAM_END) break;  // ends inside the header: reported below
      if (rc == Z_BUF_ERROR && (zs->avail_in != 0 || read == member.compressed_size)) {
        throw FormatError(what + ": compressed data ends inside the npy header");
      }
    }
  }
  if (!preamble) {
    throw FormatError(
        StrCat(what, ": member (", member.uncompressed_size, " bytes) ends inside the npy header"));
  }
  const uint64_t count = static_cast<uint64_t>(preamble->header.NumElements());
  const uint64_t item_size = NpyItemSize(preamble->header.dtype, what);
  const uint64_t data_size = member.uncompressed_size -
                             std::min<uint64_t>(preamble->data_offset, member.uncompressed_size);
  if (preamble->data_offset > member.uncompressed_size ||
      count > std::numeric_limits<uint64_t>::max() / item_size || count * item_size != data_size) {
    throw FormatError(StrCat(what, ": the member holds ", data_size,
                             " data bytes, not what dtype '", preamble->header.dtype,
                             "' and its shape need"));
  }
  return preamble->header;
}

}  // namespace tengen::data
