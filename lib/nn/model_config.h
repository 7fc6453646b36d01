#pragma once
// What a model file is, without libtorch: the architecture name b{blocks}c{channels} and the
// metadata stored beside the weights (name, architecture, feature version, pos_len).

#include <string>

namespace tengen::nn {

// The largest board edge the tools make nets for (19x19, the largest Go board).
constexpr int kMaxPosLen = 19;

struct ModelConfig {
  int blocks = 6;
  int channels = 96;
  int pos_len = 19;
  int feature_version = 1;
  std::string name;  // <run>-<trainingname>-s<samples>-d<rows>, or any name for fresh models

  // "b6c96"
  std::string Architecture() const;
};

// Parses "b{B}c{C}" (B in 1..64, C in 8..1024) into blocks and channels; throws ConfigError
// naming the text otherwise.
void ParseArchitecture(const std::string& text, ModelConfig* config);

}  // namespace tengen::nn
