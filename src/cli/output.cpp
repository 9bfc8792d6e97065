#include "cli/output.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "render/table.h"
#include "trtlens/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace trtlens::cli {

void emit(const std::string& text, const std::string& path) {
  if (!path.empty() && path != "-") {
    write_file_atomic(path, text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void add_format_option(CLI::App* cmd, std::string& format, const std::vector<std::string>& more) {
  std::vector<std::string> all = {"text", "json", "markdown"};
  all.insert(all.end(), more.begin(), more.end());
  std::string help;
  for (size_t i = 0; i < all.size(); ++i) help += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i];
  cmd->add_option("--format", format, help)->check(CLI::IsMember(all))->capture_default_str();
}

bool color_for(const std::string& path) { return path.empty() && stdout_wants_color(); }

std::vector<bool> parse_choices(std::string_view option, std::string_view text, const std::vector<std::string>& choices) {
  std::vector<bool> out(choices.size(), false);
  for (std::string_view piece : split(text, ',')) {
    std::string word(piece);
    for (auto& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto it = std::find(choices.begin(), choices.end(), word);
    if (it != choices.end()) out[static_cast<size_t>(it - choices.begin())] = true;
    else if (word != "none" || text.find(',') != std::string_view::npos) {
      std::string list;
      for (size_t i = 0; i < choices.size(); ++i) list += (i ? ", " : "") + choices[i];
      throw UsageError(fmt::format("{} {}: expected none or one or more of {} (comma-separated)", option, piece, list));
    }
  }
  return out;
}

namespace {

std::vector<std::string> verdict_words() {
  std::vector<std::string> words;
  for (Verdict v : kAllVerdicts) {
    std::string w(verdict_name(v));
    for (auto& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    words.push_back(w);
  }
  return words;
}

}  // namespace

void add_fail_on_option(CLI::App* cmd, std::string& value) {
  cmd->add_option("--fail-on", value,
                  "exit 1 when a node has one of these verdicts: unsupported, unknown, fallback, implicit_cast, "
                  "supported (comma-separated), or none")
      ->capture_default_str();
}

std::vector<Verdict> fail_on_verdicts(const std::string& value) {
  std::vector<bool> picked = parse_choices("--fail-on", value, verdict_words());
  std::vector<Verdict> out;
  for (size_t i = 0; i < picked.size(); ++i)
    if (picked[i]) out.push_back(kAllVerdicts[i]);
  return out;
}

FailOn check_fail_on(const std::string& value) {
  std::vector<std::string> words = verdict_words();
  words.emplace_back("gpu_fallback");
  std::vector<bool> picked = parse_choices("--fail-on", value, words);
  FailOn out;
  for (size_t i = 0; i < kAllVerdicts.size(); ++i)
    if (picked[i]) out.verdicts.push_back(kAllVerdicts[i]);
  out.gpu_fallback = picked.back();
  return out;
}

double parse_share(std::string_view option, const std::string& text) {
  std::string_view s = text;
  if (s.ends_with('%')) s.remove_suffix(1);
  double v = -1;
  auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || err != std::errc() || end != s.data() + s.size() || !(v >= 0 && v <= 100))
    throw UsageError(fmt::format("{} {}: expected a percentage from 0 to 100", option, text));
  return v;
}

int parse_count(std::string_view option, const std::string& text) {
  int v = -1;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (err != std::errc() || end != text.data() + text.size() || v < 0)
    throw UsageError(fmt::format("{} {}: expected a whole number, 0 or more", option, text));
  return v;
}

Progress::Progress(std::string label) : label_(std::move(label)) {
  const char* env = std::getenv("TRTLENS_PROGRESS");
  on_ = isatty(STDERR_FILENO) && !(env && std::string_view(env) == "0");
}

Progress::~Progress() {
  if (shown_) std::fputs("\r\x1b[K", stderr);
}

void Progress::update(size_t done, size_t total) {
  if (!on_) return;
  auto now = std::chrono::steady_clock::now();
  if (shown_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  shown_ = true;
  std::fprintf(stderr, "\r\x1b[K%s: %zu/%zu", label_.c_str(), done, total);
  std::fflush(stderr);
}

void Progress::stage(std::string_view what) {
  if (!on_) return;
  shown_ = true;
  std::fprintf(stderr, "\r\x1b[K%s: %.*s", label_.c_str(), static_cast<int>(what.size()), what.data());
  std::fflush(stderr);
}

}  // namespace trtlens::cli
