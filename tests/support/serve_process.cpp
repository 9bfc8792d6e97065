#include "support/serve_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fcntl.h>
#include <stdexcept>
#include <thread>

#include "support/paths.h"

namespace trtlens::test {

ServeProcess::ServeProcess(const std::string& data_dir, const std::vector<std::string>& extra,
                           const ServeLimits& limits) {
  const std::string port_file = data_dir + ".port";
  log_path_ = data_dir + ".log";
  ::unlink(port_file.c_str());
  std::vector<std::string> args = {TRTLENS_BIN, "serve", "--data", data_dir, "--port", "0", "--port-file", port_file};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (limits.max_file_bytes) {
      // The log counts too: lines that would take it past the limit are lost.
      ::signal(SIGXFSZ, SIG_IGN);  // kept across exec: a write past the limit fails instead of killing
      struct rlimit rl {};
      rl.rlim_cur = rl.rlim_max = limits.max_file_bytes;
      if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) ::_exit(126);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  for (int i = 0; i < 300; ++i) {
    std::string text = read_text(port_file);
    if (!text.empty() && text.back() == '\n') {
      port_ = std::stoi(text);
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("trtlens serve exited: " + log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill9();
  throw std::runtime_error("trtlens serve did not listen within 30 s: " + log());
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) stop();
}

std::string ServeProcess::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string ServeProcess::log() const { return read_text(log_path_); }

void ServeProcess::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

int ServeProcess::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill9();
  return 128 + SIGKILL;
}

std::string make_user(const std::string& data_dir, const std::string& name, const std::vector<std::string>& projects,
                      const std::string& role, const std::vector<std::string>& db_args) {
  auto admin = [&](std::vector<std::string> args) {
    std::vector<std::string> all = {"admin", "--data", data_dir};
    all.insert(all.end(), db_args.begin(), db_args.end());
    all.insert(all.end(), args.begin(), args.end());
    return run_trtlens(all);
  };
  RunResult user = admin({"user", name});
  if (user.exit_code != 0) throw std::runtime_error("admin user " + name + ": " + user.err);
  for (const std::string& p : projects) {
    admin({"project", p});  // exists already: fine
    RunResult grant = admin({"grant", name, p, role});
    if (grant.exit_code != 0) throw std::runtime_error("admin grant: " + grant.err);
  }
  std::string token = user.out;
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

}  // namespace trtlens::test
