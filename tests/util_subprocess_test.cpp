#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <string>

#include "util/error.h"
#include "util/subprocess.h"

namespace tengen {
namespace {

TEST_CASE("subprocess: line round trip with cat") {
  Subprocess cat({"cat"});
  CHECK(cat.pid() > 0);
  std::string line;
  for (const char* sent : {"hello", "", "a line with  spaces", "last"}) {
    cat.WriteLine(sent);
    REQUIRE(cat.ReadLine(&line));
    CHECK(line == sent);
  }
  cat.CloseStdin();
  CHECK_FALSE(cat.ReadLine(&line));
  CHECK(cat.Wait() == 0);
  CHECK(cat.Wait() == 0);  // the result is kept
}

TEST_CASE("subprocess: ReadAll, a last line without newline, stderr capture") {
  Subprocess child({"sh", "-c", "echo one; echo two >&2; printf three"}, true);
  std::string line;
  REQUIRE(child.ReadLine(&line));
  CHECK(line == "one");
  const std::string rest = child.ReadAll();
  CHECK(rest == "two\nthree");
  CHECK(child.Wait() == 0);

  Subprocess partial({"sh", "-c", "printf 'a\\nb'"});
  REQUIRE(partial.ReadLine(&line));
  CHECK(line == "a");
  REQUIRE(partial.ReadLine(&line));
  CHECK(line == "b");
  CHECK_FALSE(partial.ReadLine(&line));
}

TEST_CASE("subprocess: ReadLine with a timeout throws TimeoutError and keeps what arrived") {
  Subprocess child({"/bin/bash", "-c", "printf 'abc'; read -r go; printf 'def\\nghi\\n'"});
  std::string line;
  CHECK_THROWS_WITH_AS(child.ReadLine(&line, std::chrono::milliseconds(200)),
                       doctest::Contains("/bin/bash"), TimeoutError);
  child.WriteLine("go");
  REQUIRE(child.ReadLine(&line, std::chrono::milliseconds(60000)));
  CHECK(line == "abcdef");
  REQUIRE(child.ReadLine(&line, std::chrono::milliseconds(60000)));
  CHECK(line == "ghi");
  CHECK_FALSE(child.ReadLine(&line, std::chrono::milliseconds(60000)));
  CHECK(child.Wait() == 0);
}

TEST_CASE("subprocess: RunProcess gives exit code and output") {
  const ProcessResult result = RunProcess({"sh", "-c", "echo hi; exit 3"});
  CHECK(result.exit_code == 3);
  CHECK(result.output == "hi\n");

  // Input larger than a pipe buffer, echoed back while it is written: no deadlock.
  std::string input;
  for (int i = 0; i < 20000; ++i) input += "line " + std::to_string(i) + "\n";
  const ProcessResult echoed = RunProcess({"cat"}, input);
  CHECK(echoed.exit_code == 0);
  CHECK(echoed.output == input);

  // A child that exits without reading its input is not an error.
  const ProcessResult ignored = RunProcess({"true"}, input);
  CHECK(ignored.exit_code == 0);
  CHECK(ignored.output.empty());
}

TEST_CASE("subprocess: Kill reports 128 + signal") {
  Subprocess sleeper({"sleep", "60"});
  sleeper.Kill(SIGKILL);
  CHECK(sleeper.Wait() == 128 + 9);
}

TEST_CASE("subprocess: writing to a child that has exited is an IoError, not SIGPIPE") {
  Subprocess child({"true"});
  CHECK(child.Wait() == 0);
  // The pipe's read end is gone with the child; a big write hits EPIPE at once.
  // exec, so that the destructor kills sleep itself and no grandchild outlives the test.
  Subprocess gone({"sh", "-c", "exec sleep 60 0<&-"});
  bool threw = false;
  try {
    for (int i = 0; i < 100 && !threw; ++i) gone.WriteLine(std::string(100000, 'x'));
  } catch (const IoError& e) {
    threw = true;
    CHECK(std::string(e.what()).find("'sh'") != std::string::npos);
  }
  CHECK(threw);
}

TEST_CASE("subprocess: a program that cannot start is an IoError") {
  try {
    Subprocess missing({"tengen-no-such-program-xyz"});
    FAIL("expected an IoError");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("tengen-no-such-program-xyz") != std::string::npos);
  }
  CHECK_THROWS_AS(RunProcess({"tengen-no-such-program-xyz"}), IoError);
}

TEST_CASE("subprocess: the destructor kills and reaps a running child") {
  pid_t pid = 0;
  {
    Subprocess sleeper({"sleep", "60"});
    pid = sleeper.pid();
  }
  // Reaped: the pid is no longer our child.
  CHECK(kill(pid, 0) != 0);
}

}  // namespace
}  // namespace tengen
