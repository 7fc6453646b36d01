// kata-get-rules and kata-set-rules (KataGo's docs/GTP_Extensions.md): the dictionary read
// back key by key, the rules tengen plays accepted, the others refused with an error that
// names the rule, and a game so far that the new rules forbid left alone.

#include <doctest/doctest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gtp/gtp_engine.h"

namespace tengen::gtp {
namespace {

struct Rig {
  explicit Rig(go::Rules rules = go::Rules()) {
    GtpOptions options;
    options.board_size = 5;
    options.rules = rules;
    engine = std::make_unique<GtpEngine>(options, std::make_unique<RandomMoveGenerator>(1));
  }
  std::string Ask(const std::string& line) {
    bool quit = false;
    return engine->HandleLine(line, &quit);
  }
  nlohmann::json Rules() {
    const std::string answer = Ask("kata-get-rules");
    REQUIRE(answer.rfind("= ", 0) == 0);
    return nlohmann::json::parse(answer.substr(2));
  }
  std::unique_ptr<GtpEngine> engine;
};

TEST_CASE("kata rules: kata-get-rules gives KataGo's dictionary for tengen's rules") {
  Rig rig;  // positional superko, no suicide
  const nlohmann::json rules = rig.Rules();
  CHECK(rules.at("ko") == "POSITIONAL");
  CHECK(rules.at("scoring") == "AREA");
  CHECK(rules.at("tax") == "NONE");
  CHECK(rules.at("suicide") == false);
  CHECK(rules.at("hasButton") == false);
  CHECK(rules.at("whiteHandicapBonus") == "0");
  CHECK(rig.Ask("kata-get-rules now") == "? syntax error\n\n");
}

TEST_CASE("kata rules: kata-set-rules takes tengen's rules and names the ones it lacks") {
  Rig rig;
  CHECK(rig.Ask("komi 6.5") == "= \n\n");
  CHECK(rig.Ask("kata-set-rules tromp-taylor") == "= \n\n");
  CHECK(rig.Rules().at("suicide") == true);
  CHECK(rig.Rules().at("ko") == "POSITIONAL");
  CHECK(rig.engine->game().rules().komi == 6.5);  // komi is not a rule here
  CHECK(rig.Ask(R"(kata-set-rules {"ko":"SIMPLE","suicide":false})") == "= \n\n");
  CHECK(rig.Rules().at("ko") == "SIMPLE");
  CHECK(rig.Ask("tengen-rules") == "= ko=simple suicide=false komi=6.5 scoring=area\n\n");
  // The same rules survive clear_board.
  CHECK(rig.Ask("clear_board") == "= \n\n");
  CHECK(rig.Rules().at("ko") == "SIMPLE");

  const auto refused = [&](const std::string& rules, const std::string& named) {
    INFO(rules);
    const std::string answer = rig.Ask("kata-set-rules " + rules);
    CHECK(answer.rfind("? ", 0) == 0);
    CHECK_MESSAGE(answer.find(named) != std::string::npos, answer);
  };
  refused("chinese", "whiteHandicapBonus N");
  refused("japanese", "scoring TERRITORY");
  refused("new-zealand", "ko SITUATIONAL");
  refused("aga", "ko SITUATIONAL");
  refused("stone-scoring", "tax ALL");
  refused(R"({"hasButton":true})", "hasButton true");
  refused(R"({"friendlyPassOk":true})", "friendlyPassOk");
  refused("klingon", "syntax error");
  refused(R"({"ko":)", "syntax error");
  CHECK(rig.Ask("kata-set-rules") == "? syntax error\n\n");
  // Nothing changed on a refusal.
  CHECK(rig.Rules().at("ko") == "SIMPLE");
  CHECK(rig.Rules().at("suicide") == false);
}

TEST_CASE("kata rules: rules the game so far breaks are refused and change nothing") {
  go::Rules suicide;
  suicide.suicide = true;
  Rig rig(suicide);
  // Black A1 A2 with no liberty left and nothing captured: a two-stone suicide.
  for (const char* move : {"b A1", "w B1", "w B2", "w A3", "b A2"}) {
    INFO(move);
    REQUIRE(rig.Ask(std::string("play ") + move) == "= \n\n");
  }
  const std::string answer = rig.Ask(R"(kata-set-rules {"suicide":false})");
  CHECK(answer.rfind("? the game so far breaks these rules", 0) == 0);
  CHECK(rig.Rules().at("suicide") == true);
  CHECK(rig.engine->game().moves().size() == 5);
}

}  // namespace
}  // namespace tengen::gtp
