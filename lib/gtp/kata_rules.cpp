#include "gtp/kata_rules.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>

namespace tengen::gtp {
namespace {

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// KataGo's shorthands as dictionaries (its GTP_Extensions.md table).
const std::map<std::string, std::string>& Shorthands() {
  static const std::map<std::string, std::string> kShorthands = {
      {"tromp-taylor",
       R"({"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":true,"tax":"NONE","whiteHandicapBonus":"0"})"},
      {"chinese",
       R"({"hasButton":false,"ko":"SIMPLE","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"})"},
      {"chinese-ogs",
       R"({"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"})"},
      {"chinese-kgs",
       R"({"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"})"},
      {"japanese",
       R"({"hasButton":false,"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI","whiteHandicapBonus":"0"})"},
      {"korean",
       R"({"hasButton":false,"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI","whiteHandicapBonus":"0"})"},
      {"stone-scoring",
       R"({"hasButton":false,"ko":"SIMPLE","scoring":"AREA","suicide":false,"tax":"ALL","whiteHandicapBonus":"0"})"},
      {"aga",
       R"({"hasButton":false,"ko":"SITUATIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N-1"})"},
      {"bga",
       R"({"hasButton":false,"ko":"SITUATIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N-1"})"},
      {"new-zealand",
       R"({"hasButton":false,"ko":"SITUATIONAL","scoring":"AREA","suicide":true,"tax":"NONE","whiteHandicapBonus":"0"})"},
      {"aga-button",
       R"({"hasButton":true,"ko":"SITUATIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N-1"})"},
  };
  return kShorthands;
}

std::string Unsupported(const std::string& key, const std::string& value,
                        const std::string& supported) {
  return "rule not supported: " + key + " " + value + " (tengen plays " + supported + ")";
}

// One key of the dictionary onto *rules; false with *error.
bool ApplyKey(const std::string& key, const nlohmann::json& value, go::Rules* rules,
              std::string* error) {
  if (key == "suicide" || key == "hasButton") {
    if (!value.is_boolean()) {
      *error = "syntax error: " + key + " must be true or false";
      return false;
    }
    if (key == "suicide") {
      rules->suicide = value.get<bool>();
    } else if (value.get<bool>()) {
      *error = Unsupported(key, "true", "without a button");
      return false;
    }
    return true;
  }
  if (!value.is_string()) {
    *error = "syntax error: " + key + " must be a string";
    return false;
  }
  const std::string text = Upper(value.get<std::string>());
  if (key == "ko") {
    if (text == "SIMPLE") {
      rules->ko = go::KoRule::kSimple;
    } else if (text == "POSITIONAL") {
      rules->ko = go::KoRule::kPositional;
    } else {
      *error = Unsupported(key, text, "SIMPLE or POSITIONAL");
      return false;
    }
  } else if (key == "scoring") {
    if (text != "AREA") {
      *error = Unsupported(key, text, "AREA");
      return false;
    }
  } else if (key == "tax") {
    if (text != "NONE") {
      *error = Unsupported(key, text, "NONE");
      return false;
    }
  } else if (key == "whiteHandicapBonus") {
    if (text != "0") {
      *error = Unsupported(key, text, "0; add the bonus to komi instead");
      return false;
    }
  } else {
    *error = "rule not supported: unknown key " + key;
    return false;
  }
  return true;
}

}  // namespace

std::string KataRulesJson(const go::Rules& rules) {
  nlohmann::json json = {
      {"hasButton", false}, {"ko", rules.ko == go::KoRule::kSimple ? "SIMPLE" : "POSITIONAL"},
      {"scoring", "AREA"},  {"suicide", rules.suicide},
      {"tax", "NONE"},      {"whiteHandicapBonus", "0"}};
  return json.dump();
}

bool ParseKataRules(const std::string& text, go::Rules* rules, std::string* error) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto shorthand = Shorthands().find(lower);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(shorthand != Shorthands().end() ? shorthand->second : text);
  } catch (const std::exception&) {
    *error = "syntax error: '" + text + "' is neither a rules name nor a JSON dictionary";
    return false;
  }
  if (!json.is_object()) {
    *error = "syntax error: the rules must be a JSON dictionary";
    return false;
  }
  go::Rules result = *rules;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!ApplyKey(it.key(), it.value(), &result, error)) {
      if (shorthand != Shorthands().end()) *error = lower + ": " + *error;
      return false;
    }
  }
  *rules = result;
  return true;
}

}  // namespace tengen::gtp
