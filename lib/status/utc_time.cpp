#include "status/utc_time.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace tengen::status {

std::optional<double> ParseUtc(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                  &second, &consumed) != 6) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 ||
      year < 1970 || hour < 0 || minute < 0 || second < 0) {
    return std::nullopt;
  }
  double fraction = 0;
  size_t pos = static_cast<size_t>(consumed);
  if (pos < text.size() && text[pos] == '.') {
    double scale = 0.1;
    ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      fraction += scale * (text[pos] - '0');
      scale /= 10;
      ++pos;
    }
  }
  if (pos + 1 != text.size() || text[pos] != 'Z') return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + fraction;
}

std::string FormatUtc(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  const std::time_t t = static_cast<std::time_t>(std::floor(seconds));
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[40];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace tengen::status
