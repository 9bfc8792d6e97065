// libFuzzer target: an engine folder read as `engine summary` reads it
// (find_plan_files, load_plan: graph.json, profile.json, timing.json, both
// metadata files and a trtexec log beside the plan), then analyze_engine
// (summary and every linter) and the summary and lint writers.
// Input: the files' texts separated by NUL bytes, in the order of kFiles; a
// part that is absent or empty leaves that file out (graph.json is always written).
// Contract: InputError is the only way out; anything else is a finding.
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "render/engine_render.h"
#include "trtlens/analysis.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"

namespace {

constexpr const char* kFiles[] = {".graph.json", ".profile.json", ".timing.json", ".profile.metadata.json",
                                  ".build.metadata.json", ".build.log"};

void remove_folder();

// One folder per fuzzing process, rewritten for each input and removed at exit.
const std::string& folder() {
  static const std::string dir = [] {
    std::string t = (std::filesystem::temp_directory_path() / "fuzz_engine_folder.XXXXXX").string();
    if (!::mkdtemp(t.data())) std::abort();
    return t;
  }();
  static const bool registered = std::atexit(remove_folder) == 0;  // after `dir`: runs before its destructor
  (void)registered;
  return dir;
}

void remove_folder() {
  std::error_code ec;
  std::filesystem::remove_all(folder(), ec);
}

void write(const std::string& path, std::string_view text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string prefix = folder() + "/e";
  for (size_t i = 0; i < std::size(kFiles); ++i) {
    size_t nul = input.find('\0');
    std::string_view part = input.substr(0, nul);
    input = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
    std::string path = prefix + kFiles[i];
    std::filesystem::remove(path);
    if (i == 0 || !part.empty()) write(path, part);
  }
  try {
    trtlens::EnginePlan plan = trtlens::load_plan(trtlens::find_plan_files(prefix));
    trtlens::EngineAnalysis e = trtlens::analyze_engine(plan, nullptr, trtlens::KnowledgeBase::builtin());
    for (auto format : {trtlens::OutputFormat::Text, trtlens::OutputFormat::Json}) {
      (void)trtlens::render_engine_summary(plan, e.summary, &e.findings, format, false);
      (void)trtlens::render_engine_lint(plan, e.findings, format, false);
    }
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
