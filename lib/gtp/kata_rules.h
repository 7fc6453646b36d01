#pragma once
// KataGo's GTP rules commands (kata-get-rules, kata-set-rules; KataGo's docs/GTP_Extensions.md)
// for the rules tengen plays: area scoring as Tromp-Taylor counts it, no tax, no button, simple
// ko or positional superko, multi-stone suicide allowed or not, and no bonus for white in
// handicap games (whiteHandicapBonus "0": see go/handicap.h). Of KataGo's shorthand names only
// "tromp-taylor" is within them; the others need a rule tengen does not have (Chinese: a white
// bonus of N; AGA, New Zealand: situational superko; Japanese, Korean: territory scoring) and
// are refused with an error that names it.

#include <string>

#include "go/rules.h"

namespace tengen::gtp {

// The rules as KataGo's JSON dictionary, e.g.
// {"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,"tax":"NONE",
//  "whiteHandicapBonus":"0"}.
std::string KataRulesJson(const go::Rules& rules);

// Applies kata-set-rules's argument, a shorthand name or a JSON dictionary (keys it leaves
// out keep their values), to *rules; komi is not touched. False with *error naming the rule
// and value tengen does not support, or what could not be read.
bool ParseKataRules(const std::string& text, go::Rules* rules, std::string* error);

}  // namespace tengen::gtp
