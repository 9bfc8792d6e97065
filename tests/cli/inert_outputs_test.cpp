// Outputs stay inert (issue 33): names from a model or an engine reach JUnit, SARIF, CSV and markdown as text their
// format allows and nothing downstream acts on: well-formed XML (checked by a real parser) without U+FFFE/U+FFFF or
// control characters, valid UTF-8 JSON, CSV cells that no spreadsheet reads as a formula and that hold no raw control
// byte, markdown without live HTML, @mentions or links. One helper per format (src/render/escape.h) serves every
// command that writes it; these tests run each command on the same hostile names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/onnx_builder.h"
#include "support/paths.h"

namespace trtlens::test {
namespace {

using json = nlohmann::json;

// The class of hostile names: XML non-characters, control characters (NUL, ESC, the rest of C0 but TAB/LF/CR, DEL),
// a lone surrogate as its (invalid) UTF-8 bytes, HTML, a mention, links, formula leads.
std::vector<std::string> hostile_names() {
  std::vector<std::string> names = {"nc\xEF\xBF\xBE" "fffe", "nc\xEF\xBF\xBF" "ffff", std::string("nul\0x", 5),
                                    "esc\x1b[31mred",    "surrogate\xED\xA0\x80x", "<script>alert(1)</script>",
                                    "@user",             "https://x",              "[a](b)",
                                    "=cmd|' /C calc'!A0", "+1",                    "-1",
                                    "@SUM(1+1)*cmd",     "\tlead-tab",             "\rlead-cr",
                                    "www.example.com",   "del\x7f"};
  for (int c = 1; c < 0x20; ++c)
    if (c != '\t' && c != '\n' && c != '\r' && c != 0x1b) names.push_back("c" + std::to_string(c) + std::string(1, char(c)));
  return names;
}

// Per hostile name a custom op W<i> of that name (UNSUPPORTED, each its own row: listed in JUnit failures, SARIF
// results and every markdown table) writing a tensor of that name, then a Relu (imports): partition's TensorRT parts
// take the hostile tensors as inputs.
std::string hostile_model(const std::string& dir) {
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  std::string prev = "x";
  const auto names = hostile_names();
  for (size_t i = 0; i < names.size(); ++i) {
    g.node("W" + std::to_string(i), {prev}, {names[i] + "#t"}, names[i], "com.example");
    prev = "u" + std::to_string(i);
    g.node("Relu", {names[i] + "#t"}, {prev}, "r" + std::to_string(i));
  }
  g.node("Relu", {prev}, {"y"}, "last");
  g.output("y", kFloat, {1, 4});
  return mb.save(dir + "/m.onnx");
}

// An engine folder whose layers carry the hostile names that JSON can hold (valid UTF-8; controls as \u escapes).
std::string hostile_engine(const std::string& dir) {
  json layers = json::array();
  std::string prev = "in";
  int i = 0;
  for (const std::string& name : hostile_names()) {
    if (name.find("\xED\xA0\x80") != std::string::npos) continue;  // not UTF-8: no JSON writer holds it
    std::string out = "t" + std::to_string(i++);
    auto t = [](const std::string& n) {
      return json{{"Name", n}, {"Dimensions", {1, 8, 4, 4}}, {"Format/Datatype", "Row major linear FP32"}};
    };
    layers.push_back({{"Name", name}, {"LayerType", "PointWiseV2"}, {"ParameterType", "PointWise"},
                      {"Inputs", {t(prev)}}, {"Outputs", {t(out)}}, {"TacticName", "=HYPERLINK(\"http://x\")"}});
    prev = out;
  }
  std::ofstream(dir + "/e.onnx.engine.graph.json") << json{{"Layers", layers}, {"Bindings", {"in", prev}}}.dump();
  return dir + "/e.onnx.engine";
}

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    if (c == 0xED && static_cast<unsigned char>(s[i + 1]) >= 0xA0) return false;  // a surrogate
    i += n;
  }
  return true;
}

// A byte below 0x20 other than the line ends the format is made of, or DEL.
bool has_raw_controls(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n' && c != '\r') || u == 0x7f;
  });
}

// Parsed by Python's expat (xml.dom.minidom), which refuses what XML 1.0 does not allow; "" when well-formed.
std::string xml_error(const std::string& dir, const std::string& xml) {
  write_text(dir + "/out.xml", xml);
  std::string cmd = "/usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' '" + dir +
                    "/out.xml' > '" + dir + "/xml.err' 2>&1";
  return std::system(cmd.c_str()) == 0 ? "" : read_text(dir + "/xml.err");
}

// Where `needle` occurs in `out` unescaped (not right after a backslash); npos when nowhere.
size_t live_at(const std::string& out, const std::string& needle) {
  for (size_t at = out.find(needle); at != std::string::npos; at = out.find(needle, at + 1))
    if (at == 0 || out[at - 1] != '\\') return at;
  return std::string::npos;
}

// `md` without its code spans (`...`, an unescaped backtick to the next), where nothing is markup.
std::string without_code_spans(const std::string& md) {
  std::string out;
  bool in_span = false;
  for (size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '`' && (i == 0 || md[i - 1] != '\\')) in_span = !in_span;
    else if (!in_span) out += md[i];
  }
  return out;
}

void expect_inert_markdown(const std::string& out, const std::string& what) {
  EXPECT_TRUE(valid_utf8(out)) << what;
  EXPECT_FALSE(has_raw_controls(out)) << what << ":\n" << out;
  const std::string text = without_code_spans(out);
  for (const char* live : {"<script", "</script", "@user", "@SUM", "https://x", "[a](b)", "www.example"})
    EXPECT_EQ(live_at(text, live), std::string::npos) << what << " holds " << live << ":\n" << out;
}

// RFC 4180 cells of `csv` (quoted cells may hold , and "").
std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < csv.size(); ++i) {
    char c = csv[i];
    if (quoted) {
      if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') rows.back().back() += '"', ++i;
      else if (c == '"') quoted = false;
      else rows.back().back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') {
      rows.emplace_back(1);
      ++i;
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

TEST(InertOutputs, JunitIsWellFormedXmlForEveryWriter) {
  std::string dir = temp_dir("InertOutputs.Junit");
  std::string model = hostile_model(dir);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"check", model, "--trt", "10.0", "--format", "junit"},
           {"matrix", model, "--format", "junit"},
           {"matrix", model, "--format", "junit", "--target", "orin-dla", "--precision", "fp16"}}) {
    RunResult r = run_trtlens(args);
    std::string what = args[0] + " " + args.back();
    EXPECT_EQ(r.exit_code, 1) << what << r.err;
    EXPECT_TRUE(valid_utf8(r.out)) << what;
    EXPECT_EQ(xml_error(dir, r.out), "") << what;
    EXPECT_FALSE(has_raw_controls(r.out)) << what;
    EXPECT_NE(r.out.find("&lt;script&gt;"), std::string::npos) << what;  // the name, as text
    EXPECT_NE(r.out.find("nc\\uFFFEfffe"), std::string::npos) << what;   // said, not dropped
  }
}

TEST(InertOutputs, SarifIsValidUtf8Json) {
  std::string dir = temp_dir("InertOutputs.Sarif");
  RunResult r = run_trtlens({"check", hostile_model(dir), "--trt", "10.0", "--format", "sarif"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(valid_utf8(r.out));
  // JSON escapes C0 controls (ESC as \u001b); DEL it may carry raw.
  EXPECT_FALSE(std::any_of(r.out.begin(), r.out.end(), [](char c) { return c != '\n' && static_cast<unsigned char>(c) < 0x20; }));
  json doc = json::parse(r.out);  // nlohmann refuses invalid UTF-8 in strings
  std::string names;
  for (const auto& res : doc["runs"][0]["results"])
    names += res["locations"][0]["logicalLocations"][0]["name"].get<std::string>() + "\n";
  EXPECT_NE(names.find("<script>alert(1)</script>"), std::string::npos) << names;
  EXPECT_NE(names.find("surrogate\xEF\xBF\xBD"), std::string::npos) << names;  // invalid bytes: U+FFFD each
}

TEST(InertOutputs, MarkdownOfEveryCommandKeepsNamesAsText) {
  std::string dir = temp_dir("InertOutputs.Markdown");
  std::string model = hostile_model(dir);
  std::string engine = hostile_engine(dir);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"check", model, "--trt", "10.0", "--format", "markdown"},
           {"matrix", model, "--diff", "7.0", "10.0", "--format", "markdown"},
           {"partition", model, "--trt", "10.0", "--format", "markdown"},
           {"engine", "summary", engine, "--format", "markdown"},
           {"engine", "layers", engine, "--format", "markdown"},
           {"engine", "lint", engine, "--format", "markdown"},
           {"engine", "compare", engine, engine, "--format", "markdown"}}) {
    RunResult r = run_trtlens(args);
    std::string what = args[0] + " " + args[1];
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << what << r.err;
    expect_inert_markdown(r.out, what);
  }
  // Escaped, not dropped: the name reads the same once rendered.
  RunResult check = run_trtlens({"check", model, "--trt", "10.0", "--format", "markdown"});
  EXPECT_NE(check.out.find("\\<script\\>alert(1)\\</script\\>"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("\\[a\\](b)"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("@\xE2\x81\xA0user"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("https:\xE2\x81\xA0//x"), std::string::npos) << check.out;
}

TEST(InertOutputs, EngineCsvHasNoFormulaCellsAndNoRawControls) {
  std::string dir = temp_dir("InertOutputs.Csv");
  std::string engine = hostile_engine(dir);
  for (const char* sub : {"summary", "layers", "lint", "compare"}) {
    std::vector<std::string> args = {"engine", sub, engine, "--format", "csv"};
    if (std::string(sub) == "compare") args.insert(args.begin() + 3, engine);
    RunResult r = run_trtlens(args);
    ASSERT_EQ(r.exit_code, 0) << sub << r.err;
    EXPECT_TRUE(valid_utf8(r.out)) << sub;
    EXPECT_FALSE(has_raw_controls(r.out)) << sub << ":\n" << r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << sub;
    size_t cells = 0;
    for (const auto& row : csv_rows(r.out))
      for (const std::string& cell : row) {
        ++cells;
        if (cell.empty()) continue;
        bool number = cell.find_first_not_of("-+0123456789.eE") == std::string::npos && cell != "-" && cell != "+";
        EXPECT_TRUE(number || std::string("=+-@\t\r").find(cell[0]) == std::string::npos)
            << sub << ": formula cell " << cell;
      }
    EXPECT_GT(cells, std::string(sub) == "lint" ? 4u : 10u) << sub;
    if (std::string(sub) == "layers") {
      EXPECT_NE(r.out.find("'=cmd"), std::string::npos) << r.out;  // neutralised, not dropped
      EXPECT_NE(r.out.find("'-1"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("\"'=HYPERLINK(\"\"http://x\"\")\""), std::string::npos) << r.out;
    }
  }
}

}  // namespace
}  // namespace trtlens::test
