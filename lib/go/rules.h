#pragma once
// Rules as a value: written into every SGF (RU) and later into every training row, and read
// from the [rules] config keys (play/rules_config.h). Scoring is always area
// (Tromp-Taylor); the enum leaves room for more.

#include <string>

namespace tengen::go {

enum class KoRule { kSimple, kPositional };
enum class ScoringRule { kArea };

struct Rules {
  KoRule ko = KoRule::kPositional;
  bool suicide = false;  // multi-stone suicide allowed
  double komi = 7.5;
  ScoringRule scoring = ScoringRule::kArea;

  bool operator==(const Rules& o) const {
    return ko == o.ko && suicide == o.suicide && komi == o.komi && scoring == o.scoring;
  }
  bool operator!=(const Rules& o) const { return !(*this == o); }
};

const char* KoRuleName(KoRule ko);  // "simple" / "positional"
bool ParseKoRule(const std::string& text, KoRule* ko);

// SGF RU text: "tengen:ko=positional,suicide=0,scoring=area" (komi goes in KM).
std::string RulesToSgfText(const Rules& rules);
// Reads our own RU text and common names from other programs ("Chinese", "Tromp-Taylor",
// "NZ", "AGA", "Japanese", ...), mapped to the nearest rules we support; komi is left as is.
// Returns false (and leaves rules unchanged) for text it does not know.
bool ParseSgfRules(const std::string& text, Rules* rules);

}  // namespace tengen::go
