#pragma once
// The shuffler's options (pipeline/shuffle.h): its config keys and their reading.

#include "pipeline/shuffle.h"
#include "util/config.h"

namespace tengen::pipeline {

// Declares the shuffler's option keys; ShuffleOptionsFromConfig reads them (ConfigError when
// output_dir is missing).
void DeclareShuffleOptions(ConfigSpec& spec);
ShuffleOptions ShuffleOptionsFromConfig(const Config& config);

}  // namespace tengen::pipeline
