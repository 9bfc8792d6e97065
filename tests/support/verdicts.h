#pragma once
// The verdict of one named node of a model at a release (FP32), for tests that judge built models.
#include <string>

#include "trtlens/compat.h"

namespace trtlens::test {

// Annotates `m` at `release` (KnowledgeBase::builtin()) and returns the verdict of the node named `node` in any
// graph; throws std::runtime_error when no node has that name.
NodeVerdict judge(const Model& m, const std::string& release, const std::string& node = "node");

}  // namespace trtlens::test
