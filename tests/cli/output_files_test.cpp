// -o writes only a regular file or a new path, all-or-nothing: a device, FIFO,
// socket, folder, symbolic link or an input of the same run is refused with one
// line and exit 2 and left as it was; temporaries never outlive a run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "support/onnx_builder.h"
#include "support/paths.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;

std::string relu_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Relu", {"x"}, {"y"}, "relu");
  g.output("y", kFloat, {1, 4});
  return mb.save(dir + "/m.onnx");
}

// A model whose 256 KiB weight goes to the weights file of `partition -o`.
std::string heavy_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 65536});
  g.init_float("w", {1, 65536}, std::vector<float>(65536, 0.5f));
  g.node("Add", {"x", "w"}, {"y"}, "add");
  g.output("y", kFloat, {1, 65536});
  return mb.save(dir + "/m.onnx");
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

mode_t kind(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & S_IFMT;
}

// Every command that writes a file, writing to `out`.
std::vector<std::vector<std::string>> writers(const std::string& model, const std::string& plan, const std::string& out) {
  return {{"check", model, "--trt", "10.0", "-o", out},
          {"matrix", model, "-o", out},
          {"report", model, "-o", out},
          {"engine", "summary", plan, "-o", out},
          {"engine", "report", plan, "-o", out}};
}

// The engine fixture copied into `dir` (a regression must not overwrite the source tree).
std::string copy_plan(const std::string& dir) {
  fs::path from = fs::path(TRTLENS_SOURCE_DIR) / "tests/fixtures/engine/v8";
  for (const auto& e : fs::directory_iterator(from)) fs::copy_file(e.path(), fs::path(dir) / e.path().filename());
  return dir + "/tiny.onnx.engine";
}

void expect_refused(const std::vector<std::string>& args, const std::string& target, const std::string& problem) {
  RunResult r = run_trtlens(args);
  EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.err;
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(r.err, "trtlens: " + target + ": " + problem + "\n") << args[0] << " " << args[1];
}

TEST(OutputFiles, DeviceIsRefusedAndStaysADevice) {
  std::string dir = temp_dir("OutputFiles.Device");
  std::string model = relu_model(dir), plan = copy_plan(dir);
  // As root, a regression would replace /dev/null itself: use a null device of our own then.
  std::string dev = "/dev/null";
  if (::geteuid() == 0) {
    dev = dir + "/null";
    ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  }
  for (const auto& args : writers(model, plan, dev)) {
    expect_refused(args, dev, "will not replace a device; give a regular file or a new path");
    EXPECT_EQ(kind(dev), S_IFCHR);
  }
  // partition -o names a folder.
  RunResult r = run_trtlens({"partition", model, "--trt", "10.0", "-o", dev});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(kind(dev), S_IFCHR);
}

TEST(OutputFiles, FifoSymlinkAndFolderAreRefusedAndKept) {
  std::string dir = temp_dir("OutputFiles.Kinds");
  std::string model = relu_model(dir), plan = copy_plan(dir);
  std::string fifo = dir + "/fifo", link = dir + "/link", folder = dir + "/folder";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  write_text(dir + "/elsewhere.txt", "keep me");
  fs::create_symlink("elsewhere.txt", link);
  fs::create_directory(folder);
  for (const auto& args : writers(model, plan, fifo))
    expect_refused(args, fifo, "will not replace a FIFO; give a regular file or a new path");
  for (const auto& args : writers(model, plan, link))
    expect_refused(args, link, "will not replace a symbolic link; give a regular file or a new path");
  for (const auto& args : writers(model, plan, folder))
    expect_refused(args, folder, "will not replace a folder; give a regular file or a new path");
  EXPECT_EQ(kind(fifo), S_IFIFO);
  EXPECT_EQ(kind(link), S_IFLNK);
  EXPECT_EQ(read_text(dir + "/elsewhere.txt"), "keep me");
  EXPECT_TRUE(fs::is_empty(folder));

  // partition -o DIR: a symbolic link to a folder is not replaced either.
  fs::create_symlink("folder", dir + "/parts");
  expect_refused({"partition", model, "--trt", "10.0", "-o", dir + "/parts", "--force"}, dir + "/parts",
                 "will not replace a symbolic link; give a folder or a new path");
  EXPECT_EQ(kind(dir + "/parts"), S_IFLNK);
  EXPECT_TRUE(fs::is_empty(folder));
  for (const auto& name : folder_entries(dir)) EXPECT_FALSE(name.starts_with(".trtlens-tmp-")) << name;
}

TEST(OutputFiles, AnInputOfTheRunIsNeverReplaced) {
  std::string dir = temp_dir("OutputFiles.Input");
  std::string model = relu_model(dir), plan = copy_plan(dir);
  std::string bytes = read_text(model);
  ASSERT_EQ(::link(model.c_str(), (dir + "/hardlink.onnx").c_str()), 0);  // another name, same file
  for (const std::string& out : {model, dir + "/hardlink.onnx"}) {
    for (const auto& args : std::vector<std::vector<std::string>>{{"check", model, "--trt", "10.0", "-o", out},
                                                                   {"matrix", model, "-o", out},
                                                                   {"report", model, "-o", out}})
      expect_refused(args, out, "is an input of this command; give another output file");
  }
  EXPECT_EQ(read_text(model), bytes);
  std::string graph = plan + ".graph.json", graph_bytes = read_text(graph);
  expect_refused({"engine", "report", plan, "-o", graph}, graph, "is an input of this command; give another output file");
  EXPECT_EQ(read_text(graph), graph_bytes);
}

TEST(OutputFiles, ExternalDataIsAnInputToo) {
  std::string dir = temp_dir("OutputFiles.ExternalData");
  std::string model = save_external_data_model(dir);
  std::string weights = dir + "/b.bin", bytes = read_text(weights);
  expect_refused({"check", model, "--trt", "10.0", "-o", weights}, weights,
                 "is an input of this command; give another output file");
  EXPECT_EQ(read_text(weights), bytes);
}

TEST(OutputFiles, FileSizeLimitIsOneLineAndLeavesNothing) {
  std::string dir = temp_dir("OutputFiles.FileSize");
  std::string model = heavy_model(dir);
  RunLimits limits;
  limits.file_bytes = 64 * 1024;  // below the report page and the partition's weights file
  RunResult r = run_trtlens({"report", model, "-o", dir + "/page.html"}, {}, limits);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(r.err, "trtlens: " + dir + "/page.html: cannot write: File too large\n");

  r = run_trtlens({"partition", model, "--trt", "10.0", "-o", dir + "/parts"}, {}, limits);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(r.err.rfind("trtlens: " + dir + "/parts/", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": cannot write: File too large\n"), std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"m.onnx"});  // no page, no parts, no temporaries
}

TEST(OutputFiles, StaleTemporariesOfAKilledRunAreRemoved) {
  std::string dir = temp_dir("OutputFiles.Stale");
  std::string model = relu_model(dir);
  auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  write_text(dir + "/.trtlens-tmp-old123", "left by a killed run");
  fs::last_write_time(dir + "/.trtlens-tmp-old123", two_hours_ago);
  fs::create_directories(dir + "/.trtlens-tmp-olddir/sub");  // a killed partition -o
  write_text(dir + "/.trtlens-tmp-olddir/sub/part_0.onnx", "x");
  fs::last_write_time(dir + "/.trtlens-tmp-olddir", two_hours_ago);
  write_text(dir + "/.trtlens-tmp-new456", "another run writing now");
  write_text(dir + "/.other-old", "not ours");
  fs::last_write_time(dir + "/.other-old", two_hours_ago);

  RunResult r = run_trtlens({"check", model, "--trt", "10.0", "-o", dir + "/out.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(folder_entries(dir), (std::vector<std::string>{".other-old", ".trtlens-tmp-new456", "m.onnx", "out.txt"}));

  // partition -o cleans the folder it writes its temporary folder in.
  write_text(dir + "/.trtlens-tmp-old789", "left by a killed run");
  fs::last_write_time(dir + "/.trtlens-tmp-old789", two_hours_ago);
  r = run_trtlens({"partition", model, "--trt", "10.0", "-o", dir + "/parts"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/.trtlens-tmp-old789"));
  EXPECT_TRUE(fs::exists(dir + "/.trtlens-tmp-new456"));
}

}  // namespace
}  // namespace trtlens::test
