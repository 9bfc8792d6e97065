// Where a command's output goes (stdout, or a file written all-or-nothing), the
// --format and --fail-on options, and progress on a terminal.
#pragma once
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "trtlens/compat.h"

namespace CLI {
class App;
}

namespace trtlens::cli {

// Prints `text` to stdout, or writes it to `path` (write_file_atomic) when
// `path` is neither empty nor "-". Throws InputError when the file cannot be written.
void emit(const std::string& text, const std::string& path);

// Adds --format to `cmd`: text, json or markdown (`format` holds the default),
// then the formats of `more` ("sarif", "junit").
void add_format_option(CLI::App* cmd, std::string& format, const std::vector<std::string>& more = {});

// Colour for text output going to stdout (a terminal, NO_COLOR unset).
bool color_for(const std::string& path);

// The words of `choices` that `text` names: comma-separated, any case, "none" for
// no word. One flag per choice. Throws UsageError("OPTION WORD: expected none or
// one or more of a, b, c") for any other word. `engine lint --fail-on` and the
// --fail-on of check, matrix and partition parse with it.
std::vector<bool> parse_choices(std::string_view option, std::string_view text, const std::vector<std::string>& choices);

// --fail-on VERDICT[,...] of check, matrix and partition (default "unsupported");
// fail_on_verdicts parses its value (parse_choices over the verdict names).
void add_fail_on_option(CLI::App* cmd, std::string& value);
std::vector<Verdict> fail_on_verdicts(const std::string& value);
// check's --fail-on: the verdict words and `gpu_fallback` (a node a DLA target places on the GPU). Throws
// UsageError as fail_on_verdicts, naming gpu_fallback among the choices.
struct FailOn {
  std::vector<Verdict> verdicts;
  bool gpu_fallback = false;
};
FailOn check_fail_on(const std::string& value);
// The value of a percentage option ("50", "50%"; 0 to 100: --min-dla-share) and of a count option (0 or more:
// --max-dla-loadables). Throws UsageError("--min-dla-share abc: expected a percentage from 0 to 100").
double parse_share(std::string_view option, const std::string& text);
int parse_count(std::string_view option, const std::string& text);

// Prints "LABEL: DONE/TOTAL" (or a stage) on one rewritten stderr line while a long run works,
// only when stderr is a terminal (never into a pipe or a log file), at most every
// 100 ms; the destructor clears the line. TRTLENS_PROGRESS=0 turns it off.
class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(size_t done, size_t total);
  // "LABEL: WHAT" for a step without a count.
  void stage(std::string_view what);
  bool on() const { return on_; }

 private:
  std::string label_;
  bool on_ = false, shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace trtlens::cli
