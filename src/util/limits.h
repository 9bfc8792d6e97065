// Limits on hostile input, shared by every reader so that the documented limit
// is one number (docs: README "Limits").
#pragma once

namespace trtlens {

// Deepest nesting a reader follows: protobuf messages inside messages, ONNX
// subgraphs inside nodes, JSON arrays/objects inside each other (the
// document's own outer object or array counts as level 1). Real files stay
// below 10; anything deeper is refused as bad input rather than walked, so no
// walk recurses without bound.
constexpr int kMaxNestingDepth = 64;

}  // namespace trtlens
