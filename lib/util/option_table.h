#pragma once
// One table per options struct. Each row names a key, the struct member it sets, its range or
// choices and its help line. Declare() puts the rows into a ConfigSpec with the defaults taken
// from a default-constructed struct, and Read() copies the validated values into a struct, so a
// key's default, its declaration and its reading come from the same row and cannot drift apart.
//
//   OptionTable<ShuffleOptions>()
//       .Int("min_rows", &ShuffleOptions::min_rows, 1, int64_t{1} << 50, "rows needed first")
//       .Seconds("interval_seconds", &ShuffleOptions::interval, 0, 86400, "time between shuffles")
//
// Rows of a member struct come from that struct's own table (Nested). A key whose value needs
// more than a copy (a parsed list, a default that is not a member) is a Custom row: its own
// declare and read functions, still in the table's order. Checks that span several keys stay
// with the caller, after Read().

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/config.h"

namespace tengen {

template <typename S>
class OptionTable {
 public:
  using DeclareFn = std::function<void(ConfigSpec&, const S&)>;
  using ReadFn = std::function<void(const Config&, S&)>;

  template <typename T>
  OptionTable& Int(const std::string& key, T S::*member, int64_t min, int64_t max,
                   const std::string& help) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "Int needs an integer member");
    return Custom(
        [=](ConfigSpec& spec, const S& d) {
          spec.Int(key, static_cast<int64_t>(d.*member), min, max, help);
        },
        [=](const Config& config, S& s) { s.*member = static_cast<T>(config.GetInt(key)); });
  }

  OptionTable& Double(const std::string& key, double S::*member, double min, double max,
                      const std::string& help) {
    return Custom(
        [=](ConfigSpec& spec, const S& d) { spec.Double(key, d.*member, min, max, help); },
        [=](const Config& config, S& s) { s.*member = config.GetDouble(key); });
  }

  OptionTable& Bool(const std::string& key, bool S::*member, const std::string& help) {
    return Custom([=](ConfigSpec& spec, const S& d) { spec.Bool(key, d.*member, help); },
                  [=](const Config& config, S& s) { s.*member = config.GetBool(key); });
  }

  OptionTable& String(const std::string& key, std::string S::*member, const std::string& help) {
    return Custom([=](ConfigSpec& spec, const S& d) { spec.String(key, d.*member, help); },
                  [=](const Config& config, S& s) { s.*member = config.GetString(key); });
  }

  OptionTable& Choice(const std::string& key, std::string S::*member,
                      const std::vector<std::string>& choices, const std::string& help) {
    return Custom([=](ConfigSpec& spec, const S& d) { spec.Choice(key, d.*member, choices, help); },
                  [=](const Config& config, S& s) { s.*member = config.GetString(key); });
  }

  // An enum member whose values have names: declared as a choice among names(), the default
  // name(default), read by parse (which throws ConfigError for another name).
  template <typename E>
  OptionTable& Enum(const std::string& key, E S::*member, const char* (*name)(E),
                    std::vector<std::string> (*names)(), E (*parse)(const std::string&),
                    const std::string& help) {
    return Custom(
        [=](ConfigSpec& spec, const S& d) { spec.Choice(key, name(d.*member), names(), help); },
        [=](const Config& config, S& s) { s.*member = parse(config.GetString(key)); });
  }

  // A duration given in seconds, fractions allowed: declared as a double, stored in the
  // member's own unit, rounded up (so a positive interval never becomes zero).
  template <typename Rep, typename Period>
  OptionTable& Seconds(const std::string& key, std::chrono::duration<Rep, Period> S::*member,
                       double min, double max, const std::string& help) {
    using Duration = std::chrono::duration<Rep, Period>;
    return Custom(
        [=](ConfigSpec& spec, const S& d) {
          spec.Double(key, std::chrono::duration<double>(d.*member).count(), min, max, help);
        },
        [=](const Config& config, S& s) {
          s.*member =
              std::chrono::ceil<Duration>(std::chrono::duration<double>(config.GetDouble(key)));
        });
  }

  // A duration given in whole seconds: declared as an integer.
  template <typename Rep, typename Period>
  OptionTable& WholeSeconds(const std::string& key, std::chrono::duration<Rep, Period> S::*member,
                            int64_t min, int64_t max, const std::string& help) {
    return Custom(
        [=](ConfigSpec& spec, const S& d) {
          spec.Int(key, std::chrono::duration_cast<std::chrono::seconds>(d.*member).count(), min,
                   max, help);
        },
        [=](const Config& config, S& s) { s.*member = std::chrono::seconds(config.GetInt(key)); });
  }

  // The rows of `table`, applied to the member struct `member`.
  template <typename M>
  OptionTable& Nested(M S::*member, const OptionTable<M>& table) {
    for (const auto& row : table.rows()) {
      const auto declare = row.first;
      const auto read = row.second;
      ReadFn nested_read;
      if (read) nested_read = [=](const Config& config, S& s) { read(config, s.*member); };
      rows_.emplace_back([=](ConfigSpec& spec, const S& d) { declare(spec, d.*member); },
                         std::move(nested_read));
    }
    return *this;
  }

  // Every row of `table`, for the same struct.
  OptionTable& Include(const OptionTable& table) {
    rows_.insert(rows_.end(), table.rows().begin(), table.rows().end());
    return *this;
  }

  // A row with its own declaration and reading; `read` may be empty for a key that the struct
  // does not hold (a program reads it itself).
  OptionTable& Custom(DeclareFn declare, ReadFn read) {
    rows_.emplace_back(std::move(declare), std::move(read));
    return *this;
  }

  // Declares every row, with defaults from `defaults`.
  void Declare(ConfigSpec& spec, const S& defaults) const {
    for (const auto& row : rows_) row.first(spec, defaults);
  }
  // The same with a default-constructed S (on the heap: GCC 12 reports false
  // maybe-uninitialized warnings for some initializer lists of structs built on the stack).
  void Declare(ConfigSpec& spec) const { Declare(spec, *std::make_unique<S>()); }

  // Copies every row's value from `config` into `out`.
  void Read(const Config& config, S* out) const {
    for (const auto& row : rows_)
      if (row.second) row.second(config, *out);
  }

  const std::vector<std::pair<DeclareFn, ReadFn>>& rows() const { return rows_; }

 private:
  std::vector<std::pair<DeclareFn, ReadFn>> rows_;
};

}  // namespace tengen
