// Child processes for the TensorRT environment: running tools (nvidia-smi,
// trtexec) and finding them in PATH. Internal to src/trt_env and the CLI.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace trtlens {

struct ProcessResult {
  bool started = false;  // false: could not be executed at all (see error)
  int exit_code = -1;    // exit status, or 128+signal when killed
  int signal = 0;        // signal that killed it, or 0
  std::string error;     // why it did not start
};

// Runs argv[0] (a path, or a name looked up in PATH) with stdin from
// /dev/null, calling on_line for each line of its merged stdout and stderr
// (without the newline) as it arrives.
ProcessResult run_process(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line);

// Runs and collects the merged output.
ProcessResult run_capture(const std::vector<std::string>& argv, std::string& output);

// First executable `name` in $PATH, or "".
std::string find_in_path(const std::string& name);

}  // namespace trtlens
