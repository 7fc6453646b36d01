#include "play/rules_config.h"

namespace tengen::play {

void DeclareRulesOptions(ConfigSpec& spec) {
  spec.Choice("rules.ko", "positional", {"simple", "positional"},
              "ko rule: simple ko, or positional superko (no whole-board position repeats)");
  spec.Bool("rules.suicide", false, "allow multi-stone suicide");
  spec.Double("rules.komi", 7.5, -150, 150, "komi added to white's area score");
}

go::Rules RulesFromConfig(const Config& config) {
  go::Rules rules;
  go::ParseKoRule(config.GetString("rules.ko"), &rules.ko);
  rules.suicide = config.GetBool("rules.suicide");
  rules.komi = config.GetDouble("rules.komi");
  return rules;
}

}  // namespace tengen::play
