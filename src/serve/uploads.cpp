// Storing uploads: a model version (a .onnx, or a zip of its folder with
// external data) or an engine (trtexec's files, or a zip of them). The bytes
// were already streamed to a temporary folder; here they are unpacked,
// checked, moved into the object store and recorded, in that order, so a
// crash at any point leaves no version that is not whole.
#include <fmt/core.h>

#include "serve/context.h"
#include "serve/model_archive.h"
#include "store/hash.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/model.h"
#include "trtlens/overlay.h"
#include "trtlens/trt_env.h"

namespace trtlens::serve {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxArchiveFiles = 10000;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The received files as a tree: a single .zip is extracted into a new
// temporary folder (the received one is removed), anything else is the tree.
struct Tree {
  fs::path dir;
  std::vector<std::string> files;
};
Tree unpack(Context& ctx, const Upload& u) {
  std::vector<std::string> received;
  for (const auto& entry : fs::recursive_directory_iterator(u.dir))
    if (entry.is_regular_file()) received.push_back(fs::relative(entry.path(), u.dir).generic_string());
  if (received.empty()) throw InputError(u.file_name, "the upload holds no file");
  if (received.size() == 1 && ends_with(received[0], ".zip")) {
    fs::path tree = ctx.store->objects().make_temp_dir();
    try {
      auto files = extract_model_archive(u.dir / received[0], tree, u.file_name,
                                         {ctx.options.max_upload_bytes, kMaxArchiveFiles});
      fs::remove_all(u.dir);
      return {tree, files};
    } catch (const InputError& e) {
      fs::remove_all(tree);
      // Named after the folder: the server could not write there (a full disk), not a bad zip.
      if (e.file() == tree.string())
        throw store::StoreError(store::StoreError::Kind::Backend,
                                fmt::format("{}: the server cannot unpack it: {}", u.file_name, e.problem()));
      throw;
    } catch (...) {
      fs::remove_all(tree);
      throw;
    }
  }
  return {u.dir, received};
}

std::string opsets_text(const Model& m) {
  std::string out;
  for (const OpsetImport& o : m.opsets)
    out += fmt::format("{}{}:{}", out.empty() ? "" : ", ", o.domain.empty() ? "ai.onnx" : o.domain, o.version);
  return out;
}

// "x FLOAT[1,3,224,224], mask BOOL[N] -> y FLOAT[1,1000]": what a version diff compares.
std::string io_text(const Model& m) {
  if (m.graphs.empty()) return "";
  const Graph& g = m.graphs.front();
  auto list = [&](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) {
      const TensorInfo* t = g.local(n);
      if (t && t->origin == TensorOrigin::Initializer) continue;
      std::string shape;
      if (t && t->rank >= 0) {
        for (const Dim& d : t->dims)
          shape += (shape.empty() ? "" : ",") + (d.fixed() ? std::to_string(d.value) : d.param.empty() ? "?" : d.param);
        shape = "[" + shape + "]";
      }
      out += fmt::format("{}{} {}{}", out.empty() ? "" : ", ", n, t ? elem_type_name(t->type) : "?", shape);
    }
    return out;
  };
  return list(g.inputs) + " -> " + list(g.outputs);
}

uint64_t tree_bytes(const Tree& t) {
  uint64_t total = 0;
  for (const std::string& f : t.files) total += fs::file_size(t.dir / f);
  return total;
}

// Queues the analysis of what was just recorded. The push has succeeded by
// then, so a store that cannot take the job now (it is queued by the next
// view) does not turn the push into an error.
template <class F>
void queue_analysis(F&& ensure) {
  try {
    ensure();
  } catch (const std::exception& e) {
    fmt::print(stderr, "serve: cannot queue the analysis of a new upload: {}\n", e.what());
  }
}

// Removes the temporary tree unless it was adopted (moved) into the store.
struct TreeGuard {
  fs::path dir;
  ~TreeGuard() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

bool is_plan_file(std::string_view name) {
  return ends_with(name, ".plan") || ends_with(name, ".engine") || ends_with(name, ".trt");
}

// The TensorRT version the upload's plan files (*.plan, *.engine, *.trt) were written by,
// read from their headers (read_plan: at most 4 KiB, or a metadata prefix and 64 bytes);
// nullopt when there is none, none is readable, or two tell different versions.
std::optional<PlanInfo> plan_header(const Tree& t) {
  std::optional<PlanInfo> found;
  for (const std::string& f : t.files) {
    if (!is_plan_file(f)) continue;
    PlanInfo p;
    try {
      p = read_plan((t.dir / f).string());
    } catch (const InputError&) {
      continue;  // not a plan after all: the JSON files still tell
    }
    if (!p.version.known()) continue;
    if (found && found->version.str() != p.version.str()) return std::nullopt;
    found = std::move(p);
  }
  return found;
}

// The release an attached engine records, and where from, the first of:
// 1. its plan's header, when written in the 10.0+ layout: the engine's own bytes, stamped
//    by the TensorRT that serialized it (read as trtexec --getPlanVersionOnly reads them),
//    so it beats a record beside it that may come from another build;
// 2. its metadata ("TensorRT version", as trtexec's build metadata or `trtlens build`
//    writes it);
// 3. an 8.x plan header, whose version is a heuristic (a serialization number seen
//    before), so a record wins over it;
// 4. the major its graph.json layout implies (the newest release of that major).
// {"", ""} when none tells. A release the caller gives wins over all (store_engine_upload).
std::pair<std::string, std::string> recorded_release(const EnginePlan& plan, const std::optional<PlanInfo>& header,
                                                     const KnowledgeBase& kb) {
  auto from_header = [&]() -> std::pair<std::string, std::string> {
    try {
      const Release& r = kb.resolve(header->version.str());
      return {r.name, header->version_heuristic
                          ? fmt::format("plan header (TensorRT {}; {})", header->version.str(), header->version_note)
                          : fmt::format("plan header (TensorRT {})", header->version.str())};
    } catch (const UsageError&) {
      return {"", ""};  // a release the knowledge base does not know: the next source tells
    }
  };
  if (header && !header->version_heuristic)
    if (auto r = from_header(); !r.first.empty()) return r;
  if (std::string v = engine_trt_version(plan); !v.empty()) {
    try {
      return {kb.resolve(v).name, "engine metadata (TensorRT " + v + ")"};
    } catch (const UsageError&) {
    }
  }
  if (header && header->version_heuristic)
    if (auto r = from_header(); !r.first.empty()) return r;
  const std::string major = plan.layout.substr(0, plan.layout.find('.'));
  const Release* newest = nullptr;
  for (const Release& r : kb.releases())
    if (!major.empty() && r.name.rfind(major + ".", 0) == 0) newest = &r;
  if (newest)
    return {newest->name, fmt::format("graph.json layout {}: the newest {}.x release (give the release when "
                                      "attaching if it was another)",
                                      plan.layout, major)};
  return {"", ""};
}

}  // namespace

PushResult store_model_upload(Context& ctx, const Upload& u, const std::string& project, const std::string& model,
                              const Caller& caller, const PushOptions& options) {
  if (!options.tag.empty() && !store::valid_tag(options.tag))
    throw InputError("tag", store::valid_name(options.tag)
                                ? "a number would read as a version number; use a name (e.g. v" + options.tag + ")"
                                : "1 to 64 letters, digits, '.', '_' or '-', not starting with '.'");
  TreeGuard received{u.dir};
  Tree tree = unpack(ctx, u);
  TreeGuard guard{tree.dir};
  std::string main = find_main_model(tree.files, u.main_hint, u.file_name);
  // The model must load now: a file that is not ONNX gets its error line at
  // push time, not a version that can never be analysed.
  store::NewVersion nv{"", main, "", tree_bytes(tree), options.git_sha, options.git_branch, ""};
  {
    // A model in memory per push, like /check: bounded the same way, and only while it is read
    // (storing and recording below need no turn).
    LiveAnalyses::Turn turn(*ctx.live);
    Model m;
    try {
      m = load_model((tree.dir / main).string());
    } catch (const InputError& e) {
      throw InputError(u.file_name, e.problem());
    }
    nv.opsets = opsets_text(m);
    nv.io = io_text(m);
  }
  // Everything about the upload is checked above; only then is it stored and recorded.
  nv.tree_hash = ctx.store->objects().adopt_tree(tree.dir);
  guard.dir.clear();
  PushResult out;
  // The same files as the newest version: no new version unless asked (W&B's "no change").
  std::vector<store::Version> newest;
  try {
    newest = ctx.store->versions(project, model, 1);
  } catch (const store::StoreError& e) {
    if (e.kind != store::StoreError::Kind::NotFound) throw;  // a first push
  }
  if (!options.force && !newest.empty() && newest[0].tree_hash == nv.tree_hash && newest[0].main_file == main) {
    out.version = newest[0];
    out.unchanged = true;
  } else {
    out.version = ctx.store->add_version(project, model, nv, caller.user_id);
  }
  if (!options.tag.empty()) {
    ctx.store->set_tag(project, model, options.tag, out.version.number);
    out.version = *ctx.store->version(project, model, out.version.number);
  }
  queue_analysis([&] { ctx.analyzer->ensure(out.version); });
  return out;
}

store::Engine store_engine_upload(Context& ctx, const Upload& u, const store::Version& v, const std::string& label,
                                  const Caller& caller, const std::string& release) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  std::string trt, source;
  if (!release.empty()) {
    try {
      trt = kb.resolve(release).name;
    } catch (const UsageError& e) {
      throw InputError("release", e.what());
    }
    source = "given when the engine was attached";
  }
  TreeGuard received{u.dir};
  Tree tree = unpack(ctx, u);
  TreeGuard guard{tree.dir};
  // find_plan_files takes a folder with exactly one *.graph.json, or one .json file.
  std::string prefix;
  if (tree.files.size() == 1) prefix = tree.files[0];
  if (tree.files.size() == 1 && is_plan_file(prefix))
    throw InputError(u.file_name, "a plan alone is not read without TensorRT: attach it with trtexec's JSON files "
                                  "(graph.json from --exportLayerInfo, profile.json from --exportProfile), or a zip "
                                  "of them");
  EnginePlan plan;
  try {
    plan = load_plan(find_plan_files((prefix.empty() ? tree.dir : tree.dir / prefix).string()));
  } catch (const InputError& e) {
    throw InputError(u.file_name, e.problem());
  }
  if (trt.empty()) std::tie(trt, source) = recorded_release(plan, plan_header(tree), kb);
  std::string hash = ctx.store->objects().adopt_tree(tree.dir);
  guard.dir.clear();
  store::Engine e = ctx.store->add_engine(v.id, label, hash, prefix, caller.user_id, trt, source);
  queue_analysis([&] { ctx.analyzer->ensure(v, e); });
  return e;
}

}  // namespace trtlens::serve

namespace trtlens::serve {

namespace {

// Forms (the dashboard's have three fields): what a form may make the server
// keep in memory is bounded, whatever a writer sends.
constexpr size_t kMaxFormFieldBytes = 4096;        // one field's value
constexpr size_t kMaxFormFields = 32;
constexpr size_t kMaxFormFieldsBytes = 16 * 1024;  // names and values of all fields together
constexpr size_t kMaxFormFiles = 64;               // trtexec writes about six per engine

constexpr const char* kCsrfRefusal = "the form is stale or not from this site (CSRF token); reload the page";

// Why a receive stopped: the first error wins; the reader returns false after it.
struct ReceiveState {
  int status = 0;
  std::string message;
  void fail(int s, std::string m) {
    if (status == 0) status = s, message = std::move(m);
  }
};

// A write error while receiving (a full disk) is the server's: the client gets
// the line without the server's folders, the log the whole one.
void fail_storing(Context& ctx, ReceiveState& st, const store::StoreError& e) {
  if (e.kind == store::StoreError::Kind::Invalid) return st.fail(413, e.what());  // over the size limit
  fmt::print(stderr, "serve: cannot store an upload: {}\n", e.what());
  st.fail(500, without_server_paths(e.what(), ctx.store->objects()));
}

void finish_failed_receive(Context& ctx, const fs::path& dir, ReceiveState& st, httplib::Response& res) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  // httplib sets 413 itself when Content-Length exceeds the payload limit.
  if (st.status == 0)
    st.fail(res.status == 413 ? 413 : 400, res.status == 413 ? fmt::format("upload is over {} bytes",
                                                                           ctx.options.max_upload_bytes)
                                                             : "the upload was cut off");
  send_error(res, st.status, st.message);
}

}  // namespace

std::optional<Upload> receive_body(Context& ctx, httplib::Response& res,
                                   const httplib::ContentReader& reader, const std::string& file_name,
                                   const std::string& main_hint) {
  Upload u{ctx.store->objects().make_temp_dir(), file_name, main_hint};
  ReceiveState st;
  try {
    store::StreamedFile out(u.dir / file_name, ctx.options.max_upload_bytes);
    bool ok = reader([&](const char* data, size_t size) {
      try {
        out.write(data, size);
        return true;
      } catch (const store::StoreError& e) {
        fail_storing(ctx, st, e);
        return false;
      }
    });
    if (ok && st.status == 0) {
      out.close();
      return u;
    }
  } catch (const store::StoreError& e) {
    fail_storing(ctx, st, e);
  }
  finish_failed_receive(ctx, u.dir, st, res);
  return std::nullopt;
}

std::optional<Upload> receive_form(Context& ctx, const httplib::Request& req, httplib::Response& res,
                                   const httplib::ContentReader& reader, const Caller& caller,
                                   std::map<std::string, std::string>& fields,
                                   const std::function<std::string(const std::map<std::string, std::string>&)>& check) {
  if (!req.is_multipart_form_data()) {
    send_error(res, 400, "expected a multipart/form-data upload");
    return std::nullopt;
  }
  if (!caller.by_session) {  // forms are the browser's: nothing is read without a session
    send_error(res, 403, kCsrfRefusal);
    return std::nullopt;
  }
  Upload u{ctx.store->objects().make_temp_dir(), "", ""};
  ReceiveState st;
  std::unique_ptr<store::StreamedFile> file;
  std::string field;          // the current non-file part
  size_t parts = 0;           // begun so far
  size_t field_bytes = 0;     // names and values of all fields
  size_t files = 0;
  uint64_t file_bytes = 0;    // of all files together
  bool csrf_checked = false;  // the first part, the session's CSRF token, was checked
  bool checked = false;       // `check` passed
  auto close_file = [&] {
    if (file) file->close();
    file.reset();
  };
  auto check_csrf = [&] {
    if (csrf_checked) return true;
    auto it = fields.find("csrf");
    if (it == fields.end() || !store::same_secret(it->second, caller.csrf)) {
      st.fail(403, kCsrfRefusal);
      return false;
    }
    return csrf_checked = true;
  };
  auto over = [&](const std::string& what) {
    st.fail(413, what);
    return false;
  };
  try {
    bool ok = reader(
        [&](const httplib::MultipartFormData& part) {
          close_file();
          // The form's first part is its CSRF token, checked as soon as it ends:
          // a forged form has nothing else kept, not a field, not a file byte.
          if (parts++ == 0) {
            if (part.name != "csrf" || !part.filename.empty()) {
              st.fail(403, kCsrfRefusal);
              return false;
            }
          } else if (!check_csrf()) {
            return false;
          }
          if (part.filename.empty()) {
            if (fields.size() >= kMaxFormFields)
              return over(fmt::format("the form has more than {} fields", kMaxFormFields));
            if (fields.count(part.name)) {
              st.fail(400, fmt::format("form field {} is given twice", part.name.substr(0, 64)));
              return false;
            }
            field_bytes += part.name.size();
            if (field_bytes > kMaxFormFieldsBytes)
              return over(fmt::format("the form's fields are over {} bytes", kMaxFormFieldsBytes));
            field = part.name;
            fields[field];
            return true;
          }
          field.clear();
          // Fields come before files in the form, so names are checked before a byte of the file is stored.
          if (!checked) {
            std::string refusal = check(fields);
            if (!refusal.empty()) {
              st.fail(403, refusal);
              return false;
            }
            checked = true;
          }
          if (++files > kMaxFormFiles) return over(fmt::format("the form has more than {} files", kMaxFormFiles));
          std::string name;
          try {
            name = safe_upload_name(part.filename);
          } catch (const InputError& e) {
            st.fail(400, e.what());
            return false;
          }
          if (u.file_name.empty()) u.file_name = name;
          fs::path target = u.dir / fs::path(name).filename();
          if (fs::exists(target)) {
            st.fail(400, fmt::format("{}: uploaded twice", name));
            return false;
          }
          file = std::make_unique<store::StreamedFile>(target, ctx.options.max_upload_bytes);
          return true;
        },
        [&](const char* data, size_t size) {
          if (file) {
            // The upload limit is on all files of the form together.
            if (size > ctx.options.max_upload_bytes - file_bytes)
              return over(fmt::format("upload is over {} bytes", ctx.options.max_upload_bytes));
            file_bytes += size;
            try {
              file->write(data, size);
            } catch (const store::StoreError& e) {
              fail_storing(ctx, st, e);
              return false;
            }
            return true;
          }
          std::string& value = fields[field];
          if (value.size() + size > kMaxFormFieldBytes)
            return over(fmt::format("form field {} is over {} bytes", field.substr(0, 64), kMaxFormFieldBytes));
          field_bytes += size;
          if (field_bytes > kMaxFormFieldsBytes)
            return over(fmt::format("the form's fields are over {} bytes", kMaxFormFieldsBytes));
          value.append(data, size);
          return true;
        });
    close_file();
    if (ok && st.status == 0 && check_csrf()) {
      if (!checked) {
        std::string refusal = check(fields);
        if (!refusal.empty()) st.fail(403, refusal);
        else st.fail(400, "the form holds no file");
      }
      if (st.status == 0) return u;
    }
  } catch (const store::StoreError& e) {
    fail_storing(ctx, st, e);
  }
  finish_failed_receive(ctx, u.dir, st, res);
  return std::nullopt;
}

}  // namespace trtlens::serve
