// write_partition: each part as an ONNX model, weights streamed from file
// ranges, everything in a temporary folder that replaces the output folder.
#include <fcntl.h>
#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "onnx/wire.h"
#include "trtlens/error.h"
#include "trtlens/partition.h"
#include "util/files.h"
#include "util/mapped_file.h"

namespace fs = std::filesystem;

namespace trtlens {
namespace {

std::string errno_text() { return std::strerror(errno); }

// An open file descriptor, closed on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Every node list and tensor of a graph, nested subgraphs included, visited
// with an explicit stack (bodies may nest deeply in a hostile file).
template <typename OnNode, typename OnTensor>
void visit_graph(onnx::GraphProto* root, OnNode on_node, OnTensor on_tensor) {
  std::vector<onnx::GraphProto*> stack{root};
  while (!stack.empty()) {
    onnx::GraphProto* g = stack.back();
    stack.pop_back();
    for (auto& t : *g->mutable_initializer()) on_tensor(t);
    for (auto& s : *g->mutable_sparse_initializer()) {
      on_tensor(*s.mutable_values());
      on_tensor(*s.mutable_indices());
    }
    for (auto& node : *g->mutable_node()) {
      on_node(node);
      for (auto& a : *node.mutable_attribute()) {
        if (a.has_t()) on_tensor(*a.mutable_t());
        for (auto& t : *a.mutable_tensors()) on_tensor(t);
        if (a.has_g()) stack.push_back(a.mutable_g());
        for (auto& sg : *a.mutable_graphs()) stack.push_back(&sg);
      }
    }
  }
}


// Collects the weights of the written parts into one file, each source range once.
class WeightsFile {
 public:
  WeightsFile(const Model& m, std::string path) : model_(m), path_(std::move(path)) {
    fs::path mp(m.path);
    model_dir_ = mp.has_parent_path() ? mp.parent_path() : fs::path(".");
  }

  // Points `t`'s external data at this file, copying its bytes on first use.
  void adopt(onnx::TensorProto& t) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
    std::string location = external_entry(t, "location");
    if (location == kDroppedLocation)
      throw InputError(model_.path, "tensor '" + t.name() +
                                        "' stores more than 16 KiB in typed fields (float_data, int64_data, ...), "
                                        "which trtlens does not keep; save the model with raw_data or external data");
    std::string source = location == kEmbeddedLocation ? model_.path : (model_dir_ / location).string();
    uint64_t offset = number(external_entry(t, "offset"));
    std::string length_text = external_entry(t, "length");
    uint64_t length = length_text.empty() ? source_size(source) - std::min(offset, source_size(source))
                                          : number(length_text);
    auto key = std::make_tuple(source, offset, length);
    auto it = written_.find(key);
    if (it == written_.end()) it = written_.emplace(key, copy(source, offset, length)).first;
    t.clear_external_data();
    auto entry = [&](const char* k, const std::string& v) {
      auto* kv = t.add_external_data();
      kv->set_key(k);
      kv->set_value(v);
    };
    entry("location", kPartitionWeightsFile);
    entry("offset", std::to_string(it->second));
    entry("length", std::to_string(length));
  }

  void close() {
    if (out_.fd >= 0 && ::close(out_.fd) != 0) throw InputError(path_, "cannot write: " + errno_text());
    out_.fd = -1;
  }

 private:
  static uint64_t number(const std::string& s) { return s.empty() ? 0 : std::stoull(s); }  // the loader checked them

  uint64_t source_size(const std::string& source) {
    std::error_code ec;
    uint64_t size = fs::file_size(source, ec);
    if (ec) throw InputError(source, "cannot read: " + ec.message());
    return size;
  }

  // Appends [offset, offset+length) of `source` to the weights file, in
  // kernel-copied chunks (copy_file_range), never whole in memory; returns
  // where it starts. Offsets are 64-byte aligned, which mmap-based readers like.
  uint64_t copy(const std::string& source, uint64_t offset, uint64_t length) {
    if (out_.fd < 0) {
      out_.fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (out_.fd < 0) throw InputError(path_, "cannot write: " + errno_text());
    }
    Fd in;
    in.fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
    if (in.fd < 0) throw InputError(source, "cannot read: " + errno_text());
    uint64_t start = (size_ + 63) / 64 * 64;
    if (start != size_ && ::ftruncate(out_.fd, static_cast<off_t>(start)) != 0)
      throw InputError(path_, "cannot write: " + errno_text());
    auto in_off = static_cast<off_t>(offset);
    auto out_off = static_cast<off_t>(start);
    uint64_t left = length;
    while (left > 0) {
      size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, 64u << 20));
      ssize_t n = ::copy_file_range(in.fd, &in_off, out_.fd, &out_off, chunk, 0);
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) n = copy_buffered(in.fd, in_off, out_off, chunk);
      if (n < 0) throw InputError(path_, "cannot write: " + errno_text());
      if (n == 0) throw InputError(source, "cannot read: the file ends before byte " + std::to_string(offset + length));
      left -= static_cast<uint64_t>(n);
    }
    size_ = start + length;
    return start;
  }

  // The fallback where copy_file_range does not apply: pread/pwrite through a 1 MiB buffer.
  ssize_t copy_buffered(int in, off_t& in_off, off_t& out_off, size_t chunk) {
    buffer_.resize(1u << 20);
    ssize_t n = ::pread(in, buffer_.data(), std::min(chunk, buffer_.size()), in_off);
    if (n <= 0) return n;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::pwrite(out_.fd, buffer_.data() + done, static_cast<size_t>(n - done), out_off + done);
      if (w < 0) return -1;
      done += w;
    }
    in_off += n;
    out_off += n;
    return n;
  }

  const Model& model_;
  std::string path_;
  fs::path model_dir_;
  Fd out_;
  uint64_t size_ = 0;
  std::map<std::tuple<std::string, uint64_t, uint64_t>, uint64_t> written_;
  std::vector<char> buffer_;
};

// Declares a tensor of known rank; an unknown dimension gets a dim_param named after
// the tensor, so every boundary has a shape (onnx.checker requires one on graph
// inputs and outputs, and ONNX Runtime's TensorRT provider refuses inputs without).
void set_tensor_type(onnx::TypeProto_Tensor& tt, const std::string& name, ElemType type, const std::vector<Dim>& dims) {
  tt.set_elem_type(static_cast<int>(type));
  auto* shape = tt.mutable_shape();
  for (size_t k = 0; k < dims.size(); ++k) {
    auto* sd = shape->add_dim();
    if (dims[k].fixed()) sd->set_dim_value(dims[k].value);
    else sd->set_dim_param(dims[k].param.empty() ? name + "_dim" + std::to_string(k) : dims[k].param);
  }
}

// A declared tensor type whose shape is absent or has unnamed dims, completed the same way.
void name_unknown_dims(onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
  auto* shape = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int k = 0; k < shape->dim_size(); ++k)
    if (!shape->dim(k).has_dim_value() && !shape->dim(k).has_dim_param())
      shape->mutable_dim(k)->set_dim_param(vi.name() + "_dim" + std::to_string(k));
}

// The graph's inputs, outputs and value_info by name.
std::unordered_map<std::string_view, const onnx::ValueInfoProto*> declared(const onnx::GraphProto& g) {
  std::unordered_map<std::string_view, const onnx::ValueInfoProto*> out;
  for (const auto& vi : g.value_info()) out[vi.name()] = &vi;
  for (const auto& vi : g.input()) out[vi.name()] = &vi;
  for (const auto& vi : g.output()) out[vi.name()] = &vi;
  return out;
}

class PartWriter {
 public:
  PartWriter(const Model& m, const onnx::ModelProto& source, WeightsFile& weights)
      : m_(m), source_(source), weights_(weights), declared_(declared(source.graph())) {
    for (const auto& t : source.graph().initializer()) initializers_[t.name()] = &t;
    for (const auto& s : source.graph().sparse_initializer()) sparse_[s.values().name()] = &s;
    for (const auto& f : source.functions()) functions_[f.domain() + ":" + f.name()] = &f;
  }

  std::string serialize(const Part& p, const std::string& name) {
    onnx::ModelProto out;
    out.set_ir_version(source_.ir_version());
    *out.mutable_opset_import() = source_.opset_import();
    out.set_producer_name("trtlens partition");
    out.set_model_version(source_.model_version());
    onnx::GraphProto& g = *out.mutable_graph();
    g.set_name(name);
    std::unordered_set<std::string_view> internal;
    for (int i : p.nodes) {
      const onnx::NodeProto& node = source_.graph().node(i);
      *g.add_node() = node;
      for (const auto& o : node.output()) internal.insert(o);
    }
    for (const auto& name : p.initializers) {
      if (auto it = initializers_.find(name); it != initializers_.end()) *g.add_initializer() = *it->second;
      else if (auto s = sparse_.find(name); s != sparse_.end()) *g.add_sparse_initializer() = *s->second;
      // IR < 4 lists every initializer among the graph inputs.
      if (source_.ir_version() < 4) value_info(*g.add_input(), name);
    }
    for (const auto& name : p.inputs) value_info(*g.add_input(), name);
    std::unordered_set<std::string_view> outputs(p.outputs.begin(), p.outputs.end());
    for (const auto& name : p.outputs) value_info(*g.add_output(), name);
    for (const auto& vi : source_.graph().value_info())
      if (internal.count(vi.name()) && !outputs.count(vi.name())) *g.add_value_info() = vi;

    // Local functions the part calls, directly or through other functions.
    std::vector<const onnx::FunctionProto*> called;
    std::unordered_set<std::string> seen;
    auto note_call = [&](const onnx::NodeProto& node) {
      std::string key = node.domain() + ":" + node.op_type();
      if (auto f = functions_.find(key); f != functions_.end() && seen.insert(key).second) called.push_back(f->second);
    };
    auto adopt = [&](onnx::TensorProto& t) { weights_.adopt(t); };
    visit_graph(&g, [&](onnx::NodeProto& node) { note_call(node); }, adopt);
    for (size_t k = 0; k < called.size(); ++k) {
      onnx::FunctionProto& f = *out.add_functions();
      f = *called[k];
      onnx::GraphProto scratch;  // functions hold nodes only: visit them through a graph
      scratch.mutable_node()->Swap(f.mutable_node());
      visit_graph(&scratch, [&](onnx::NodeProto& node) { note_call(node); }, adopt);
      scratch.mutable_node()->Swap(f.mutable_node());
    }
    return out.SerializeAsString();
  }

 private:
  // Type and shape of a boundary tensor. Sequences and optionals keep their kind (the
  // file's declaration, else the producing op's); tensors take trtlens's type and shape
  // (own propagation, which also ranks a Reshape by a computed shape, and ONNX shape
  // inference), else the declaration, else ONNX's inference with data propagation. A tensor
  // of unknown rank cannot be declared: the part would be refused, so writing stops naming it.
  void value_info(onnx::ValueInfoProto& vi, const std::string& name) {
    const Graph& g = m_.graphs[0];
    const TensorInfo* t = g.local(name);
    auto d = declared_.find(name);
    const onnx::ValueInfoProto* decl = d == declared_.end() ? nullptr : d->second;
    if (decl && decl->has_type() && !decl->type().has_tensor_type()) {
      vi = *decl;
      return;
    }
    const Node* producer = nullptr;
    if (TensorId id = g.id(name); id != kNoTensor)
      if (int p = g.index.producer[static_cast<size_t>(id)]; p >= 0) producer = &g.nodes[static_cast<size_t>(p)];
    vi.set_name(name);
    if (producer && producer->domain.empty() && t && t->type != ElemType::UNDEFINED) {
      static const std::unordered_set<std::string_view> sequences = {"SequenceEmpty",  "SequenceConstruct", "SequenceInsert",
                                                                     "SequenceErase", "SplitToSequence",   "SequenceMap"};
      onnx::TypeProto* elem = nullptr;
      if (sequences.count(producer->op_type)) elem = vi.mutable_type()->mutable_sequence_type()->mutable_elem_type();
      else if (producer->op_type == "Optional") elem = vi.mutable_type()->mutable_optional_type()->mutable_elem_type();
      if (elem) {  // the element's shape is left open: elements of a sequence may differ
        elem->mutable_tensor_type()->set_elem_type(static_cast<int>(t->type));
        return;
      }
    }
    if (t && t->type != ElemType::UNDEFINED && t->rank >= 0) {
      set_tensor_type(*vi.mutable_type()->mutable_tensor_type(), name, t->type, t->dims);
      return;
    }
    if (decl && decl->type().has_tensor_type() && decl->type().tensor_type().has_shape() &&
        decl->type().tensor_type().elem_type() != 0) {
      vi = *decl;
      name_unknown_dims(vi);
      return;
    }
    ElemType type = t ? t->type : ElemType::UNDEFINED;
    if (type == ElemType::UNDEFINED && decl && decl->type().has_tensor_type())
      type = static_cast<ElemType>(decl->type().tensor_type().elem_type());
    if (const onnx::TypeProto* inferred = inferred_type(name);
        inferred && inferred->has_tensor_type() && inferred->tensor_type().has_shape()) {
      *vi.mutable_type() = *inferred;
      if (type != ElemType::UNDEFINED) vi.mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(type));
      if (vi.type().tensor_type().elem_type() != 0) {
        name_unknown_dims(vi);
        return;
      }
    }
    throw InputError(m_.path, "tensor '" + name + "' passes between parts, and neither trtlens nor ONNX shape inference "
                              "knows its " + (type == ElemType::UNDEFINED ? "type" : "rank") +
                              ", so no part can declare it (onnx.checker and ONNX Runtime require it); declare it in the model's value_info");
  }

  // What ONNX shape inference with data propagation says of `name` (a Reshape whose
  // shape is computed: the loader's inference runs without it). Run once, on a copy,
  // only when a boundary needs it, and only where libonnx is known not to crash.
  const onnx::TypeProto* inferred_type(const std::string& name) {
    if (!inferred_ran_) {
      inferred_ran_ = true;
      if (safe_for_shape_inference(source_, m_.path)) {
        onnx::ModelProto copy = source_;
        try {
          onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(),
                                             onnx::ShapeInferenceOptions(false, 0, true));
        } catch (const std::exception&) {
        }
        for (auto& vi : *copy.mutable_graph()->mutable_value_info()) inferred_[vi.name()] = std::move(*vi.mutable_type());
      }
    }
    auto it = inferred_.find(name);
    return it == inferred_.end() ? nullptr : &it->second;
  }

  const Model& m_;
  const onnx::ModelProto& source_;
  bool inferred_ran_ = false;
  std::unordered_map<std::string, onnx::TypeProto> inferred_;
  WeightsFile& weights_;
  std::unordered_map<std::string_view, const onnx::ValueInfoProto*> declared_;
  std::unordered_map<std::string_view, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string_view, const onnx::SparseTensorProto*> sparse_;
  std::unordered_map<std::string, const onnx::FunctionProto*> functions_;
};

// Writes a new file of the private temporary folder. No per-file temporary and rename as in
// write_file_atomic: the folder itself is renamed into place, and write_file_atomic's scan of
// the folder for stale temporaries made writing N parts O(N^2) (10,000 DLA parts: 45 s).
void write_new_file(const std::string& path, const std::string& contents) {
  Fd out;
  out.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out.fd < 0) throw InputError(path, "cannot write: " + errno_text());
  for (size_t done = 0; done < contents.size();) {
    ssize_t n = ::write(out.fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path, "cannot write: " + errno_text());
    done += static_cast<size_t>(n);
  }
  int fd = out.fd;
  out.fd = -1;
  if (::close(fd) != 0) throw InputError(path, "cannot write: " + errno_text());
}

// Refuses folders that must not be replaced.
void check_target(const Model& m, const fs::path& dir, bool force) {
  std::error_code ec;
  auto st = fs::symlink_status(dir, ec);
  if (ec || !fs::exists(st)) return;
  if (fs::is_symlink(st)) throw InputError(dir.string(), "will not replace a symbolic link; give a folder or a new path");
  if (!fs::is_directory(st)) throw InputError(dir.string(), "exists and is not a folder");
  if (fs::is_empty(dir, ec)) return;
  if (!force) throw InputError(dir.string(), "exists and is not empty; use --force to replace its contents");
  fs::path model_dir = fs::weakly_canonical(fs::path(m.path), ec).parent_path();
  fs::path target = fs::weakly_canonical(dir, ec);
  auto rel = model_dir.lexically_relative(target);
  if (!rel.empty() && *rel.begin() != "..")
    throw InputError(dir.string(), "holds the model being partitioned; choose another output folder");
}

}  // namespace

void write_partition(const Model& m, const Partition& p, const std::string& manifest, const std::string& dir,
                     bool force) {
  fs::path target = fs::path(dir).lexically_normal();
  if (target.has_filename() == false) target = target.parent_path();  // "parts/" -> "parts"
  check_target(m, target, force);

  MappedFile file(m.path);
  google::protobuf::Arena arena;
  auto& source = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  try {
    if (!source.ParseFromString(strip_payloads(file.view())))
      throw InputError(m.path, "not an ONNX model: the bytes do not parse as an onnx.ModelProto");
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e)) throw;
    throw InputError(m.path, std::string("not an ONNX model: ") + e.what());
  }
  if (source.graph().node_size() != static_cast<int>(m.graphs[0].nodes.size()))
    throw InputError(m.path, "changed while it was being partitioned");

  fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  remove_stale_temporaries(parent.string());
  std::string tmpl = (parent / (std::string(kTempPrefix) + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw InputError(dir, "cannot write: " + errno_text());
  fs::path tmp(tmpl);
  try {
    WeightsFile weights(m, (tmp / kPartitionWeightsFile).string());
    PartWriter writer(m, source, weights);
    for (size_t k = 0; k < p.parts.size(); ++k) {
      std::string name = part_file_name(p, k);
      write_new_file((tmp / name).string(), writer.serialize(p.parts[k], name.substr(0, name.size() - 5)));
    }
    weights.close();
    write_file_atomic((tmp / "manifest.json").string(), manifest);
    ::chmod(tmp.c_str(), 0755);
    // rename() replaces a missing or empty folder; a full one is swapped with
    // the new folder in one step, then the old contents are removed.
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
      if (errno != ENOTEMPTY && errno != EEXIST) throw InputError(dir, "cannot write: " + errno_text());
      if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0)
        throw InputError(dir, "cannot replace: " + errno_text());
      std::error_code ec;
      fs::remove_all(tmp, ec);
    }
  } catch (const InputError& e) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    // A file of the temporary folder is named as it would have been in the output folder.
    std::string inside = fs::path(e.file()).lexically_relative(tmp).string();
    if (inside.empty() || inside.starts_with("..")) throw;
    throw InputError((target / inside).string(), e.problem());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace trtlens
