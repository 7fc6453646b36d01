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

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

// FF[3] identifiers spell words in mixed case ("AddBlack"); the uppercase letters are the FF[4]
// identifier. Some writers use all lowercase ("b"), which only makes sense upper-cased.
std::string NormalizeIdent(const std::string& raw) {
  std::string upper;
  for (char c : raw) {
    if (IsUpper(c)) upper += c;
  }
  if (!upper.empty()) return upper;
  for (char c : raw) upper += static_cast<char>(c - 'a' + 'A');
  return upper;
}

// A main line plus where its game tree starts, so that errors found after parsing (bad size,
// bad coordinate) can still point into the file: in a .sgfs file the line names the game.
struct ParsedGame {
  std::vector<SgfNode> main_line;
  int line = 1;
};

// A hand-written recursive-descent parser made iterative for variations, so that deeply
// nested variation trees (some editors nest every variation) cannot overflow the stack.
class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {
    // A UTF-8 byte order mark is common in files saved by Windows editors.
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
  }

  // An empty (or all-whitespace) text is an empty collection rather than an error, so that
  // an .sgfs file with no games yet reads as no games.
  std::vector<ParsedGame> ParseCollection() {
    std::vector<ParsedGame> games;
    SkipWhitespace();
    while (!AtEnd()) {
      if (Peek() != '(')
        Fail(line_, column_, "expected '(' to start a game tree, found " + Describe(Peek()));
      games.push_back(ParseGameTree());
      SkipWhitespace();
    }
    return games;
  }

 private:
  // One open '(' ... ')': whether it lies on the main line, and what it has seen so far, which
  // is all the grammar GameTree = '(' Node+ GameTree* ')' needs.
  struct Frame {
    bool main = false;
    bool has_node = false;
    bool has_child = false;
    int line = 0;
    int column = 0;
  };

  [[noreturn]] void Fail(int line, int column, const std::string& message) const {
    throw FormatError(StrCat("SGF line ", line, ", column ", column, ": ", message));
  }

  static std::string Describe(char c) {
    if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
    std::ostringstream out;
    out << "byte 0x" << std::hex << std::setw(2) << std::setfill('0')
        << static_cast<int>(static_cast<unsigned char>(c));
    return out.str();
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }

  // Moves past one character, counting lines for error messages (\n, \r\n and a lone \r each
  // end one line).
  void Advance() {
    const char c = text_[pos_++];
    if (c == '\n' || (c == '\r' && (AtEnd() || Peek() != '\n'))) {
      ++line_;
      column_ = 1;
    } else if (c != '\r') {
      ++column_;
    }
  }

  void SkipWhitespace() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(Peek()))) Advance();
  }

  ParsedGame ParseGameTree() {
    ParsedGame game;
    game.line = line_;
    std::vector<Frame> stack;
    stack.push_back(Frame{true, false, false, line_, column_});
    Advance();  // '('
    while (true) {
      SkipWhitespace();
      if (AtEnd()) {
        Fail(stack.back().line, stack.back().column,
             "game tree opened here is not closed (missing ')')");
      }
      Frame& top = stack.back();
      const char c = Peek();
      if (c == ';') {
        if (top.has_child) Fail(line_, column_, "node after a variation in the same game tree");
        Advance();
        SgfNode node = ParseNode();
        top.has_node = true;
        if (top.main) game.main_line.push_back(std::move(node));
      } else if (c == '(') {
        if (!top.has_node) Fail(line_, column_, "variation before any node of its game tree");
        // Only the first variation at a fork continues the main line.
        const bool main = top.main && !top.has_child;
        top.has_child = true;
        stack.push_back(Frame{main, false, false, line_, column_});
        Advance();
      } else if (c == ')') {
        if (!top.has_node) Fail(line_, column_, "empty game tree (no ';' node)");
        Advance();
        stack.pop_back();
        if (stack.empty()) return game;
      } else {
        Fail(line_, column_, "unexpected " + Describe(c) + " (expected ';', '(' or ')')");
      }
    }
  }

  // Properties up to the next ';', '(' or ')'. A repeated identifier (not allowed by FF[4],
  // seen in the wild) adds its values to the first occurrence.
  SgfNode ParseNode() {
    SgfNode node;
    while (true) {
      SkipWhitespace();
      if (AtEnd() || !(IsUpper(Peek()) || IsLower(Peek()))) return node;
      const int id_line = line_;
      const int id_column = column_;
      std::string raw;
      while (!AtEnd() && (IsUpper(Peek()) || IsLower(Peek()))) {
        raw += Peek();
        Advance();
      }
      const std::string id = NormalizeIdent(raw);
      SkipWhitespace();
      if (AtEnd() || Peek() != '[') Fail(id_line, id_column, "property " + raw + " has no value");
      std::vector<std::string> values;
      while (!AtEnd() && Peek() == '[') {
        values.push_back(ParseValue());
        SkipWhitespace();
      }
      auto existing = std::find_if(node.properties.begin(), node.properties.end(),
                                   [&](const auto& p) { return p.first == id; });
      if (existing == node.properties.end()) {
        node.properties.emplace_back(id, std::move(values));
      } else {
        existing->second.insert(existing->second.end(), values.begin(), values.end());
      }
    }
  }

  // '[' ... ']' with escapes: '\' takes the next character literally, and '\' before a line
  // break is a soft line break that disappears. Line breaks kept in text are stored as '\n'.
  std::string ParseValue() {
    const int start_line = line_;
    const int start_column = column_;
    Advance();  // '['
    std::string value;
    while (true) {
      if (AtEnd()) Fail(start_line, start_column, "unterminated property value (missing ']')");
      const char c = Peek();
      if (c == ']') {
        Advance();
        return value;
      }
      if (c == '\\') {
        Advance();
        if (AtEnd()) Fail(start_line, start_column, "unterminated property value (missing ']')");
        const char next = Peek();
        if (next == '\n' || next == '\r') {
          SkipLineBreak();
        } else {
          value += next;
          Advance();
        }
      } else if (c == '\n' || c == '\r') {
        SkipLineBreak();
        value += '\n';
      } else {
        value += c;
        Advance();
      }
    }
  }

  // Consumes one line break: \n, \r, \r\n or \n\r.
  void SkipLineBreak() {
    const char first = Peek();
    Advance();
    if (!AtEnd() && (Peek() == '\n' || Peek() == '\r') && Peek() != first) Advance();
  }

  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

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

std::vector<SgfRecord> RecordsFromGames(const std::vector<ParsedGame>& games) {
  std::vector<SgfRecord> records;
  records.reserve(games.size());
  for (size_t i = 0; i < games.size(); ++i) {
    try {
      records.push_back(RecordFromNodes(games[i].main_line));
    } catch (const FormatError& e) {
      throw FormatError(StrCat("SGF game ", i + 1, " (line ", games[i].line, "): ", e.what()));
    }
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
  for (ParsedGame& game : Parser(text).ParseCollection()) {
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

// Setup (AB/AW/AE, and PL) is read from the root and from any node before the first move,
// as some programs put game info in the root and handicap stones in the next node. Setup
// after a move cannot be expressed as a record (one initial position, then moves) and is a
// FormatError rather than silently changing the game. PL after the first move is ignored: each
// move names its own colour.
SgfRecord RecordFromNodes(const std::vector<SgfNode>& main_line) {
  if (main_line.empty()) throw FormatError("SGF game tree has no nodes");
  const SgfNode& root = main_line.front();
  SgfRecord record;
  const std::string game = root.Get("GM", "1");
  if (Trim(game) != "1") throw FormatError("GM[" + game + "]: not a game of Go (GM[1])");
  record.size = ParseSize(root.Get("SZ", "19"));
  const int size = record.size;
  if (const auto* ru = root.Find("RU"); ru != nullptr && !ru->empty()) {
    // Unknown rule names keep our defaults: the moves still replay under them.
    ParseSgfRules(Trim(ru->front()), &record.rules);
  }
  if (const std::string km = root.Get("KM"); !Trim(km).empty()) {
    bool ok = false;
    record.rules.komi = ParseDouble(km, &ok);
    if (!ok) throw FormatError("KM[" + km + "]: not a number");
  }
  record.black_player = root.Get("PB");
  record.white_player = root.Get("PW");
  record.result = root.Get("RE");
  record.date = root.Get("DT");
  for (const auto& [id, values] : root.properties) {
    if (IsStandardProperty(id)) continue;
    for (const std::string& v : values) record.extra_properties.emplace_back(id, v);
  }

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
        throw FormatError(StrCat(where, "move ", number, " ", id, "[", text,
                                 "] is not a point on the ", size, "x", size, " board"));
      }
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
  return RecordsFromGames(Parser(text).ParseCollection());
}

std::vector<SgfRecord> ReadSgfFile(const std::string& path) {
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
  try {
    return ReadSgfRecords(contents);
  } catch (const FormatError& e) {
    throw FormatError(path + ": " + e.what());
  }
}

}  // namespace tengen::go
