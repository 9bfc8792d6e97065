// Loading a library to ask it its version. The dlopen happens in a forked
// child: a library whose constructor crashes or aborts (a broken CUDA setup
// does that) costs a message, not trtlens itself.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "trtlens/trt_env.h"

namespace trtlens {
namespace {

void write_all(int fd, const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

[[noreturn]] void child(int fd, const std::string& path, const std::vector<std::string>& int_fns,
                        const std::vector<std::string>& out_fns) {
  // The library may print while loading; keep it off our output.
  int devnull = ::open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
  }
  void* h = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    std::string msg = e ? e : "dlopen failed";
    for (char& c : msg)
      if (c == '\n') c = ' ';
    write_all(fd, "error\t" + msg + "\n");
    ::_exit(0);
  }
  write_all(fd, "loaded\n");
  for (const auto& name : int_fns) {
    if (void* sym = ::dlsym(h, name.c_str())) {
      auto fn = reinterpret_cast<int (*)()>(sym);
      write_all(fd, "value\t" + name + "\t" + std::to_string(fn()) + "\n");
    }
  }
  for (const auto& name : out_fns) {
    if (void* sym = ::dlsym(h, name.c_str())) {
      auto fn = reinterpret_cast<int (*)(int*)>(sym);
      int v = 0;
      if (fn(&v) == 0) write_all(fd, "value\t" + name + "\t" + std::to_string(v) + "\n");
    }
  }
  ::_exit(0);
}

}  // namespace

std::optional<long> LoadProbe::value(std::string_view symbol) const {
  for (const auto& [name, v] : values)
    if (name == symbol) return v;
  return std::nullopt;
}

LoadProbe probe_library(const std::string& path, const std::vector<std::string>& int_functions,
                        const std::vector<std::string>& out_param_functions) {
  LoadProbe r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], path, int_functions, out_param_functions);
  }
  ::close(fds[1]);
  std::string text;
  char buf[1024];
  while (true) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line == "loaded") {
      r.loaded = true;
    } else if (line.rfind("error\t", 0) == 0) {
      r.error = line.substr(6);
    } else if (line.rfind("value\t", 0) == 0) {
      size_t tab = line.find('\t', 6);
      if (tab == std::string::npos) continue;
      try {
        r.values.emplace_back(line.substr(6, tab - 6), std::stol(line.substr(tab + 1)));
      } catch (const std::exception&) {
      }
    }
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    r.error = std::string(r.loaded ? "crashed while calling its version functions" : "crashed while loading") +
              " (signal " + std::to_string(sig) + (name ? std::string(", ") + name : std::string()) + ")";
    r.loaded = false;
  } else if (!r.loaded && r.error.empty()) {
    r.error = "the loader process exited without an answer";
  }
  return r;
}

}  // namespace trtlens
