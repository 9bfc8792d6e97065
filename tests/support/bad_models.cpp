#include "support/bad_models.h"

#include "support/onnx_builder.h"
#include "support/paths.h"

namespace trtlens::test {
namespace {

std::string external_model(const std::string& dir, const std::string& location) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_external("w", {4, 4}, location, 0, 64);
  g.node("MatMul", {"x", "w"}, {"y"});
  g.output("y");
  return mb.save(dir + "/m.onnx");
}

std::string empty(const std::string& d) {
  write_text(d + "/m.onnx", "");
  return d + "/m.onnx";
}

std::string random_bytes(const std::string& d) {
  std::string junk;
  uint32_t s = 12345;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>((s = s * 1103515245 + 12345) >> 16));
  write_text(d + "/m.onnx", junk);
  return d + "/m.onnx";
}

std::string truncated(const std::string& d) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 256});
  g.init_float("w", {256, 256}, std::vector<float>(256 * 256, 1.0f));
  g.node("MatMul", {"x", "w"}, {"y"});
  g.output("y");
  std::string b = mb.bytes();
  write_text(d + "/m.onnx", b.substr(0, b.size() / 2));
  return d + "/m.onnx";
}

std::string cycle(const std::string& d) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1});
  g.node("Add", {"x", "b"}, {"a"}, "first");
  g.node("Relu", {"a"}, {"b"}, "second");
  g.output("b");
  return mb.save(d + "/m.onnx");
}

std::string unproduced(const std::string& d) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1});
  g.node("Add", {"x", "ghost"}, {"y"}, "add");
  g.output("y");
  return mb.save(d + "/m.onnx");
}

// Fuzz finding F01: a Scan without its body crashed libonnx shape inference.
std::string scan_without_body(const std::string& d) {
  ModelBuilder mb(11);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3});
  g.node("Scan", {"x"}, {"y"}, "scan");
  g.output("y");
  return mb.save(d + "/m.onnx");
}

// Fuzz findings F02/F03: subgraphs nested far past the nesting limit (each level is
// a Node, an Attribute and a Graph message).
std::string deep_nesting(const std::string& d) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("c", kBool, {});
  onnx::NodeProto* n = &g.node("If", {"c"}, {"y"}, "if0");
  for (int level = 1; level < 40; ++level) {
    GraphBuilder then_branch = attr_graph(*n, "then_branch", "g" + std::to_string(level));
    n = &then_branch.node("If", {"c"}, {"y" + std::to_string(level)}, "if" + std::to_string(level));
  }
  g.output("y");
  return mb.save(d + "/m.onnx");
}

}  // namespace

const std::vector<BadModel>& bad_models() {
  static const std::vector<BadModel> list = {
      {"empty", "empty file", empty},
      {"random", "not an ONNX model", random_bytes},
      {"truncated", "truncated", truncated},
      {"missing_external", "not found", [](const std::string& d) { return external_model(d, "w.bin"); }},
      {"escaping_external", "escapes", [](const std::string& d) { return external_model(d, "../outside.bin"); }},
      {"absolute_external", "absolute", [](const std::string& d) { return external_model(d, "/etc/passwd"); }},
      {"cycle", "cycle", cycle},
      {"unproduced_input", "'ghost'", unproduced},
      {"scan_without_body", "no 'body' graph attribute", scan_without_body},
      {"deep_nesting", "nested deeper than 64 levels", deep_nesting},
  };
  return list;
}

}  // namespace trtlens::test
