#include "go/sgf.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <locale>
#include <sstream>

#include "go/sgf_parser.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::go {
namespace {

// Root properties that RecordFromNodes turns into record fields and WriteSgf writes itself;
// every other root property travels in extra_properties.
bool IsStandardProperty(const std::string& id) {
  static constexpr const char* kStandard[] = {"FF", "GM", "SZ", "KM", "RU", "PB", "PW", "RE",
                                              "DT", "AB", "AW", "AE", "PL", "C",  "B",  "W"};
  for (const char* s : kStandard) {
    if (id == s) return true;
  }
  return false;
}

// Text as an SGF value: ']' and '\' escaped, line breaks as spaces so a game stays on one line.
std::string EscapeText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ']' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\r') {
      // "\r\n" becomes one space, like a lone '\r' or '\n'.
      if (i + 1 >= text.size() || text[i + 1] != '\n') out += ' ';
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

double ParseDouble(const std::string& text, bool* ok) {
  std::istringstream in(Trim(text));
  in.imbue(std::locale::classic());
  double value = 0;
  in >> value;
  *ok = !in.fail() && (in >> std::ws).eof() && std::isfinite(value);
  return value;
}

// The shortest fixed-point decimal that reads back as exactly `value` (7.5, 6, -0.5), so that
// komi survives a round trip without printing 7.5000000000000000.
std::string ShortestDecimal(double value) {
  for (int precision = 0; precision <= 17; ++precision) {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out << std::fixed << std::setprecision(precision) << value;
    bool ok = false;
    if (ParseDouble(out.str(), &ok) == value && ok) return out.str();
  }
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::setprecision(17) << value;
  return out.str();
}

bool ParseInt(const std::string& text, int* value) {
  const std::string t = Trim(text);
  if (t.empty() || t.size() > 6) return false;
  int v = 0;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

// SZ[n] or the square form SZ[n:n]; non-square boards are not supported.
int ParseSize(const std::string& text) {
  const std::string bad = "SZ[" + text + "]: ";
  int columns = 0;
  int rows = 0;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    if (!ParseInt(text, &columns)) throw FormatError(bad + "not a board size");
    rows = columns;
  } else if (!ParseInt(text.substr(0, colon), &columns) ||
             !ParseInt(text.substr(colon + 1), &rows)) {
    throw FormatError(bad + "not a board size");
  }
  if (columns != rows) throw FormatError(bad + "non-square boards are not supported");
  if (columns < kMinSize || columns > kMaxSize) {
    throw FormatError(StrCat(bad, "board size must be between ", kMinSize, " and ", kMaxSize));
  }
  return columns;
}

// Two lowercase letters, 'a' + x then 'a' + y with y = 0 the top row.
bool ParsePoint(const std::string& text, int size, int* x, int* y) {
  if (text.size() != 2 || !IsLower(text[0]) || !IsLower(text[1])) return false;
  *x = text[0] - 'a';
  *y = text[1] - 'a';
  return *x < size && *y < size;
}

std::string PointText(Loc loc, int size) {
  const int x = LocX(loc, size);
  const int y = LocY(loc, size);
  TENGEN_CHECK(x >= 0 && x < size && y >= 0 && y < size,
               StrCat("location ", loc, " is not on a ", size, "x", size, " board"));
  return std::string(1, static_cast<char>('a' + x)) + static_cast<char>('a' + y);
}

// The points of one AB/AW/AE value: a point, or a rectangle "aa:cc" (compressed point list),
// row by row from the top.
std::vector<Loc> ParsePointList(const std::string& id, const std::string& text, int size) {
  const std::string bad =
      StrCat(id, "[", text, "]: not a point or rectangle on the ", size, "x", size, " board");
  const size_t colon = text.find(':');
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  if (colon == std::string::npos) {
    if (!ParsePoint(text, size, &x0, &y0)) throw FormatError(bad);
    x1 = x0;
    y1 = y0;
  } else if (!ParsePoint(text.substr(0, colon), size, &x0, &y0) ||
             !ParsePoint(text.substr(colon + 1), size, &x1, &y1)) {
    throw FormatError(bad);
  }
  std::vector<Loc> points;
  for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y) {
    for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x) {
      points.push_back(MakeLoc(x, y, size));
    }
  }
  return points;
}

void Erase(std::vector<Loc>* locs, Loc loc) {
  locs->erase(std::remove(locs->begin(), locs->end(), loc), locs->end());
}

void AppendComment(std::string* to, const std::string& comment) {
  if (comment.empty()) return;
  if (!to->empty()) *to += '\n';
  *to += comment;
}

// Applies AE, AB, AW of one node to the setup lists, keeping first-seen order so that a
// written record reads back with its lists unchanged.
void ApplySetup(const SgfNode& node, int size, SgfRecord* record) {
  if (const auto* values = node.Find("AE")) {
    for (const std::string& v : *values) {
      for (Loc loc : ParsePointList("AE", v, size)) {
        Erase(&record->setup_black, loc);
        Erase(&record->setup_white, loc);
      }
    }
  }
  for (const Color color : {Color::kBlack, Color::kWhite}) {
    const std::string id = color == Color::kBlack ? "AB" : "AW";
    const auto* values = node.Find(id);
    if (values == nullptr) continue;
    std::vector<Loc>& own = color == Color::kBlack ? record->setup_black : record->setup_white;
    std::vector<Loc>& other = color == Color::kBlack ? record->setup_white : record->setup_black;
    for (const std::string& v : *values) {
      for (Loc loc : ParsePointList(id, v, size)) {
        Erase(&own, loc);
        Erase(&other, loc);
        own.push_back(loc);
      }
    }
  }
}

// Game i of a collection converted: its record, or the error naming its number and line.
SgfGame ConvertGame(const std::vector<ParsedGame>& games, size_t i) {
  SgfGame game;
  try {
    game.record = RecordFromNodes(games[i].main_line);
  } catch (const FormatError& e) {
    game.error = StrCat("SGF game ", i + 1, " (line ", games[i].line, "): ", e.what());
  }
  return game;
}

std::vector<SgfRecord> RecordsFromGames(const std::vector<ParsedGame>& games) {
  std::vector<SgfRecord> records;
  records.reserve(games.size());
  for (size_t i = 0; i < games.size(); ++i) {
    SgfGame game = ConvertGame(games, i);
    if (!game.error.empty()) throw FormatError(game.error);
    records.push_back(std::move(game.record));
  }
  return records;
}

}  // namespace

const std::vector<std::string>* SgfNode::Find(const std::string& id) const {
  for (const auto& property : properties) {
    if (property.first == id) return &property.second;
  }
  return nullptr;
}

std::string SgfNode::Get(const std::string& id, const std::string& fallback) const {
  const std::vector<std::string>* values = Find(id);
  return values == nullptr || values->empty() ? fallback : values->front();
}

std::vector<std::vector<SgfNode>> ParseSgfCollection(const std::string& text) {
  std::vector<std::vector<SgfNode>> lines;
  for (ParsedGame& game : ParseSgfGames(text)) {
    lines.push_back(std::move(game.main_line));
  }
  return lines;
}

std::string WriteSgf(const SgfRecord& record) {
  const int size = record.size;
  TENGEN_CHECK(size >= kMinSize && size <= kMaxSize, StrCat("board size ", size));
  TENGEN_CHECK(std::isfinite(record.rules.komi), "komi is not finite");
  TENGEN_CHECK(record.move_comments.empty() || record.move_comments.size() == record.moves.size(),
               "move_comments must be empty or have one entry per move");
  std::string out = StrCat("(;FF[4]GM[1]SZ[", size, "]KM[", ShortestDecimal(record.rules.komi),
                           "]RU[", EscapeText(RulesToSgfText(record.rules)), "]");
  // Empty game-info values are left out: an empty RE[] or DT[] reads as malformed to some tools.
  const std::pair<const char*, const std::string*> info[] = {{"PB", &record.black_player},
                                                             {"PW", &record.white_player},
                                                             {"RE", &record.result},
                                                             {"DT", &record.date}};
  for (const auto& [id, value] : info) {
    if (!value->empty()) out += std::string(id) + "[" + EscapeText(*value) + "]";
  }
  if (!record.setup_black.empty()) {
    out += "AB";
    for (Loc loc : record.setup_black) out += "[" + PointText(loc, size) + "]";
  }
  if (!record.setup_white.empty()) {
    out += "AW";
    for (Loc loc : record.setup_white) out += "[" + PointText(loc, size) + "]";
  }
  if (record.first_player == Color::kWhite) out += "PL[W]";
  if (!record.root_comment.empty()) out += "C[" + EscapeText(record.root_comment) + "]";
  for (size_t i = 0; i < record.extra_properties.size(); ++i) {
    const std::string& id = record.extra_properties[i].first;
    TENGEN_CHECK(!id.empty() && std::all_of(id.begin(), id.end(), IsUpper),
                 "extra SGF property identifier '" + id + "' is not uppercase letters");
    TENGEN_CHECK(!IsStandardProperty(id), "extra SGF property " + id + " is written by WriteSgf");
    // Consecutive values of one identifier share it (GN[a][b]): FF[4] allows each property
    // once per node, and the reader turns them back into one pair per value.
    if (i == 0 || record.extra_properties[i - 1].first != id) out += id;
    out += "[" + EscapeText(record.extra_properties[i].second) + "]";
  }
  for (size_t i = 0; i < record.moves.size(); ++i) {
    const Move& move = record.moves[i];
    TENGEN_CHECK(IsStone(move.color), StrCat("move ", i + 1, " has no colour"));
    out += move.color == Color::kBlack ? ";B[" : ";W[";
    if (move.loc != kPassLoc) out += PointText(move.loc, size);
    out += "]";
    if (!record.move_comments.empty() && !record.move_comments[i].empty()) {
      out += "C[" + EscapeText(record.move_comments[i]) + "]";
    }
  }
  out += ")";
  return out;
}

namespace {

// The root node's game properties: GM, SZ, RU, KM, the players, result and date, and the
// properties this reader does not interpret (kept in extra_properties).
void ReadRootProperties(const SgfNode& root, SgfRecord* record) {
  const std::string game = root.Get("GM", "1");
  if (Trim(game) != "1") throw FormatError("GM[" + game + "]: not a game of Go (GM[1])");
  record->size = ParseSize(root.Get("SZ", "19"));
  if (const auto* ru = root.Find("RU"); ru != nullptr && !ru->empty()) {
    // Unknown rule names keep our defaults: the moves still replay under them.
    ParseSgfRules(Trim(ru->front()), &record->rules);
  }
  if (const std::string km = root.Get("KM"); !Trim(km).empty()) {
    bool ok = false;
    record->rules.komi = ParseDouble(km, &ok);
    if (!ok) throw FormatError("KM[" + km + "]: not a number");
  }
  record->black_player = root.Get("PB");
  record->white_player = root.Get("PW");
  record->result = root.Get("RE");
  record->date = root.Get("DT");
  for (const auto& [id, values] : root.properties) {
    if (IsStandardProperty(id)) continue;
    for (const std::string& v : values) record->extra_properties.emplace_back(id, v);
  }
}

// The move of a B or W property with `values` on a board of `size`; `where` and `number` name
// it in errors.
Move ParseMove(const std::vector<std::string>& values, Color color, const std::string& id, int size,
               const std::string& where, const std::string& number) {
  if (values.size() != 1) {
    throw FormatError(StrCat(where, "move ", number, " has ", values.size(), " values"));
  }
  const std::string text = values.front();
  Move move;
  move.color = color;
  int x = 0, y = 0;
  if (text.empty() || text == "tt") {
    move.loc = kPassLoc;  // "tt" is a pass on boards up to 19x19, where it is off the board
  } else if (ParsePoint(text, size, &x, &y)) {
    move.loc = MakeLoc(x, y, size);
  } else {
    throw FormatError(StrCat(where, "move ", number, " ", id, "[", text, "] is not a point on the ",
                             size, "x", size, " board"));
  }
  return move;
}

}  // namespace

// Setup (AB/AW/AE, and PL) is read from the root and from any node before the first move,
// as some programs put game info in the root and handicap stones in the next node. Setup
// after a move cannot be expressed as a record (one initial position, then moves) and is a
// FormatError rather than silently changing the game. PL after the first move is ignored: each
// move names its own colour.
SgfRecord RecordFromNodes(const std::vector<SgfNode>& main_line) {
  if (main_line.empty()) throw FormatError("SGF game tree has no nodes");
  const SgfNode& root = main_line.front();
  SgfRecord record;
  ReadRootProperties(root, &record);
  const int size = record.size;
  bool have_player = false;
  std::vector<std::string> comments;  // one per move
  for (size_t n = 0; n < main_line.size(); ++n) {
    const SgfNode& node = main_line[n];
    const std::string where = StrCat("node ", n, ": ");
    const bool has_setup = node.Find("AB") || node.Find("AW") || node.Find("AE");
    if (has_setup) {
      if (!record.moves.empty()) {
        throw FormatError(StrCat(where, "setup stones (AB/AW/AE) after move ", record.moves.size(),
                                 " are not supported"));
      }
      ApplySetup(node, size, &record);
    }
    if (node.Find("PL") != nullptr && record.moves.empty()) {
      const std::string pl = node.Get("PL");
      if (!ParseColor(Trim(pl), &record.first_player)) {
        throw FormatError(where + "PL[" + pl + "]: not a colour");
      }
      have_player = true;
    }
    const auto* black = node.Find("B");
    const auto* white = node.Find("W");
    if (black && white) throw FormatError(where + "both B and W in one node");
    const std::string comment = node.Get("C");
    if (black || white) {
      const Color color = black ? Color::kBlack : Color::kWhite;
      const std::string id = black ? "B" : "W";
      const auto& values = black ? *black : *white;
      const std::string number = std::to_string(record.moves.size() + 1);
      const Move move = ParseMove(values, color, id, size, where, number);
      record.moves.push_back(move);
      comments.push_back(n == 0 ? "" : comment);
    }
    // The root's comment, and those of setup nodes before the first move, describe the game;
    // a comment on a node without a move after the game started belongs to the move before it.
    if (n == 0 || record.moves.empty()) {
      AppendComment(&record.root_comment, comment);
    } else if (!(black || white)) {
      AppendComment(&comments.back(), comment);
    }
  }
  if (!have_player && !record.moves.empty()) record.first_player = record.moves.front().color;
  if (std::any_of(comments.begin(), comments.end(), [](const auto& c) { return !c.empty(); })) {
    record.move_comments = std::move(comments);
  }
  return record;
}

std::vector<SgfRecord> ReadSgfRecords(const std::string& text) {
  return RecordsFromGames(ParseSgfGames(text));
}

namespace {

// The whole text of a file; IoError naming the path.
std::string ReadSgfText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw IoError("cannot open SGF file " + path + ": " + std::strerror(errno));
  }
  // istream::read reports a failed read (a directory, an I/O error) as badbit, where
  // `out << in.rdbuf()` would swallow it and return an empty text.
  std::string contents;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0)
    contents.append(buffer, static_cast<size_t>(in.gcount()));
  if (in.bad()) throw IoError("cannot read SGF file " + path + ": " + std::strerror(errno));
  return contents;
}

}  // namespace

std::vector<SgfRecord> ReadSgfFile(const std::string& path) {
  const std::string text = ReadSgfText(path);
  try {
    return ReadSgfRecords(text);
  } catch (const FormatError& e) {
    throw FormatError(path + ": " + e.what());
  }
}

std::vector<SgfGame> ReadSgfFileGames(const std::string& path) {
  ParsedCollection parsed = ParseSgfGamesUntilError(ReadSgfText(path));
  if (!parsed.error.empty() && parsed.games.empty()) throw FormatError(path + ": " + parsed.error);
  std::vector<SgfGame> games;
  games.reserve(parsed.games.size() + 1);
  for (size_t i = 0; i < parsed.games.size(); ++i) games.push_back(ConvertGame(parsed.games, i));
  // A damaged or truncated file keeps the games before the damage; the rest is one bad game.
  if (!parsed.error.empty()) {
    SgfGame rest;
    rest.error = StrCat("SGF game ", games.size() + 1, " and the rest of the file: ", parsed.error);
    games.push_back(std::move(rest));
  }
  return games;
}

}  // namespace tengen::go
