#pragma once
// The rule keys every program that plays reads: rules.ko (simple | positional), rules.suicide
// (true | false) and rules.komi, written as a [rules] section in .cfg files or with
// --set rules.ko=simple.

#include "go/rules.h"
#include "util/config.h"

namespace tengen::play {

void DeclareRulesOptions(ConfigSpec& spec);
go::Rules RulesFromConfig(const Config& config);

}  // namespace tengen::play
