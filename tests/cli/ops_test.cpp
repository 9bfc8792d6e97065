// `trtlens ops`, run as a user would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/paths.h"

namespace trtlens::test {
namespace {

using nlohmann::json;

// A table row of text output: the line that starts with `first` followed by spaces.
std::string row(const std::string& out, const std::string& first) {
  size_t pos = 0;
  while ((pos = out.find(first + " ", pos)) != std::string::npos) {
    if (pos == 0 || out[pos - 1] == '\n') return out.substr(pos, out.find('\n', pos) - pos);
    ++pos;
  }
  return "";
}

TEST(OpsCli, OneOpPerRelease) {
  RunResult r = run_trtlens({"ops", "Reshape"}, {"NO_COLOR=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string r86 = row(r.out, "8.6");
  EXPECT_NE(r86.find("Y"), std::string::npos) << r86;
  EXPECT_NE(r86.find("FP32 FP16 INT32 INT8 BOOL"), std::string::npos) << r86;
  EXPECT_NE(row(r.out, "11.1"), "");
  EXPECT_NE(row(r.out, "5.1"), "");
  // 5.1/6.0 only took a constant shape.
  EXPECT_NE(r.out.find("input 1 (shape) is a constant"), std::string::npos);  // rules read in words
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos);  // NO_COLOR, and not a terminal anyway
}

TEST(OpsCli, OneOpAtOneRelease) {
  RunResult r = run_trtlens({"ops", "BatchNormalization", "--trt", "8.6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ONNX-TensorRT support matrix, release 8.6"), std::string::npos) << r.out;
  std::string types = row(r.out, "types");
  EXPECT_NE(types.find("FP32 FP16"), std::string::npos) << types;
  EXPECT_EQ(types.find("INT8"), std::string::npos) << types;
  EXPECT_NE(r.out.find("attribute training_mode is 0 (0 when absent)"), std::string::npos) << r.out;
  // Only the one release.
  EXPECT_EQ(r.out.find("8.5"), std::string::npos) << r.out;
}

TEST(OpsCli, AttentionRulesYieldToTheImporterCodeOfTheSameRelease) {
  // 10.15's and 11.0's importers reshape a 3-D Q/K/V and unsqueeze a mask of rank < 4 (AttentionHelpers.cpp);
  // their static checkers refuse softcap and softmax_precision. 10.14 stores no importer body: the table's rank 4.
  for (const char* release : {"10.15", "11.0"}) {
    RunResult r = run_trtlens({"ops", "Attention", "--trt", release});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("input 0 (Q) has rank one of 3, 4"), std::string::npos) << release << "\n" << r.out;
    EXPECT_NE(r.out.find("input 3 (attn_mask) has rank at most 4"), std::string::npos) << release << "\n" << r.out;
    EXPECT_NE(r.out.find("attribute softmax_precision is not set"), std::string::npos) << release << "\n" << r.out;
    EXPECT_NE(r.out.find("attribute softcap is 0"), std::string::npos) << release << "\n" << r.out;
    EXPECT_NE(r.out.find("yields to the importer's rank(0:Q,3|4)"), std::string::npos) << release << "\n" << r.out;
  }
  RunResult r = run_trtlens({"ops", "Attention", "--trt", "10.14"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("input 0 (Q) has rank 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("attribute softmax_precision is not set"), std::string::npos) << r.out;
}

TEST(OpsCli, ReleaseForms) {
  for (const char* rel : {"8.6", "8.6.1", "8.6.1.6"}) {
    RunResult r = run_trtlens({"ops", "Reshape", "--trt", rel});
    ASSERT_EQ(r.exit_code, 0) << rel << ": " << r.err;
    EXPECT_NE(r.out.find("Reshape at TensorRT 8.6 "), std::string::npos) << r.out;
    EXPECT_NE(row(r.out, "types").find("FP32 FP16 INT32 INT8 BOOL"), std::string::npos) << r.out;
  }
  RunResult r = run_trtlens({"ops", "Reshape", "--trt", "10.13.3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TensorRT 10.13 changelog (10.1 table carried forward)"), std::string::npos) << r.out;
}

TEST(OpsCli, UnknownReleaseListsKnownOnes) {
  RunResult r = run_trtlens({"ops", "Reshape", "--trt", "8.7"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("unknown TensorRT release '8.7'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("8.5, 8.6, 9.0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("11.1"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
}

TEST(OpsCli, UnknownOpExitsTwoWithASuggestion) {
  RunResult r = run_trtlens({"ops", "Resise"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown op 'Resise'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Resize"), std::string::npos) << r.err;
  RunResult none = run_trtlens({"ops", "TotallyMadeUpOperator"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("trtlens ops"), std::string::npos) << none.err;
}

TEST(OpsCli, OpNamesAreMatchedWithoutCase) {
  RunResult r = run_trtlens({"ops", "reshape", "--trt", "8.6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Reshape at TensorRT 8.6"), std::string::npos) << r.out;
}

TEST(OpsCli, OpNotListedAtThatRelease) {
  RunResult r = run_trtlens({"ops", "Swish", "--trt", "8.6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not listed in the 8.6 table; supported from 11.0"), std::string::npos) << r.out;
  RunResult n = run_trtlens({"ops", "HannWindow", "--trt", "9.0"});
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_NE(row(n.out, "status").find("N"), std::string::npos) << n.out;
  EXPECT_NE(n.out.find("supported from 10.4"), std::string::npos) << n.out;
}

TEST(OpsCli, EveryOpAtOneRelease) {
  RunResult r = run_trtlens({"ops", "--trt", "8.6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string reshape = row(r.out, "Reshape");
  EXPECT_NE(reshape.find("FP32 FP16 INT32 INT8 BOOL"), std::string::npos) << reshape;
  std::string bn = row(r.out, "BatchNormalization");
  EXPECT_NE(bn.find("FP32 FP16"), std::string::npos) << bn;
  EXPECT_NE(row(r.out, "InstanceNormalization").find("PLUGIN"), std::string::npos);
  EXPECT_EQ(row(r.out, "Swish"), "");  // not in the 8.6 table
  EXPECT_NE(r.out.find("opsets up to 17"), std::string::npos) << r.out;
}

TEST(OpsCli, EveryOpAtEveryRelease) {
  RunResult r = run_trtlens({"ops"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(row(r.out, "HannWindow").find("10.4-11.5"), std::string::npos) << row(r.out, "HannWindow");
  EXPECT_NE(row(r.out, "Swish").find("11.0-11.5"), std::string::npos);
  EXPECT_NE(row(r.out, "Conv").find("5.1-11.5"), std::string::npos);
  // The newest release is the default, and its date is said.
  EXPECT_NE(r.out.find("the newest, 11.5, from 2026-11-18"), std::string::npos) << r.out;
}

TEST(OpsCli, JsonForOneOp) {
  RunResult r = run_trtlens({"ops", "Reshape", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["op"], "Reshape");
  ASSERT_EQ(j["releases"].size(), 37u);
  json r86;
  for (const auto& rel : j["releases"])
    if (rel["release"] == "8.6") r86 = rel;
  ASSERT_FALSE(r86.is_null());
  EXPECT_EQ(r86["status"], "Y");
  EXPECT_EQ(r86["types"], (json{"FP32", "FP16", "INT32", "INT8", "BOOL"}));
  EXPECT_EQ(r86["listed"], true);
  EXPECT_EQ(r86["citation"], "ONNX-TensorRT support matrix, release 8.6");
}

TEST(OpsCli, JsonForOneRelease) {
  RunResult r = run_trtlens({"ops", "--trt", "11.1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["releases"].size(), 1u);
  const json& rel = j["releases"][0];
  EXPECT_EQ(rel["release"], "11.1");
  EXPECT_EQ(rel["basis"], "table");  // its own onnx-tensorrt operators.md (data/support)
  EXPECT_EQ(rel["opset_max"], 24);
  EXPECT_EQ(rel["opset_max_is_lower_bound"], false);
  bool swish = false;
  for (const auto& op : rel["ops"])
    if (op["op"] == "Swish") swish = op["status"] == "Y";
  EXPECT_TRUE(swish);
}

TEST(OpsCli, Markdown) {
  RunResult r = run_trtlens({"ops", "Resize", "--trt", "8.6", "--format", "markdown"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| field | value |"), std::string::npos) << r.out;
  // Rules read in words (the rule language's '|' sets are for JSON).
  EXPECT_NE(r.out.find("attribute mode is one of nearest, linear, cubic (nearest when absent)"), std::string::npos)
      << r.out;
}

// Runs `trtlens ops Reshape --trt 8.6` on a pseudo-terminal (util-linux `script`).
std::string on_terminal(const std::string& env) {
  std::string dir = temp_dir("OpsCliTerminal");
  std::string cmd = env + " script -qec '" + std::string(TRTLENS_BIN) + " ops Reshape --trt 8.6' /dev/null > '" + dir +
                    "/out' 2>&1 < /dev/null";
  if (std::system(cmd.c_str()) != 0) return "";
  std::ifstream in(dir + "/out");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OpsCli, ColourOnATerminalUnlessNoColor) {
  if (std::system("command -v script > /dev/null 2>&1") != 0) GTEST_SKIP() << "script (util-linux) is not installed";
  std::string coloured = on_terminal("env -u NO_COLOR");
  if (coloured.empty()) GTEST_SKIP() << "no pseudo-terminal available";
  EXPECT_NE(coloured.find("\x1b[32mY\x1b[0m"), std::string::npos) << coloured;
  std::string plain = on_terminal("NO_COLOR=1");
  EXPECT_NE(plain.find("FP32 FP16 INT32 INT8 BOOL"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("\x1b["), std::string::npos) << plain;
}

TEST(OpsCli, BadFormatIsAUsageError) {
  RunResult r = run_trtlens({"ops", "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

}  // namespace
}  // namespace trtlens::test

namespace trtlens::test {
namespace {

TEST(OpsCli, PluginsOfARelease) {
  RunResult r = run_trtlens({"ops", "--plugins", "--trt", "10.16"}, {"NO_COLOR=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(row(r.out, "EfficientNMS_TRT"), "") << r.out;
  EXPECT_NE(row(r.out, "NMS_TRT"), "");
  // 11.0 removed the standalone NMS plugin; EfficientNMS stays.
  RunResult r11 = run_trtlens({"ops", "--plugins", "--trt", "11.0", "--format", "json"});
  ASSERT_EQ(r11.exit_code, 0) << r11.err;
  json j = json::parse(r11.out);
  std::vector<std::string> names;
  for (const auto& p : j["plugins"]) names.push_back(p["op"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "EfficientNMS_TRT"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "NMS_TRT"), names.end());
  EXPECT_EQ(j["plugin_fallback"]["value"], "registry_domain");
  // 7.0's importer has no fallback to the registry: nothing to list.
  RunResult r70 = run_trtlens({"ops", "--plugins", "--trt", "7.0", "--format", "json"});
  EXPECT_EQ(json::parse(r70.out)["plugins"].size(), 0u);
}

TEST(OpsCli, PluginsWithAnOpIsAUsageError) {
  RunResult r = run_trtlens({"ops", "Relu", "--plugins"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plugins"), std::string::npos) << r.err;
}

// A model whose one node is a plugin the user ships, MyNms_TRT, with plugin_version "2".
std::string user_plugin_model(const std::string& dir) {
  std::string path = dir + "/user_plugin.onnx";
  std::string py =
      "import onnx\nfrom onnx import helper, TensorProto as T\n"
      "n = helper.make_node('MyNms_TRT', ['b'], ['o'], name='nms', plugin_version='2')\n"
      "g = helper.make_graph([n], 'g', [helper.make_tensor_value_info('b', T.FLOAT, [1, 4])],"
      " [helper.make_tensor_value_info('o', T.FLOAT, [1, 4])])\n"
      "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), '" + path + "')\n";
  std::ofstream(dir + "/make.py") << py;
  if (std::system(("/usr/bin/python3 '" + dir + "/make.py' > /dev/null 2>&1").c_str()) != 0) return "";
  return path;
}

TEST(CheckCli, DeclaredPluginImportsAndMalformedDeclarationsAreUsageErrors) {
  std::string model = user_plugin_model(temp_dir("user_plugin"));
  if (model.empty()) GTEST_SKIP() << "python3-onnx is not installed";
  RunResult plain = run_trtlens({"check", model, "--trt", "10.16"});
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  EXPECT_NE(plain.out.find("--plugin MyNms_TRT"), std::string::npos) << plain.out;  // the hint says how
  RunResult declared = run_trtlens({"check", model, "--trt", "10.16", "--plugin", "MyNms_TRT:2"});
  EXPECT_EQ(declared.exit_code, 0) << declared.out << declared.err;
  RunResult other = run_trtlens({"check", model, "--trt", "10.16", "--plugin", "MyNms_TRT:1"});
  EXPECT_EQ(other.exit_code, 1);
  for (const char* bad : {":1", "MyNms_TRT:", "MyNms_TRT:1|2"}) {
    RunResult r = run_trtlens({"check", model, "--plugin", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("--plugin"), std::string::npos) << r.err;
  }
}

// 5.1 - 7.0 import no op_type through the plugin registry (policy plugin_fallback "no"): --plugin would change
// nothing there, so check, partition, report and matrix --diff refuse it in one line naming the release and the
// first release that does look plugins up; 7.1 honours it.
TEST(CheckCli, PluginOnAReleaseWithoutRegistryFallbackIsAUsageError) {
  std::string dir = temp_dir("user_plugin_70");
  std::string model = user_plugin_model(dir);
  if (model.empty()) GTEST_SKIP() << "python3-onnx is not installed";
  std::vector<std::vector<std::string>> runs = {
      {"check", model, "--trt", "7.0", "--plugin", "MyNms_TRT:2"},
      {"check", model, "--trt", "5.1", "--plugin", "MyNms_TRT"},
      {"partition", model, "--trt", "7.0", "--plugin", "MyNms_TRT", "-o", dir + "/parts"},
      {"report", model, "--trt", "6.0", "--plugin", "MyNms_TRT", "-o", dir + "/r.html"},
      {"matrix", model, "--diff", "7.0", "7.1", "--plugin", "MyNms_TRT"}};
  for (const auto& args : runs) {
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[3] << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("--plugin MyNms_TRT: TensorRT "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("never looks an op_type up in the plugin registry"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ModelImporter.cpp"), std::string::npos) << r.err;  // the policy's source
    EXPECT_NE(r.err.find("it does from TensorRT 7.1"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/parts"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.html"));
  RunResult r71 = run_trtlens({"check", model, "--trt", "7.1", "--plugin", "MyNms_TRT:2"});
  EXPECT_EQ(r71.exit_code, 0) << r71.out << r71.err;
  RunResult plain70 = run_trtlens({"check", model, "--trt", "7.0"});
  EXPECT_EQ(plain70.exit_code, 1) << plain70.err;  // no --plugin: judged as before, the node unsupported
}

}  // namespace
}  // namespace trtlens::test

// ModelOpt's block-FP8 ops at 10.15 (issue 32): its own onnxOpCheckers.cpp registers them (:292-296), so they import
// (were "not listed in the 10.15 table", i.e. a plugin the user had to supply); 10.14 stays without them.
TEST(OpsCli, ModelOptBlockFp8OpsImportAt1015ByItsOwnCheckers) {
  for (const char* op : {"TRT_DynamicQuantize", "TRT_BlockQuantize", "TRT_BlockDequantize"}) {
    trtlens::test::RunResult r = trtlens::test::run_trtlens({"ops", op, "--trt", "10.15"}, {"NO_COLOR=1"});
    ASSERT_EQ(r.exit_code, 0) << op << r.err;
    EXPECT_EQ(r.out.find("not listed"), std::string::npos) << op << "\n" << r.out;
    EXPECT_NE(r.out.find("10.15-GA onnxOpCheckers.cpp:29"), std::string::npos) << op << "\n" << r.out;
    trtlens::test::RunResult old = trtlens::test::run_trtlens({"ops", op, "--trt", "10.14"}, {"NO_COLOR=1"});
    EXPECT_NE(old.out.find("not listed"), std::string::npos) << op << "\n" << old.out;
  }
}
