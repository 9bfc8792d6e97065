// Names holding a newline or a terminal escape are printed escaped (\x0a,
// \x1b) in text, markdown and error lines: each stays on its line, and
// nothing from a model reaches the terminal as a control character.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/onnx_builder.h"
#include "support/paths.h"

namespace trtlens::test {
namespace {

const std::string kNode = "re\nlu\x1b[31m", kNodeShown = "re\\x0alu\\x1b[31m";
const std::string kTensor = "mid\x1b[31m\n", kTensorShown = "mid\\x1b[31m\\x0a";

// Relu (supported) then a custom op without a plugin (unsupported), with hostile names.
std::string hostile_model(const std::string& dir) {
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Relu", {"x"}, {kTensor}, kNode);
  g.node("Weird", {kTensor}, {"y"}, "custom\x1b]0;title\x07", "com.example");
  g.output("y", kFloat, {1, 4});
  return mb.save(dir + "/m.onnx");
}

// Bytes below 0x20 other than the line breaks the output is made of, and DEL.
bool has_raw_controls(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n') || u == 0x7f;
  });
}

// Whether one line of `out` holds both `a` and `b`.
bool on_one_line(const std::string& out, const std::string& a, const std::string& b) {
  for (size_t start = 0; start < out.size();) {
    size_t end = std::min(out.find('\n', start), out.size());
    std::string line = out.substr(start, end - start);
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return true;
    start = end + 1;
  }
  return false;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

TEST(ControlChars, TextAndMarkdownShowNamesEscapedOnTheirRow) {
  std::string model = hostile_model(temp_dir("ControlChars.Outputs"));
  struct Case {
    std::vector<std::string> args;
    std::string name, row_also;  // the escaped name, and what its row also holds
  };
  std::vector<Case> cases = {
      {{"check", model, "--trt", "10.0"}, kNodeShown, "Relu"},
      {{"check", model, "--trt", "10.0"}, "custom\\x1b]0;title\\x07", "UNSUPPORTED"},
      {{"check", model, "--trt", "10.0", "--format", "markdown"}, "re\\\\x0alu\\\\x1b\\[31m", "Relu"},  // md_escape: \\ and [ as \\\\ and \\[
      {{"partition", model, "--trt", "10.0"}, kTensorShown, "FLOAT"},
      {{"partition", model, "--trt", "10.0"}, "custom\\x1b]0;title\\x07", "UNSUPPORTED"},
      {{"partition", model, "--trt", "10.0", "--format", "markdown"}, "custom\\\\x1b\\]0;title\\\\x07", "UNSUPPORTED"},
      {{"matrix", model, "--diff", "8.6", "10.0"}, "", ""},
  };
  for (const Case& c : cases) {
    RunResult r = run_trtlens(c.args);
    std::string what = c.args[0] + " " + c.args.back();
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << what << ": " << r.err;
    EXPECT_FALSE(has_raw_controls(r.out)) << what << ":\n" << r.out;
    if (c.name.empty()) continue;
    EXPECT_TRUE(on_one_line(r.out, c.name, c.row_also)) << what << ": " << c.name << " not on a row with " << c.row_also
                                                       << ":\n" << r.out;
  }
}

TEST(ControlChars, AnErrorNamingATensorIsOneEscapedLine) {
  std::string dir = temp_dir("ControlChars.Error");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_external("w\n\x1b[31m", {1, 4}, "", 0, 16);  // external data without a location: bad input
  g.node("Add", {"x", "w\n\x1b[31m"}, {"y"});
  g.output("y", kFloat, {1, 4});
  std::string model = mb.save(dir + "/m.onnx");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"check", model, "--trt", "10.0"}, {"partition", model, "--trt", "10.0"}, {"matrix", model}}) {
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(one_line(r.err)) << args[0] << ": " << r.err;
    EXPECT_FALSE(has_raw_controls(r.err)) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err, "trtlens: " + model + ": tensor 'w\\x0a\\x1b[31m' says its data is external but names no location\n")
        << args[0];
  }
}

}  // namespace
}  // namespace trtlens::test
