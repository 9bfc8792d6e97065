// libFuzzer target: the ONNX loader (wire walk, libonnx shape inference behind
// our structural guards, our own propagation) and check's annotator and JSON
// writer on whatever loads. Input: the bytes of a .onnx file.
// Contract: InputError (bad input, exit 2 in the CLI) is the only way out;
// anything else (another exception, a sanitizer report, a crash) is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "render/check_output.h"
#include "trtlens/compat.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"

namespace {
// The loader memory-maps a path, so each input goes through one file per process.
const std::string& input_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp ? tmp : "/tmp") + "/trtlens-fuzz-onnx-" + std::to_string(::getpid()) + ".onnx";
  }();
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = input_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    trtlens::Model model = trtlens::load_model(path);
    const trtlens::KnowledgeBase& kb = trtlens::KnowledgeBase::builtin();
    // Two releases whose policies differ most (builder flags vs strongly typed Q/DQ).
    for (const char* release : {"8.6", "10.1"}) {
      trtlens::Annotations a = trtlens::annotate(model, kb, kb.resolve(release), trtlens::Precision::FP16);
      (void)trtlens::check_json(model, a, kb);
    }
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
