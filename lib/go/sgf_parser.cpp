#include "go/sgf_parser.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/text.h"

namespace tengen::go {
namespace {

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

// A hand-written recursive-descent parser made iterative for variations, so that deeply
// nested variation trees (some editors nest every variation) cannot overflow the stack.
class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {
    // A UTF-8 byte order mark is common in files saved by Windows editors.
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
  }

  // Appends each game tree to `games` as it is read. An empty (or all-whitespace) text is an
  // empty collection rather than an error, so that an .sgfs file with no games yet reads as no
  // games.
  void ParseCollection(std::vector<ParsedGame>* games) {
    SkipWhitespace();
    while (!AtEnd()) {
      if (Peek() != '(')
        Fail(line_, column_, "expected '(' to start a game tree, found " + Describe(Peek()));
      games->push_back(ParseGameTree());
      SkipWhitespace();
    }
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

}  // namespace

std::vector<ParsedGame> ParseSgfGames(const std::string& text) {
  std::vector<ParsedGame> games;
  Parser(text).ParseCollection(&games);
  return games;
}

ParsedCollection ParseSgfGamesUntilError(const std::string& text) {
  ParsedCollection collection;
  try {
    Parser(text).ParseCollection(&collection.games);
  } catch (const FormatError& e) {
    collection.error = e.what();
  }
  return collection;
}

}  // namespace tengen::go
