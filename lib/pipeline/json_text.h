#pragma once
// The JSON records the programs publish (the exporter's export.json, the shuffler's summary,
// the gatekeeper's match record, tengen-status --set json=true) are written one way: indented
// by two spaces, ending in a newline, and with invalid UTF-8 (a file name can hold any bytes)
// written as U+FFFD rather than thrown.

#include <nlohmann/json.hpp>
#include <string>

namespace tengen::pipeline {

// `json` as the text of a published JSON file; Json is nlohmann::json or nlohmann::ordered_json.
template <typename Json>
std::string JsonFileText(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace tengen::pipeline
