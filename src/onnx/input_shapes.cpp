// Input shapes given on the command line, in trtexec's syntax (NVIDIA/TensorRT release/8.6
// samples/common/sampleOptions.cpp:166-199 splitNameAndValue: the name is everything before the
// last ':', or a 'quoted' name; dimensions joined by 'x'), and their application to a model's
// graph inputs before inference (onnx/input_shapes.h).
#include "onnx/input_shapes.h"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "trtlens/error.h"
#include "util/strings.h"

namespace trtlens {
namespace {

std::string dims_text(const std::vector<int64_t>& dims) { return fmt::format("{}", fmt::join(dims, "x")); }

}  // namespace

std::vector<std::pair<std::string, std::vector<int64_t>>> parse_shape_list(std::string_view text,
                                                                           std::string_view option) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  auto bad = [&](std::string_view item, const std::string& why) {
    return UsageError(fmt::format("{} '{}': {} (the form is NAME:DIMS[,NAME:DIMS...], e.g. input:1x3x224x224)",
                                  option, item, why));
  };
  if (text.empty()) throw UsageError(fmt::format("{} is empty; the form is NAME:DIMS, e.g. input:1x3x224x224", option));
  // A quoted name may hold ',' and ':': split on ',' outside quotes.
  std::vector<std::string_view> items;
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '\'') quoted = !quoted;
    if (i == text.size() || (text[i] == ',' && !quoted)) {
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  for (std::string_view item : items) {
    std::string name;
    std::string_view dims;
    if (!item.empty() && item.front() == '\'') {
      size_t close = item.find('\'', 1);
      if (close == std::string_view::npos || close + 1 >= item.size() || item[close + 1] != ':')
        throw bad(item, "a quoted name must be 'NAME':DIMS");
      name = std::string(item.substr(1, close - 1));
      dims = item.substr(close + 2);
    } else {
      size_t colon = item.rfind(':');
      if (colon == std::string_view::npos) throw bad(item, "no ':' between the input name and its dimensions");
      name = std::string(item.substr(0, colon));
      dims = item.substr(colon + 1);
    }
    if (name.empty()) throw bad(item, "the input name is empty");
    std::vector<int64_t> values;
    if (dims.empty()) throw bad(item, "no dimensions");
    for (std::string_view d : split(dims, 'x')) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
      if (d.empty() || ec != std::errc() || p != d.data() + d.size())
        throw bad(item, fmt::format("dimension '{}' is not a whole number", d));
      if (v <= 0) throw bad(item, fmt::format("dimension {} is not positive; every dimension must be at least 1", v));
      values.push_back(v);
    }
    if (std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.first == name; }))
      throw bad(item, fmt::format("input '{}' is given twice", name));
    out.emplace_back(std::move(name), std::move(values));
  }
  return out;
}

std::vector<InputShape> input_shape_profile(std::string_view shapes, std::string_view min_shapes,
                                            std::string_view opt_shapes, std::string_view max_shapes) {
  std::vector<InputShape> out;
  if (!shapes.empty())
    for (auto& [name, dims] : parse_shape_list(shapes, "--shapes")) out.push_back({name, dims, dims, dims});
  if (min_shapes.empty() && opt_shapes.empty() && max_shapes.empty()) return out;
  if (min_shapes.empty() || opt_shapes.empty() || max_shapes.empty())
    throw UsageError("--minShapes, --optShapes and --maxShapes go together: give all three (or --shapes alone)");
  auto min = parse_shape_list(min_shapes, "--minShapes");
  auto opt = parse_shape_list(opt_shapes, "--optShapes");
  auto max = parse_shape_list(max_shapes, "--maxShapes");
  auto find = [](const auto& list, const std::string& name) -> const std::vector<int64_t>* {
    for (const auto& [n, d] : list)
      if (n == name) return &d;
    return nullptr;
  };
  for (const auto* list : {&opt, &max})
    for (const auto& [name, dims] : *list)
      if (!find(min, name))
        throw UsageError(fmt::format("input '{}' is in --{}Shapes but not in --minShapes; each input of the profile "
                                     "needs all three", name, list == &opt ? "opt" : "max"));
  for (const auto& entry : min) {  // no structured binding: a lambda below captures `name` (clang 14)
    const std::string& name = entry.first;
    const std::vector<int64_t>& lo = entry.second;
    const auto* mid = find(opt, name);
    const auto* hi = find(max, name);
    if (!mid || !hi)
      throw UsageError(fmt::format("input '{}' is in --minShapes but not in --{}Shapes; each input of the profile "
                                   "needs all three", name, !mid ? "opt" : "max"));
    if (std::any_of(out.begin(), out.end(), [&](const InputShape& s) { return s.name == name; }))
      throw UsageError(fmt::format("input '{}' is in --shapes and in --minShapes; give it one or the other", name));
    if (lo.size() != mid->size() || lo.size() != hi->size())
      throw UsageError(fmt::format("input '{}' has min {}, opt {} and max {}: the ranks differ", name, dims_text(lo),
                                   dims_text(*mid), dims_text(*hi)));
    for (size_t d = 0; d < lo.size(); ++d)
      if (lo[d] > (*mid)[d] || (*mid)[d] > (*hi)[d])
        throw UsageError(fmt::format("input '{}' has min {}, opt {} and max {}: dimension {} must grow from min to "
                                     "opt to max", name, dims_text(lo), dims_text(*mid), dims_text(*hi), d));
    out.push_back({name, lo, *mid, *hi});
  }
  return out;
}

void apply_input_shapes(onnx::GraphProto& graph, const std::vector<InputShape>& shapes) {
  for (const InputShape& s : shapes) {
    std::string option = s.min == s.max ? "--shapes" : "--minShapes/--maxShapes";
    auto input = std::find_if(graph.mutable_input()->begin(), graph.mutable_input()->end(),
                              [&](const onnx::ValueInfoProto& vi) { return vi.name() == s.name; });
    bool initializer = std::any_of(graph.initializer().begin(), graph.initializer().end(),
                                   [&](const onnx::TensorProto& t) { return t.name() == s.name; });
    if (input == graph.mutable_input()->end() || initializer) {
      std::vector<std::string> names;
      for (const auto& vi : graph.input())
        if (std::none_of(graph.initializer().begin(), graph.initializer().end(),
                         [&](const onnx::TensorProto& t) { return t.name() == vi.name(); }))
          names.push_back(vi.name());
      throw UsageError(fmt::format("{}: the model has no input '{}'{}; its inputs: {}", option, s.name,
                                   initializer ? " (that name is an initializer)" : "",
                                   names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    if (input->type().value_case() != onnx::TypeProto::kTensorType &&
        input->type().value_case() != onnx::TypeProto::VALUE_NOT_SET)
      throw UsageError(fmt::format("{}: input '{}' is not a tensor (a sequence, map or optional has no shape)", option,
                                   s.name));
    onnx::TypeProto_Tensor* tensor = input->mutable_type()->mutable_tensor_type();
    if (tensor->has_shape()) {
      const onnx::TensorShapeProto& declared = tensor->shape();
      if (static_cast<size_t>(declared.dim_size()) != s.opt.size())
        throw UsageError(fmt::format("{}: input '{}' has rank {} in the model; {} has rank {}", option, s.name,
                                     declared.dim_size(), dims_text(s.opt), s.opt.size()));
      for (int d = 0; d < declared.dim_size(); ++d) {
        const auto& dim = declared.dim(d);
        auto k = static_cast<size_t>(d);
        if (dim.has_dim_value() && dim.dim_value() > 0 && (dim.dim_value() != s.min[k] || dim.dim_value() != s.max[k]))
          throw UsageError(fmt::format("{}: input '{}' has dimension {} fixed at {} in the model; {} gives {}", option,
                                       s.name, d, dim.dim_value(), dims_text(s.opt),
                                       s.min[k] == s.max[k] ? fmt::format("{}", s.min[k])
                                                            : fmt::format("{} to {}", s.min[k], s.max[k])));
      }
    }
    onnx::TensorShapeProto shape;
    for (size_t k = 0; k < s.opt.size(); ++k) {
      onnx::TensorShapeProto_Dimension* dim = shape.add_dim();
      if (s.min[k] == s.max[k]) {
        dim->set_dim_value(s.min[k]);
      } else if (tensor->has_shape() && tensor->shape().dim(static_cast<int>(k)).has_dim_param()) {
        dim->set_dim_param(tensor->shape().dim(static_cast<int>(k)).dim_param());
      } else {
        // Dynamic within the profile: a symbol, so that inference keeps equal dimensions equal.
        dim->set_dim_param(fmt::format("{}_dim{}", s.name, k));
      }
    }
    *tensor->mutable_shape() = std::move(shape);
  }
}

}  // namespace trtlens
