#pragma once
// Moves board-shaped values between frames of different edges: the same board in the top-left
// corner of smaller or larger planes, the points around it 0.

#include <algorithm>
#include <vector>

namespace tengen::testing {

// The top-left edge x edge points of `planes` planes of from x from values at v, in planes of
// to x to, followed by the `tail` values after the planes (the pass).
template <typename T>
std::vector<float> Framed(const T* v, int from, int to, int planes, int tail, int edge) {
  std::vector<float> out(static_cast<size_t>(planes * to * to + tail), 0.0f);
  for (int plane = 0; plane < planes; ++plane) {
    for (int y = 0; y < edge; ++y) {
      for (int x = 0; x < edge; ++x) {
        out[(plane * to + y) * to + x] = static_cast<float>(v[(plane * from + y) * from + x]);
      }
    }
  }
  for (int i = 0; i < tail; ++i) {
    out[planes * to * to + i] = static_cast<float>(v[planes * from * from + i]);
  }
  return out;
}

// Framed for each of the rows of `v` ([rows][planes * from * from + tail]), back to back.
template <typename T>
std::vector<float> FramedRows(const std::vector<T>& v, int from, int to, int planes, int tail,
                              int edge) {
  const size_t stride = static_cast<size_t>(planes * from * from + tail);
  std::vector<float> out;
  for (size_t row = 0; row < v.size() / stride; ++row) {
    const std::vector<float> framed = Framed(&v[row * stride], from, to, planes, tail, edge);
    out.insert(out.end(), framed.begin(), framed.end());
  }
  return out;
}

}  // namespace tengen::testing
