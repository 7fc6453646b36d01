#pragma once
// Small text helpers shared by every module: trimming, prefix and suffix tests, and StrCat,
// which builds a message from strings and numbers in one call instead of chaining
// std::to_string results with +.

#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

namespace tengen {

// `text` without leading and trailing ASCII whitespace (space, \t, \r, \n, \f, \v).
std::string Trim(std::string_view text);
// ASCII letters made upper case (no locale).
std::string UpperCase(std::string text);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
bool Contains(std::string_view text, std::string_view part);

namespace text_internal {

inline void Append(std::string& out, std::string_view part) { out.append(part); }
inline void Append(std::string& out, const char* part) { out.append(part); }
inline void Append(std::string& out, char part) { out.push_back(part); }
inline void Append(std::string& out, bool part) { out.append(part ? "true" : "false"); }
// Integers in decimal; floating-point numbers as an ostream writes them (up to 6 significant
// digits: 0.25, 1e-05, 3.14159), not std::to_string's fixed 6 decimals.
template <typename Number, typename = std::enable_if_t<std::is_arithmetic_v<Number>>>
void Append(std::string& out, Number part) {
  if constexpr (std::is_integral_v<Number>) {
    out.append(std::to_string(part));
  } else {
    std::ostringstream text;
    text << part;
    out.append(text.str());
  }
}

}  // namespace text_internal

// The parts written one after another: strings, characters, booleans and numbers.
// StrCat("file ", path, ": line ", 12, " of ", 40) == "file a.cfg: line 12 of 40".
template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::string out;
  (text_internal::Append(out, parts), ...);
  return out;
}

}  // namespace tengen
