// A real `trtlens serve` process for the tests: started on 127.0.0.1 with a
// free port, stopped (SIGTERM, then SIGKILL) when the object goes.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace trtlens::test {

// Limits set on the server process only (0: none).
struct ServeLimits {
  // RLIMIT_FSIZE, with SIGXFSZ ignored: any write that would take a file past
  // this many bytes fails (EFBIG), as writes fail on a full disk.
  unsigned long long max_file_bytes = 0;
};

class ServeProcess {
 public:
  // Starts `trtlens serve --data DATA --port 0 ...extra` and waits (up to 30 s)
  // until it listens. Throws std::runtime_error with the server's log if it
  // exits or does not listen in time.
  explicit ServeProcess(const std::string& data_dir, const std::vector<std::string>& extra = {},
                        const ServeLimits& limits = {});
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string url() const;   // "http://127.0.0.1:PORT"
  void kill9();              // SIGKILL and reap: a crash, not a shutdown
  int stop();                // SIGTERM and reap; the exit status (as waitpid's WEXITSTATUS, or 128+signal)
  std::string log() const;   // what the server wrote to stderr and stdout

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
};

// `trtlens admin --data DATA user NAME`: the new user's first token.
// `projects` are created (if new) and granted to it with `role`.
std::string make_user(const std::string& data_dir, const std::string& name, const std::vector<std::string>& projects,
                      const std::string& role = "write", const std::vector<std::string>& db_args = {});

}  // namespace trtlens::test
