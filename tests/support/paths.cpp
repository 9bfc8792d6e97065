#include "support/paths.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace trtlens::test {

std::string temp_dir(const std::string& name) {
  fs::path dir = fs::path(TRTLENS_TEST_TMP) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string shared_dir() {
  fs::path p(TRTLENS_SHARED_DIR);
  return fs::exists(p / "trt-support") ? fs::canonical(p).string() : std::string();
}

std::vector<std::string> folder_entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json embedded_json(const std::string& page, const std::string& id) {
  size_t at = page.find("id=\"" + id + "\"");
  size_t start = at == std::string::npos ? at : page.find('>', at);
  size_t end = start == std::string::npos ? start : page.find("</script>", start);
  if (end == std::string::npos) return nullptr;
  return nlohmann::json::parse(page.substr(start + 1, end - start - 1));
}

void write_text(const std::string& path, const std::string& contents) {
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

RunResult run_trtlens(const std::vector<std::string>& args, const std::vector<std::string>& env,
                      const RunLimits& limits) {
  static int counter = 0;
  std::string base = (fs::path(TRTLENS_TEST_TMP) / ("run-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(counter++))).string();
  fs::create_directories(TRTLENS_TEST_TMP);
  std::string out_path = base + ".out", err_path = base + ".err";
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    if (limits.memory_bytes) {
      struct rlimit as{limits.memory_bytes, limits.memory_bytes};
      ::setrlimit(RLIMIT_AS, &as);
    }
    if (limits.file_bytes) {
      struct rlimit fsize{limits.file_bytes, limits.file_bytes};
      ::setrlimit(RLIMIT_FSIZE, &fsize);
    }
    if (limits.seconds) ::alarm(limits.seconds);  // pending alarms survive execv
    std::vector<char*> argv;
    std::string bin = TRTLENS_BIN;
    argv.push_back(bin.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return r;
}

}  // namespace trtlens::test
