#include "trt_env/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace trtlens {

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path || name.empty()) return "";
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  int out[2];
  // A second pipe reports a failed exec (its errno) back to the parent.
  int status_pipe[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = ::write(status_pipe[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(status_pipe[1]);
  int exec_errno = 0;
  bool exec_failed = ::read(status_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  ::close(status_pipe[0]);
  std::string pending;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<size_t>(n));
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, nl);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      on_line(line);
      pending.erase(0, nl + 1);
    }
  }
  if (!pending.empty()) on_line(pending);
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) {
    r.error = std::strerror(exec_errno);
    return r;
  }
  r.started = true;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.exit_code = 128 + r.signal;
  }
  return r;
}

ProcessResult run_capture(const std::vector<std::string>& argv, std::string& output) {
  output.clear();
  return run_process(argv, [&](const std::string& line) { output += line + "\n"; });
}

}  // namespace trtlens
