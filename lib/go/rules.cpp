#include "go/rules.h"

#include <algorithm>
#include <cctype>

namespace tengen::go {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool ParseOwnRulesText(const std::string& text, Rules* rules) {
  const std::string prefix = "tengen:";
  if (text.compare(0, prefix.size(), prefix) != 0) return false;
  Rules parsed = *rules;
  size_t start = prefix.size();
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    if (key == "ko") {
      if (!ParseKoRule(value, &parsed.ko)) return false;
    } else if (key == "suicide") {
      if (value != "0" && value != "1") return false;
      parsed.suicide = value == "1";
    } else if (key == "scoring") {
      if (value != "area") return false;
    } else {
      return false;
    }
    start = end + 1;
  }
  *rules = parsed;
  return true;
}

}  // namespace

const char* KoRuleName(KoRule ko) { return ko == KoRule::kSimple ? "simple" : "positional"; }

bool ParseKoRule(const std::string& text, KoRule* ko) {
  if (text == "simple") {
    *ko = KoRule::kSimple;
    return true;
  }
  if (text == "positional") {
    *ko = KoRule::kPositional;
    return true;
  }
  return false;
}

std::string RulesToSgfText(const Rules& rules) {
  return std::string("tengen:ko=") + KoRuleName(rules.ko) +
         ",suicide=" + (rules.suicide ? "1" : "0") + ",scoring=area";
}

bool ParseSgfRules(const std::string& text, Rules* rules) {
  if (ParseOwnRulesText(text, rules)) return true;
  std::string name = Lower(text);
  name.erase(std::remove_if(name.begin(), name.end(),
                            [](char c) { return c == ' ' || c == '-' || c == '_'; }),
             name.end());
  // Nearest supported rules for common names. We only score by area, so rule sets that
  // score by territory (Japanese, Korean) keep their ko and suicide rules but not scoring.
  if (name == "tromptaylor" || name == "tt" || name == "nz" || name == "newzealand") {
    rules->ko = KoRule::kPositional;
    rules->suicide = true;
    return true;
  }
  if (name == "chinese" || name == "cn" || name == "aga" || name == "bga" || name == "french") {
    rules->ko = KoRule::kPositional;
    rules->suicide = false;
    return true;
  }
  if (name == "japanese" || name == "jp" || name == "korean" || name == "ing") {
    rules->ko = name == "ing" ? KoRule::kPositional : KoRule::kSimple;
    rules->suicide = name == "ing";
    return true;
  }
  return false;
}

}  // namespace tengen::go
