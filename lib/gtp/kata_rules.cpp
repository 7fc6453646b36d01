#include "gtp/kata_rules.h"

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <vector>

#include "util/text.h"

namespace tengen::gtp {
namespace {

// KataGo's shorthands (its GTP_Extensions.md table), field by field.
struct Shorthand {
  const char* name;
  bool has_button;
  const char* ko;
  const char* scoring;
  bool suicide;
  const char* tax;
  const char* white_handicap_bonus;
};

const std::vector<Shorthand>& Shorthands() {
  static const std::vector<Shorthand> kShorthands = {
      {"tromp-taylor", false, "POSITIONAL", "AREA", true, "NONE", "0"},
      {"chinese", false, "SIMPLE", "AREA", false, "NONE", "N"},
      {"chinese-ogs", false, "POSITIONAL", "AREA", false, "NONE", "N"},
      {"chinese-kgs", false, "POSITIONAL", "AREA", false, "NONE", "N"},
      {"japanese", false, "SIMPLE", "TERRITORY", false, "SEKI", "0"},
      {"korean", false, "SIMPLE", "TERRITORY", false, "SEKI", "0"},
      {"stone-scoring", false, "SIMPLE", "AREA", false, "ALL", "0"},
      {"aga", false, "SITUATIONAL", "AREA", false, "NONE", "N-1"},
      {"bga", false, "SITUATIONAL", "AREA", false, "NONE", "N-1"},
      {"new-zealand", false, "SITUATIONAL", "AREA", true, "NONE", "0"},
      {"aga-button", true, "SITUATIONAL", "AREA", false, "NONE", "N-1"},
  };
  return kShorthands;
}

nlohmann::json ShorthandJson(const Shorthand& rules) {
  return {{"hasButton", rules.has_button},
          {"ko", rules.ko},
          {"scoring", rules.scoring},
          {"suicide", rules.suicide},
          {"tax", rules.tax},
          {"whiteHandicapBonus", rules.white_handicap_bonus}};
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
  const std::string text = UpperCase(value.get<std::string>());
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
  const auto shorthand = std::find_if(Shorthands().begin(), Shorthands().end(),
                                      [&](const Shorthand& entry) { return lower == entry.name; });
  const bool named = shorthand != Shorthands().end();
  nlohmann::json json;
  if (named) {
    json = ShorthandJson(*shorthand);
  } else {
    try {
      json = nlohmann::json::parse(text);
    } catch (const std::exception&) {
      *error = "syntax error: '" + text + "' is neither a rules name nor a JSON dictionary";
      return false;
    }
  }
  if (!json.is_object()) {
    *error = "syntax error: the rules must be a JSON dictionary";
    return false;
  }
  go::Rules result = *rules;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!ApplyKey(it.key(), it.value(), &result, error)) {
      if (named) *error = lower + ": " + *error;
      return false;
    }
  }
  *rules = result;
  return true;
}

}  // namespace tengen::gtp
