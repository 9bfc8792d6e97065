// Writes the seed corpora of the fuzz targets from the project's own fixtures:
//   <out>/onnx_loader   models built here (operators, subgraphs, a local function,
//                       Q/DQ, weights) and the bad models of the loader tests;
//   <out>/engine_json   each tests/fixtures/engine graph.json, NUL, its profile.json;
//   <out>/engine_folder each tests/fixtures/engine plan's files (graph, profile, timing,
//                       both metadata files, a log), NUL-separated, as fuzz_engine_folder splits them;
//   <out>/plan_header   8.x and 10.x plan headers, with and without exporter metadata;
//   <out>/calib_cache   calibration caches of several releases and calibrators;
//   <out>/trtexec_log   the trtexec logs of tests/fixtures/engine/logs;
//   <out>/model_archive zips of model folders: nested folders, several models, a link;
//   <out>/output_writers names for the output writers, separated by the first byte: the hostile names of
//                       tests/cli/inert_outputs_test.cpp.
// Usage: fuzz_seeds OUT_DIR
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/bad_models.h"
#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/plan_bytes.h"
#include "support/zip_writer.h"

namespace fs = std::filesystem;
using namespace trtlens::test;

namespace {

void write_onnx_seeds(const std::string& dir) {
  {
    ModelBuilder mb(13);
    auto g = mb.graph();
    g.input("x", kFloat, {1, 3, 8, 8});
    g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.5f));
    auto& conv = g.node("Conv", {"x", "w"}, {"c"}, "Conv_0");
    attr_ints(conv, "pads", {1, 1, 1, 1});
    g.node("Relu", {"c"}, {"r"}, "Relu_1");
    g.node("Shape", {"r"}, {"s"}, "Shape_2");
    g.init_int64("shape", {2}, {1, -1});
    g.node("Reshape", {"r", "shape"}, {"f"}, "Reshape_3");
    auto& cast = g.node("Cast", {"f"}, {"h"}, "Cast_4");
    attr_int(cast, "to", kFloat16);
    g.output("h").output("s");
    mb.save(dir + "/conv_relu_reshape.onnx");
  }
  {
    ModelBuilder mb(13);
    mb.opset("local", 1);
    auto g = mb.graph();
    g.input("x", kFloat, {2, 2}).input("cond", kBool, {});
    auto& iff = g.node("If", {"cond"}, {"y"}, "If_0");
    auto then_b = attr_graph(iff, "then_branch", "then");
    then_b.node("Relu", {"x"}, {"t"});
    then_b.output("t");
    auto else_b = attr_graph(iff, "else_branch", "else");
    else_b.node("Neg", {"x"}, {"e"});
    else_b.output("e");
    g.node("MyFn", {"y"}, {"z"}, "call", "local");
    g.output("z");
    mb.add_function("MyFn", "local", {"a"}, {"b"});
    mb.function_node("MyFn", "local", "Sigmoid", {"a"}, {"b"});
    mb.save(dir + "/if_function.onnx");
  }
  {
    ModelBuilder mb(13);
    auto g = mb.graph();
    g.input("trip", kInt64, {}).input("cond", kBool, {}).input("v", kFloat, {4});
    auto& loop = g.node("Loop", {"trip", "cond", "v"}, {"out"}, "Loop_0");
    auto body = attr_graph(loop, "body", "body");
    body.input("i", kInt64, {}).input("c", kBool, {}).input("acc", kFloat, {4});
    body.node("Identity", {"c"}, {"c_out"});
    body.node("Add", {"acc", "acc"}, {"acc_out"});
    body.output("c_out", kBool, {}).output("acc_out", kFloat, {4});
    g.output("out");
    mb.save(dir + "/loop.onnx");
  }
  {
    ModelBuilder mb(13);
    auto g = mb.graph();
    g.input("x", kFloat, {1, 16});
    g.init_float("scale", {}, {0.1f});
    g.init_int64("zero", {}, {0});
    g.node("QuantizeLinear", {"x", "scale"}, {"q"}, "Q_0");
    g.node("DequantizeLinear", {"q", "scale"}, {"d"}, "DQ_1");
    g.init_float("wm", {16, 8}, std::vector<float>(128, 0.25f));
    g.node("MatMul", {"d", "wm"}, {"m"}, "MatMul_2");
    g.node("Softmax", {"m"}, {"y"}, "Softmax_3");
    g.output("y");
    mb.save(dir + "/qdq_matmul.onnx");
  }
  std::string bad = dir + "/bad";
  fs::create_directories(bad);
  for (const BadModel& b : bad_models()) {
    std::string made = b.make(bad + "/" + b.name);
    if (fs::is_regular_file(made)) fs::copy_file(made, dir + "/bad_" + b.name + ".onnx", fs::copy_options::overwrite_existing);
  }
  fs::remove_all(bad);
}

void write_engine_seeds(const std::string& dir) {
  fs::path fixtures = fs::path(TRTLENS_SOURCE_DIR) / "tests/fixtures/engine";
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(fixtures)) {
    std::string name = e.path().filename().string();
    const std::string suffix = ".graph.json";
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    fs::path profile = e.path().parent_path() / (name.substr(0, name.size() - suffix.size()) + ".profile.json");
    std::string seed = read_text(e.path().string());
    if (fs::is_regular_file(profile)) seed += '\0' + read_text(profile.string());
    write_text(dir + "/seed" + std::to_string(n++) + ".json", seed);
  }
}

// Plans of tests/fixtures/engine with their siblings; the first ones also carry a
// trtexec log of tests/fixtures/engine/logs.
void write_engine_folder_seeds(const std::string& dir) {
  fs::path fixtures = fs::path(TRTLENS_SOURCE_DIR) / "tests/fixtures/engine";
  const std::string logs[] = {read_text((fixtures / "logs/trtexec-8.6.log").string()),
                              read_text((fixtures / "logs/trtexec-10.3.log").string())};
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(fixtures)) {
    std::string name = e.path().filename().string();
    const std::string suffix = ".graph.json";
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::string prefix = e.path().string().substr(0, e.path().string().size() - suffix.size());
    std::string seed = read_text(e.path().string());
    for (const char* ext : {".profile.json", ".timing.json", ".profile.metadata.json", ".build.metadata.json"})
      seed += '\0' + (fs::is_regular_file(prefix + ext) ? read_text(prefix + ext) : std::string());
    seed += '\0' + (n < 2 ? logs[n] : std::string());
    write_text(dir + "/seed" + std::to_string(n++), seed);
  }
}

void write_plan_seeds(const std::string& dir) {
  write_text(dir + "/v10.plan", plan_10(10, 3, 0, 26));
  write_text(dir + "/v8.plan", plan_8(238));
  write_text(dir + "/v10_metadata.plan",
             with_metadata(R"({"tensorrt_version":"10.3.0","builder":{"fp16":true,"layers":[{"name":"a"}]}})",
                           plan_10(10, 3, 0, 26)));
  write_text(dir + "/v8_metadata.plan", with_metadata(R"({"version":"8.6.1"})", plan_8(205)));
}

void write_calib_seeds(const std::string& dir) {
  write_text(dir + "/entropy2_8601.cache", "TRT-8601-EntropyCalibration2\ninput: 3c010a14\nconv1: 3d8f5c29\nrelu: 3d0e5604\n");
  write_text(dir + "/minmax_7000.cache", "TRT-7000-MinMaxCalibration\nx: 3f800000\ny: 0\n");
  write_text(dir + "/legacy_100300.cache", "TRT-100300-LegacyCalibration\n(Unnamed Layer* 3) [Convolution]_output: 3c23d70a\n");
}

void write_archive_seeds(const std::string& dir) {
  const std::string model = ModelBuilder(13).bytes();
  write_zip(dir + "/folder.zip", {folder_entry("model/"), file_entry("model/model.onnx", model),
                                  folder_entry("model/weights/"), file_entry("model/weights/w.bin", "0123456789abcdef")});
  write_zip(dir + "/two_models.zip", {file_entry("a.onnx", model), file_entry("b.onnx", model)});
  write_zip(dir + "/link.zip", {file_entry("model.onnx", model), symlink_entry("w.bin", "../w.bin")});
}

void write_request_head_seeds(const std::string& dir) {
  write_text(dir + "/get.txt", "GET /api/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer trt_0\r\n\r\n");
  write_text(dir + "/login.txt", "POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n"
                                 "Content-Type: application/x-www-form-urlencoded\r\n\r\n");
  write_text(dir + "/upload.txt", "POST /api/projects/p/models/m/versions?filename=m.onnx HTTP/1.1\r\n"
                                  "Content-Length: 100\r\nRange: bytes=0-,1-\n\n");
  // Canonical heads with bodies and pipelined requests after them, and the spellings issue 33 smuggled.
  write_text(dir + "/upload_body.txt", "POST /p/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcdGET / HTTP/1.1\r\n\r\n");
  write_text(dir + "/canonical.txt", "GET /a%2Fb?c HTTP/1.0\r\nhost:x \r\nRange: bytes=0-9\r\nX:\t1\r\n\r\n");
  write_text(dir + "/fold.txt", "GET / HTTP/1.1\r\nHost: x\r\n Range: bytes=0-,0-\r\nContent-Length : 3\r\n\r\n");
  write_text(dir + "/cl_te.txt", "POST /login HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
}

// Names separated by their first byte (\x01 here, \n in the second), as fuzz_output_writers splits them.
void write_output_writer_seeds(const std::string& dir) {
  write_text(dir + "/hostile", std::string("\x01nc\xEF\xBF\xBE\x01nc\xEF\xBF\xBF\x01nul") + std::string(1, '\0') +
                                  "x\x01" "esc\x1b[31m\x01\xED\xA0\x80\x01<script>alert(1)</script>\x01@user\x01https://x"
                                  "\x01[a](b)\x01=cmd\x01+1\x01-1\x01@SUM(1)\x01\tlead\x01\rlead\x01www.x\x01" "a|b`c\\d\x01\x7f");
  write_text(dir + "/plain", "\nconv1\nlayer_0 + relu\n-0.5\n1e-05\nReformatting CopyNode for Input Tensor 0");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR\n");
    return 2;
  }
  std::string out = argv[1];
  for (const char* target : {"onnx_loader", "engine_json", "engine_folder", "plan_header", "calib_cache", "trtexec_log",
                             "model_archive", "request_head", "output_writers"})
    fs::create_directories(out + "/" + target);
  write_onnx_seeds(out + "/onnx_loader");
  write_engine_seeds(out + "/engine_json");
  write_engine_folder_seeds(out + "/engine_folder");
  write_plan_seeds(out + "/plan_header");
  write_calib_seeds(out + "/calib_cache");
  write_archive_seeds(out + "/model_archive");
  write_request_head_seeds(out + "/request_head");
  write_output_writer_seeds(out + "/output_writers");
  for (const auto& e : fs::directory_iterator(fs::path(TRTLENS_SOURCE_DIR) / "tests/fixtures/engine/logs"))
    fs::copy_file(e.path(), out + "/trtexec_log/" + e.path().filename().string(), fs::copy_options::overwrite_existing);
  return 0;
}
