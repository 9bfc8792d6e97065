// libFuzzer target: the zip extraction of `trtlens serve` uploads (a model
// folder with its external data) and the choice of the model inside.
// Input: the bytes of an uploaded .zip.
// Contract: InputError is the only way out, and nothing is ever written
// outside the destination folder; anything else is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "serve/model_archive.h"
#include "trtlens/error.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One scratch folder per process: <tmp>/fuzz-archive-PID/{up.zip, dest/}.
  static const fs::path root = fs::temp_directory_path() / ("fuzz-archive-" + std::to_string(::getpid()));
  const fs::path dest = root / "dest";
  fs::remove_all(root);
  fs::create_directories(dest);
  {
    std::ofstream(root / "up.zip", std::ios::binary).write(reinterpret_cast<const char*>(data), size);
  }
  try {
    auto files = trtlens::extract_model_archive(root / "up.zip", dest, "up.zip", {1 << 20, 64});
    (void)trtlens::find_main_model(files, "", "up.zip");
  } catch (const trtlens::InputError&) {
  }
  // Only up.zip and dest/ may be in the scratch folder.
  for (const auto& e : fs::directory_iterator(root))
    if (e.path().filename() != "up.zip" && e.path().filename() != "dest") std::abort();
  return 0;
}
