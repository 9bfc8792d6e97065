// The rule vocabulary (data/trt/README.md): parsing rule text, and one named
// check function per rule name, registered in rule_specs() below with its hints and its
// words. A new restriction kind is one new function plus one RuleSpec line and a README line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "util/strings.h"
#include "trtlens/kb.h"

namespace trtlens {
namespace {

// ---------------------------------------------------------------- arguments

// What one argument of a rule must look like.
enum class Arg {
  Index,         // "1" or "1:axes" (the name is documentation only)
  IndexOrStar,   // Index, or "*" = every present input
  NumSet,        // "0", "3..5|7", "<10", ">=0"
  ValSet,        // NumSet items or words ("nearest|linear", "FP32|FP16")
  TypeSet,       // normalized type names "FP32|FP16"
  Axis,          // "-1" or "attr:axis:-1"
  Word,          // attribute name
  Str,           // literal text without , ( ) @ ; or spaces
  Default,       // "dflt=V"
};

struct TypeName {
  std::string_view name;
  ElemType type;
};
// Normalized type names of the support tables and the ONNX enum each stands for.
constexpr std::array<TypeName, 13> kTypeNames = {{
    {"DOUBLE", ElemType::DOUBLE}, {"FP32", ElemType::FLOAT}, {"FP16", ElemType::FLOAT16},
    {"BF16", ElemType::BFLOAT16}, {"FP8", ElemType::FLOAT8E4M3FN}, {"FP4", ElemType::FLOAT4E2M1},
    {"E8M0", ElemType::FLOAT8E8M0},
    {"INT4", ElemType::INT4}, {"INT8", ElemType::INT8}, {"UINT8", ElemType::UINT8},
    {"INT32", ElemType::INT32}, {"INT64", ElemType::INT64}, {"BOOL", ElemType::BOOL},
}};

std::optional<ElemType> type_of_name(std::string_view name) {
  for (const auto& t : kTypeNames)
    if (t.name == name) return t.type;
  return std::nullopt;
}

bool is_word(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool parse_number(std::string_view s, double& out) {
  if (s.empty()) return false;
  // Plain decimal numbers only (the grammar has no exponents).
  size_t i = s[0] == '-' ? 1 : 0;
  if (i >= s.size()) return false;
  bool dot = false, digit = false;
  for (size_t j = i; j < s.size(); ++j) {
    if (std::isdigit(static_cast<unsigned char>(s[j]))) {
      digit = true;
    } else if (s[j] == '.' && !dot && j + 1 < s.size()) {
      dot = true;
    } else {
      return false;
    }
  }
  if (!digit) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_int(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// One item of a SET.
struct SetItem {
  enum Kind { Eq, Range, Lt, Le, Gt, Ge, Word } kind = Eq;
  double a = 0, b = 0;
  std::string_view word;
};

std::optional<SetItem> parse_num_item(std::string_view s) {
  SetItem it;
  if (size_t dots = s.find(".."); dots != std::string_view::npos) {
    it.kind = SetItem::Range;
    if (!parse_number(s.substr(0, dots), it.a) || !parse_number(s.substr(dots + 2), it.b)) return std::nullopt;
    return it;
  }
  static constexpr std::array<std::pair<std::string_view, SetItem::Kind>, 4> kOps = {
      {{"<=", SetItem::Le}, {">=", SetItem::Ge}, {"<", SetItem::Lt}, {">", SetItem::Gt}}};
  for (const auto& [prefix, kind] : kOps) {
    if (s.starts_with(prefix)) {
      it.kind = kind;
      return parse_number(s.substr(prefix.size()), it.a) ? std::optional(it) : std::nullopt;
    }
  }
  it.kind = SetItem::Eq;
  return parse_number(s, it.a) ? std::optional(it) : std::nullopt;
}

std::optional<std::vector<SetItem>> parse_set(std::string_view s, bool words_allowed) {
  std::vector<SetItem> out;
  for (std::string_view item : split(s, '|')) {
    if (auto num = parse_num_item(item)) {
      out.push_back(*num);
    } else if (words_allowed && is_word(item)) {
      SetItem w;
      w.kind = SetItem::Word;
      w.word = item;
      out.push_back(w);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

bool valid_index(std::string_view s) {
  size_t colon = s.find(':');
  std::string_view num = s.substr(0, colon);
  int64_t v = 0;
  if (!parse_int(num, v) || v < 0 || num.starts_with('+')) return false;
  return colon == std::string_view::npos || is_word(s.substr(colon + 1));
}

bool valid_arg(Arg kind, std::string_view s) {
  switch (kind) {
    case Arg::Index: return valid_index(s);
    case Arg::IndexOrStar: return s == "*" || valid_index(s);
    case Arg::NumSet: return parse_set(s, false).has_value();
    case Arg::ValSet: return parse_set(s, true).has_value();
    case Arg::TypeSet: {
      auto items = split(s, '|');
      return std::all_of(items.begin(), items.end(), [](std::string_view t) { return type_of_name(t).has_value(); });
    }
    case Arg::Axis: {
      int64_t v = 0;
      if (parse_int(s, v)) return true;
      if (!s.starts_with("attr:")) return false;
      auto parts = split(s.substr(5), ':');
      return parts.size() == 2 && is_word(parts[0]) && parse_int(parts[1], v);
    }
    case Arg::Word: return is_word(s);
    case Arg::Str:
      return !s.empty() && s.find_first_of(",()@; \t") == std::string_view::npos;
    case Arg::Default: {
      if (!s.starts_with("dflt=")) return false;
      double d = 0;
      std::string_view v = s.substr(5);
      return parse_number(v, d) || is_word(v);
    }
  }
  return false;
}

// A number (attribute int/float, tensor element) or a word (attribute string).
struct Value {
  bool is_word = false;
  double num = 0;
  std::string_view word;
};

bool matches(const SetItem& it, const Value& v) {
  if (it.kind == SetItem::Word) {
    if (v.is_word) return v.word == it.word;
    // A type name stands for its ONNX enum value (Cast.to, Random*.dtype).
    auto t = type_of_name(it.word);
    return t && v.num == static_cast<double>(static_cast<int>(*t));
  }
  if (v.is_word) return it.kind == SetItem::Eq && v.word == it.word;
  switch (it.kind) {
    case SetItem::Eq: return v.num == it.a;
    case SetItem::Range: return v.num >= it.a && v.num <= it.b;
    case SetItem::Lt: return v.num < it.a;
    case SetItem::Le: return v.num <= it.a;
    case SetItem::Gt: return v.num > it.a;
    case SetItem::Ge: return v.num >= it.a;
    case SetItem::Word: break;
  }
  return false;
}

// Calls fn on each item of a SET text validated by parse_rule; no allocation,
// as checks run for every node, release and precision.
template <class Fn>
bool any_item(std::string_view set, Fn fn) {
  for (size_t start = 0; start <= set.size();) {
    size_t bar = std::min(set.find('|', start), set.size());
    std::string_view text = set.substr(start, bar - start);
    SetItem it;
    if (auto num = parse_num_item(text)) {
      it = *num;
      it.word = text;  // a string attribute matches a number item by its text ("1", as plugin_version)
    } else {
      it.kind = SetItem::Word;
      it.word = text;
    }
    if (fn(it)) return true;
    start = bar + 1;
  }
  return false;
}

bool in_set(std::string_view set, const Value& v) {
  return any_item(set, [&](const SetItem& it) { return matches(it, v); });
}

std::string format_number(double d) {
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<int64_t>(d));
  return fmt::format("{}", d);
}

// A SET in words: "0", "3 to 5", "one of nearest, linear", "at least 11", "FP32, FP16 or INT8".
std::string set_words(std::string_view set) {
  std::vector<std::string> items;
  for (std::string_view text : split(set, '|')) {
    auto num = parse_num_item(text);
    if (!num) {
      items.emplace_back(text);
      continue;
    }
    switch (num->kind) {
      case SetItem::Range: items.push_back(format_number(num->a) + " to " + format_number(num->b)); break;
      case SetItem::Lt: items.push_back("below " + format_number(num->a)); break;
      case SetItem::Le: items.push_back("at most " + format_number(num->a)); break;
      case SetItem::Gt: items.push_back("above " + format_number(num->a)); break;
      case SetItem::Ge: items.push_back("at least " + format_number(num->a)); break;
      default: items.push_back(format_number(num->a)); break;
    }
  }
  if (items.size() == 1) return items[0];
  return "one of " + fmt::format("{}", fmt::join(items, ", "));
}

// ---------------------------------------------------------------- node facts

struct Ctx {
  const Model& model;
  const Graph& graph;
  const Node& node;
};

RuleCheck holds() { return {}; }
RuleCheck fails(std::string msg) { return {RuleOutcome::Fails, std::move(msg), {}}; }
RuleCheck unknown(std::string msg) { return {RuleOutcome::Unknown, std::move(msg), {}}; }

// Position of an "I" or "I:name" argument, and its readable name.
struct Index {
  size_t pos = 0;
  std::string_view doc;
};
Index index_arg(std::string_view s) {
  Index ix;
  size_t colon = s.find(':');
  int64_t v = 0;
  parse_int(s.substr(0, colon), v);
  ix.pos = static_cast<size_t>(v);
  if (colon != std::string_view::npos) ix.doc = s.substr(colon + 1);
  return ix;
}

bool input_present(const Node& n, size_t pos) { return pos < n.inputs.size() && !n.inputs[pos].empty(); }

// "input 1 axes (shape_tensor)": position, the rule's readable name, the tensor.
std::string describe_input(const Node& n, const Index& ix) {
  std::string s = fmt::format("input {}", ix.pos);
  if (!ix.doc.empty()) s += fmt::format(" {}", ix.doc);
  if (input_present(n, ix.pos)) s += fmt::format(" ({})", n.inputs[ix.pos]);
  return s;
}

// Input `pos` of the judged node as its readers see it, through the graph index
// (an enclosing graph's tensor for an outer read); nullptr when omitted.
const TensorInfo* input_tensor(const Ctx& c, size_t pos) { return c.graph.input(c.node, pos); }

bool is_constant(const TensorInfo& t) {
  return t.origin == TensorOrigin::Initializer || t.origin == TensorOrigin::ConstantNode;
}

// Constness of a present input: Holds = constant, Fails = produced at run
// time, Unknown = the loader could not tell. The message says where it comes from.
struct Constness {
  RuleOutcome outcome;
  std::string_view where;  // "a graph input", "computed at run time", ...
  bool foldable = false;
};
Constness constness(const TensorInfo* t) {
  if (!t) return {RuleOutcome::Unknown, "not described in the model"};
  switch (t->origin) {
    case TensorOrigin::Initializer: return {RuleOutcome::Holds, "an initializer"};
    case TensorOrigin::ConstantNode: return {RuleOutcome::Holds, "the output of a Constant node"};
    case TensorOrigin::GraphInput: return {RuleOutcome::Fails, "a graph input", t->const_foldable};
    case TensorOrigin::Computed: return {RuleOutcome::Fails, "computed at run time", t->const_foldable};
    case TensorOrigin::OuterScope: return {RuleOutcome::Unknown, "read from an enclosing graph that does not describe it"};
    case TensorOrigin::Unknown: break;
  }
  return {RuleOutcome::Unknown, "of unknown origin"};
}

constexpr std::string_view kFoldHint =
    "; it is constant-foldable: fold constants first (e.g. polygraphy surgeon sanitize --fold-constants)";

std::string type_label(ElemType t) { return std::string(elem_type_trt_name(t)); }

// ---------------------------------------------------------------- checks, one per rule name

// const_input and nonconst_input: one question, the opposite answer holds.
RuleCheck check_input_constness(const Rule& r, const Ctx& c, bool want_constant) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  Constness k = constness(input_tensor(c, ix.pos));
  if (k.outcome == (want_constant ? RuleOutcome::Holds : RuleOutcome::Fails)) return holds();
  std::string input = describe_input(c.node, ix);
  if (k.outcome == RuleOutcome::Unknown)
    return unknown(want_constant ? fmt::format("{} is {}, so whether it is a constant is unknown; release requires a "
                                               "constant", input, k.where)
                                 : fmt::format("{} is {}, so whether it is computed at run time is unknown; release "
                                               "requires a run-time tensor", input, k.where));
  if (want_constant)
    return fails(fmt::format("{} is {}; release requires a constant (initializer or Constant output){}", input, k.where,
                             k.foldable ? kFoldHint : ""));
  return fails(fmt::format("{} is {}; release requires a tensor computed at run time, not a constant", input, k.where));
}

RuleCheck check_const_input(const Rule& r, const Ctx& c) { return check_input_constness(r, c, true); }
RuleCheck check_nonconst_input(const Rule& r, const Ctx& c) { return check_input_constness(r, c, false); }

// The node that writes input `pos` of the judged node in this graph (GraphIndex), or null.
const Node* producer(const Ctx& c, size_t pos) {
  TensorId t = c.graph.input_id(c.node, pos);
  if (t == kNoTensor || static_cast<size_t>(t) >= c.graph.index.producer.size()) return nullptr;
  int p = c.graph.index.producer[static_cast<size_t>(t)];
  return p < 0 ? nullptr : &c.graph.nodes[static_cast<size_t>(p)];
}

RuleCheck check_weights_input(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  Constness k = constness(input_tensor(c, ix.pos));
  if (k.outcome == RuleOutcome::Holds) return holds();
  if (k.outcome == RuleOutcome::Unknown)
    return unknown(fmt::format("{} is {}, so whether it holds constant weights is unknown", describe_input(c.node, ix), k.where));
  // Quantized weights: DequantizeLinear(constant) counts as weights.
  if (const Node* p = producer(c, ix.pos); p && p->op_type == "DequantizeLinear" && (p->domain.empty() || p->domain == "ai.onnx")) {
    if (!input_present(*p, 0))
      return fails(fmt::format("{} comes from DequantizeLinear {} without a data input; release requires constant weights",
                               describe_input(c.node, ix), node_label(*p)));
    Constness data = constness(c.graph.input(*p, 0));
    if (data.outcome == RuleOutcome::Holds) return holds();
    if (data.outcome == RuleOutcome::Unknown)
      return unknown(fmt::format("{} comes from DequantizeLinear {} whose data input ({}) is {}; whether it is constant is unknown",
                                 describe_input(c.node, ix), node_label(*p), p->inputs[0], data.where));
    return fails(fmt::format("{} comes from DequantizeLinear {} whose data input ({}) is {}; release requires constant "
                             "weights (or DequantizeLinear of constant weights){}",
                             describe_input(c.node, ix), node_label(*p), p->inputs[0], data.where, data.foldable ? kFoldHint : ""));
  }
  return fails(fmt::format("{} is {}; release requires constant weights (or DequantizeLinear of constant weights){}",
                           describe_input(c.node, ix), k.where, k.foldable ? kFoldHint : ""));
}

RuleCheck check_input_present(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (input_present(c.node, ix.pos)) return holds();
  return fails(fmt::format("optional {} is absent; release requires it", describe_input(c.node, ix)));
}

RuleCheck check_input_absent(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  return fails(fmt::format("optional {} is given; release requires it to be absent", describe_input(c.node, ix)));
}

RuleCheck check_value_in(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  std::string_view set = r.args[1];
  if (!input_present(c.node, ix.pos)) return holds();
  const TensorInfo* t = input_tensor(c, ix.pos);
  // The parser only checks values it can see: run-time tensors pass.
  if (!t || !is_constant(*t)) return holds();
  if (!t->values)
    return unknown(fmt::format("{} is a constant whose values are not known (too large or stored externally); "
                               "release requires every value to be {}", describe_input(c.node, ix), set_words(r.args[1])));
  for (double v : *t->values)
    if (!in_set(set, Value{false, v, {}}))
      return fails(fmt::format("{} holds the value {}; release requires every value to be {}",
                               describe_input(c.node, ix), format_number(v), set_words(r.args[1])));
  return holds();
}

RuleCheck check_input_types(const Rule& r, const Ctx& c) {
  bool every = r.args[0] == "*";
  size_t first = every ? 0 : index_arg(r.args[0]).pos;
  size_t last = every ? c.node.inputs.size() : first + 1;
  std::string_view allowed = r.args[1];
  std::optional<RuleCheck> undecided;
  for (size_t pos = first; pos < last; ++pos) {
    if (!input_present(c.node, pos)) continue;
    Index ix = every ? Index{pos, {}} : index_arg(r.args[0]);
    const TensorInfo* t = input_tensor(c, pos);
    if (!t || t->type == ElemType::UNDEFINED) {
      if (!undecided)
        undecided = unknown(fmt::format("element type of {} is unknown; release requires {}", describe_input(c.node, ix),
                                        set_words(r.args[1])));
      continue;
    }
    std::string_view name = elem_type_trt_name(t->type);
    if (!any_item(allowed, [&](const SetItem& it) { return it.word == name; }))
      return fails(fmt::format("{} is {}; release requires {}", describe_input(c.node, ix), name, set_words(r.args[1])));
  }
  return undecided ? *undecided : holds();
}

RuleCheck check_rank(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  std::string_view set = r.args[1];
  if (!input_present(c.node, ix.pos)) return holds();
  const TensorInfo* t = input_tensor(c, ix.pos);
  if (!t || t->rank < 0)
    return unknown(fmt::format("rank of {} is unknown; release requires rank {}", describe_input(c.node, ix),
                               set_words(r.args[1])));
  if (in_set(set, Value{false, static_cast<double>(t->rank), {}})) return holds();
  return fails(fmt::format("{} has rank {}; release requires rank {}", describe_input(c.node, ix), t->rank,
                           set_words(r.args[1])));
}

std::string describe_dim(const Dim& d, size_t axis) {
  return d.param.empty() ? fmt::format("dimension {}", axis) : fmt::format("dimension {} ({})", axis, d.param);
}

RuleCheck check_static_shape(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  const TensorInfo* t = input_tensor(c, ix.pos);
  if (!t || t->rank < 0 || t->dims.size() != static_cast<size_t>(t->rank))
    return unknown(fmt::format("shape of {} is unknown; release requires a static shape", describe_input(c.node, ix)));
  std::optional<size_t> unknown_axis;
  for (size_t i = 0; i < t->dims.size(); ++i) {
    const Dim& d = t->dims[i];
    if (d.fixed()) continue;
    // A named dimension, or any free dimension of a graph input, is dynamic for
    // sure; an unnamed one of a computed tensor may just be unknown to inference.
    if (!d.param.empty() || t->origin == TensorOrigin::GraphInput)
      return fails(fmt::format("{} has dynamic {}; release requires a static shape", describe_input(c.node, ix), describe_dim(d, i)));
    if (!unknown_axis) unknown_axis = i;
  }
  if (unknown_axis)
    return unknown(fmt::format("dimension {} of {} is unknown; release requires a static shape", *unknown_axis,
                               describe_input(c.node, ix)));
  return holds();
}

// An AXIS argument ("-1" or "attr:NAME:DEFAULT") on the node: the axis and how to name it.
std::pair<int64_t, std::string> axis_arg(std::string_view spec, const Node& n) {
  int64_t axis = 0;
  if (!spec.starts_with("attr:")) {
    parse_int(spec, axis);
    return {axis, fmt::format("axis {}", axis)};
  }
  auto parts = split(spec.substr(5), ':');
  parse_int(parts[1], axis);
  const Attribute* a = n.attribute(parts[0]);
  if (a && a->kind == Attribute::Kind::Int) return {a->i, fmt::format("axis {} (attribute {})", a->i, parts[0])};
  return {axis, fmt::format("axis {} (default of attribute {})", axis, parts[0])};
}

RuleCheck check_static_dim(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  auto [axis, axis_text] = axis_arg(r.args[1], c.node);
  const TensorInfo* t = input_tensor(c, ix.pos);
  if (!t || t->rank < 0 || t->dims.size() != static_cast<size_t>(t->rank))
    return unknown(fmt::format("shape of {} is unknown; release requires {} to be static", describe_input(c.node, ix), axis_text));
  int64_t a = axis < 0 ? axis + t->rank : axis;
  if (a < 0 || a >= t->rank)
    return fails(fmt::format("{} is outside the rank {} of {}", axis_text, t->rank, describe_input(c.node, ix)));
  const Dim& d = t->dims[static_cast<size_t>(a)];
  if (d.fixed()) return holds();
  if (!d.param.empty() || t->origin == TensorOrigin::GraphInput)
    return fails(fmt::format("{} has dynamic {} at {}; release requires it to be static", describe_input(c.node, ix),
                             describe_dim(d, static_cast<size_t>(a)), axis_text));
  return unknown(fmt::format("{} of {} is unknown; release requires it to be static", describe_dim(d, static_cast<size_t>(a)),
                             describe_input(c.node, ix)));
}

RuleCheck check_output_unused(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (ix.pos >= c.node.outputs.size() || c.node.outputs[ix.pos].empty()) return holds();
  return fails(fmt::format("output {}{} ({}) is declared; release requires the node not to produce it", ix.pos,
                           ix.doc.empty() ? "" : " " + std::string(ix.doc), c.node.outputs[ix.pos]));
}

// Values of an attribute as Values; nullopt when they cannot be compared
// (a tensor whose values are not known, a graph, ...).
std::optional<std::vector<Value>> attribute_values(const Attribute& a) {
  std::vector<Value> out;
  switch (a.kind) {
    case Attribute::Kind::Int: out.push_back({false, static_cast<double>(a.i), {}}); break;
    case Attribute::Kind::Float: out.push_back({false, a.f, {}}); break;
    case Attribute::Kind::String: out.push_back({true, 0, a.s}); break;
    case Attribute::Kind::Ints:
      for (int64_t v : a.ints) out.push_back({false, static_cast<double>(v), {}});
      break;
    case Attribute::Kind::Floats:
      for (double v : a.floats) out.push_back({false, v, {}});
      break;
    case Attribute::Kind::Strings:
      for (const auto& s : a.strings) out.push_back({true, 0, s});
      break;
    case Attribute::Kind::Tensor:
      if (!a.tensor_values) return std::nullopt;
      for (double v : *a.tensor_values) out.push_back({false, v, {}});
      break;
    default:
      return std::nullopt;
  }
  return out;
}

// How a value reads in a message; type enums are shown by name when the set names types.
std::string value_text(const Value& v, std::string_view set) {
  if (v.is_word) return std::string(v.word);
  bool names_types = any_item(set, [](const SetItem& it) { return it.kind == SetItem::Word && type_of_name(it.word); });
  // Only values an int holds can be enum values (Cast `to` = 2^40 is not: fuzz finding F11).
  if (names_types && v.num == std::floor(v.num) && std::fabs(v.num) <= INT_MAX)
    return fmt::format("{} ({})", type_label(static_cast<ElemType>(static_cast<int>(v.num))), format_number(v.num));
  return format_number(v.num);
}

RuleCheck check_attr_in(const Rule& r, const Ctx& c) {
  std::string_view name = r.args[0];
  std::string_view set = r.args[1];
  const Attribute* a = c.node.attribute(name);
  if (!a) {
    if (r.args.size() < 3) return holds();
    std::string_view dflt = std::string_view(r.args[2]).substr(5);
    Value v{true, 0, dflt};
    if (double d = 0; parse_number(dflt, d)) v = Value{false, d, {}};
    if (in_set(set, v)) return holds();
    return fails(fmt::format("attribute {} is not set (default {}); release requires {}", name, dflt, set_words(r.args[1])));
  }
  auto values = attribute_values(*a);
  if (!values)
    return unknown(fmt::format("value of attribute {} is not known; release requires {}", name, set_words(r.args[1])));
  for (const Value& v : *values)
    if (!in_set(set, v))
      return fails(fmt::format("attribute {} is {}; release requires {}", name, value_text(v, set), set_words(r.args[1])));
  return holds();
}

RuleCheck check_attr_all(const Rule& r, const Ctx& c) {
  std::string_view name = r.args[0];
  std::string_view set = r.args[1];
  const Attribute* a = c.node.attribute(name);
  if (!a) return holds();
  auto values = attribute_values(*a);
  if (!values)
    return unknown(fmt::format("value of attribute {} is not known; release requires every element to be {}", name,
                               set_words(r.args[1])));
  for (size_t i = 0; i < values->size(); ++i)
    if (!in_set(set, (*values)[i]))
      return fails(fmt::format("attribute {} has {} at position {}; release requires every element to be {}", name,
                               value_text((*values)[i], set), i, set_words(r.args[1])));
  return holds();
}

RuleCheck check_attr_absent(const Rule& r, const Ctx& c) {
  if (!c.node.attribute(r.args[0])) return holds();
  return fails(fmt::format("attribute {} is set; release requires it to be absent", r.args[0]));
}

RuleCheck check_attr_no_substr(const Rule& r, const Ctx& c) {
  const Attribute* a = c.node.attribute(r.args[0]);
  if (!a) return holds();
  if (a->kind != Attribute::Kind::String)
    return unknown(fmt::format("attribute {} is not a string; release requires it not to contain \"{}\"", r.args[0], r.args[1]));
  if (a->s.find(r.args[1]) == std::string::npos) return holds();
  return fails(fmt::format("attribute {} (\"{}\") contains \"{}\"; release does not support that", r.args[0], a->s, r.args[1]));
}

RuleCheck check_pads_symmetric(const Rule&, const Ctx& c) {
  const Attribute* a = c.node.attribute("pads");
  if (!a) return holds();
  if (a->kind != Attribute::Kind::Ints || a->ints.size() % 2 != 0)
    return unknown("attribute pads is not a list of begin and end values; release requires symmetric padding");
  size_t k = a->ints.size() / 2;
  for (size_t i = 0; i < k; ++i)
    if (a->ints[i] != a->ints[i + k])
      return fails(fmt::format("attribute pads [{}] pads spatial axis {} by {} at the begin and {} at the end; "
                               "release requires equal begin and end padding",
                               fmt::join(a->ints, ","), i, a->ints[i], a->ints[i + k]));
  return holds();
}

// Activation functions per direction and their ONNX defaults, by recurrent op.
std::vector<std::string> default_activations(std::string_view op) {
  if (op == "LSTM") return {"Sigmoid", "Tanh", "Tanh"};
  if (op == "GRU") return {"Sigmoid", "Tanh"};
  if (op == "RNN") return {"Tanh"};
  return {};
}

RuleCheck check_bidir_same_activations(const Rule&, const Ctx& c) {
  const Attribute* dir = c.node.attribute("direction");
  if (!dir || dir->kind != Attribute::Kind::String || dir->s != "bidirectional") return holds();
  std::vector<std::string> defaults = default_activations(c.node.op_type);
  const Attribute* acts = c.node.attribute("activations");
  size_t k = defaults.size();
  if (acts && k == 0) k = acts->strings.size() / 2;
  // Missing entries take the ONNX defaults; the halves are compared name by name.
  auto activation = [&](size_t i) -> std::string {
    if (acts && i < acts->strings.size()) return acts->strings[i];
    return defaults.empty() ? std::string() : defaults[i % k];
  };
  for (size_t i = 0; i < k; ++i)
    if (activation(i) != activation(i + k))
      return fails(fmt::format("bidirectional node uses activation {} forward and {} in reverse (function {}); "
                               "release requires the same activations in both directions",
                               activation(i), activation(i + k), i));
  for (std::string_view list : {"activation_alpha", "activation_beta"}) {
    const Attribute* a = c.node.attribute(list);
    if (!a || a->floats.empty()) continue;
    size_t n = a->floats.size();
    bool same = n % 2 == 0 && std::equal(a->floats.begin(), a->floats.begin() + static_cast<long>(n / 2),
                                          a->floats.begin() + static_cast<long>(n / 2));
    if (!same)
      return fails(fmt::format("bidirectional node has {} [{}] that differ between the forward and reverse halves; "
                               "release requires the same activations in both directions",
                               list, fmt::join(a->floats, ",")));
  }
  return holds();
}

RuleCheck check_opset(const Rule& r, const Ctx& c) {
  std::string_view set = r.args[0];
  int64_t opset = c.model.default_opset();
  if (opset <= 0)
    return unknown(fmt::format("the model does not import the default ONNX domain; release requires opset {}",
                               set_words(r.args[0])));
  if (in_set(set, Value{false, static_cast<double>(opset), {}})) return holds();
  return fails(fmt::format("the model's default-domain opset is {}; release requires opset {}", opset, set_words(r.args[0])));
}

// Einsum: the characters the importer accepts in `equation` (8.2-GA builtin_op_importers.cpp:1320,
// 10.1-GA onnxOpCheckers.cpp:265-283): lowercase letters, ',', '-', '>', '.', ' '.
RuleCheck check_einsum_subscripts(const Rule&, const Ctx& c) {
  const Attribute* a = c.node.attribute("equation");
  if (!a || a->kind != Attribute::Kind::String) return holds();
  std::string bad;
  for (char ch : a->s) {
    bool ok = (ch >= 'a' && ch <= 'z') || ch == ',' || ch == '-' || ch == '>' || ch == '.' || ch == ' ';
    if (!ok && bad.find(ch) == std::string::npos) bad.push_back(ch);
  }
  if (bad.empty()) return holds();
  return fails(fmt::format("attribute equation (\"{}\") uses '{}'; release accepts only lowercase letters a-z, "
                           "',', '->', '.' and spaces", a->s, fmt::join(bad, "', '")));
}

// Einsum: a subscript repeated inside one input term takes a diagonal ("ii->i").
RuleCheck check_einsum_no_diagonal(const Rule&, const Ctx& c) {
  const Attribute* a = c.node.attribute("equation");
  if (!a || a->kind != Attribute::Kind::String) return holds();
  std::string_view eq = a->s;
  eq = eq.substr(0, std::min(eq.size(), eq.find("->")));
  size_t term = 0;
  for (std::string_view t : split(eq, ',')) {
    std::array<bool, 256> seen{};
    for (char ch : t) {
      if (!std::isalpha(static_cast<unsigned char>(ch))) continue;
      if (seen[static_cast<unsigned char>(ch)])
        return fails(fmt::format("input {} of equation \"{}\" repeats subscript '{}' (a diagonal); release does not "
                                 "support diagonal Einsum", term, a->s, ch));
      seen[static_cast<unsigned char>(ch)] = true;
    }
    ++term;
  }
  return holds();
}

// The element types of the inputs in args[1] equal the type of input args[0].
RuleCheck check_same_types(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  const TensorInfo* base = input_tensor(c, ix.pos);
  std::optional<RuleCheck> undecided;
  for (std::string_view item : split(r.args[1], '|')) {
    int64_t pos = 0;
    if (!parse_int(item, pos) || pos < 0 || !input_present(c.node, static_cast<size_t>(pos))) continue;
    const TensorInfo* t = input_tensor(c, static_cast<size_t>(pos));
    if (!base || !t || base->type == ElemType::UNDEFINED || t->type == ElemType::UNDEFINED) {
      undecided = unknown(fmt::format("element type of input {} or {} is unknown; release requires input {} of the "
                                      "type of {}", ix.pos, pos, pos, describe_input(c.node, ix)));
      continue;
    }
    if (t->type != base->type)
      return fails(fmt::format("input {} ({}) is {} and {} is {}; release requires the same element type", pos,
                               c.node.inputs[static_cast<size_t>(pos)], elem_type_trt_name(t->type),
                               describe_input(c.node, ix), elem_type_trt_name(base->type)));
  }
  return undecided ? *undecided : holds();
}

// Resize with constant scales: linear resizes only the innermost 3 axes, cubic the innermost 2
// (canUseNDResize, 10.1-GA importerUtils.cpp:265, called at onnxOpImporters.cpp:4614/4620). As the
// importer does, the first (number of scales - 3 or 2) entries of the rank-ordered scales must be 1.
RuleCheck check_resize_nd(const Rule& r, const Ctx& c) {
  const Attribute* mode = c.node.attribute("mode");
  std::string_view m = mode && mode->kind == Attribute::Kind::String ? std::string_view(mode->s) : "nearest";
  size_t keep = m == "linear" ? 3 : m == "cubic" ? 2 : 0;
  Index ix = index_arg(r.args[0]);
  if (keep == 0 || !input_present(c.node, ix.pos)) return holds();
  const TensorInfo* t = input_tensor(c, ix.pos);
  if (!t || !is_constant(*t)) return holds();
  if (!t->values)
    return unknown(fmt::format("{} is a constant whose values are not known; release resizes with mode {} only the "
                               "innermost {} axes", describe_input(c.node, ix), m, keep));
  std::vector<double> ordered = *t->values;
  if (const Attribute* axes = c.node.attribute("axes"); axes && !axes->ints.empty()) {
    const TensorInfo* x = input_present(c.node, 0) ? input_tensor(c, 0) : nullptr;
    if (!x || x->rank < 0)
      return unknown(fmt::format("rank of input 0 is unknown; release resizes with mode {} only the innermost {} axes",
                                 m, keep));
    ordered.assign(static_cast<size_t>(x->rank), 1.0);
    for (size_t i = 0; i < axes->ints.size() && i < t->values->size(); ++i) {
      int64_t axis = axes->ints[i] < 0 ? axes->ints[i] + x->rank : axes->ints[i];
      if (axis >= 0 && axis < x->rank) ordered[static_cast<size_t>(axis)] = (*t->values)[i];
    }
  }
  size_t checked = t->values->size() > keep ? t->values->size() - keep : 0;
  for (size_t i = 0; i < checked && i < ordered.size(); ++i)
    if (ordered[i] != 1.0)
      return fails(fmt::format("{} scales axis {} by {}; release resizes with mode {} only the innermost {} axes",
                               describe_input(c.node, ix), i, format_number(ordered[i]), m, keep));
  return holds();
}

// The axis an AXIS argument names, counted against the rank of input I, is one of its last N axes
// (ITopKLayer: "reduceAxes ... must be one of the last four dimensions"; ArgMax/ArgMin import as TopK).
RuleCheck check_axis_last(const Rule& r, const Ctx& c) {
  Index ix = index_arg(r.args[0]);
  if (!input_present(c.node, ix.pos)) return holds();
  auto [axis, axis_text] = axis_arg(r.args[1], c.node);
  int64_t last = 0;
  parse_int(r.args[2], last);
  // Axes -1 .. -N are among the last N whatever the rank.
  if (axis < 0 && axis >= -last) return holds();
  const TensorInfo* t = input_tensor(c, ix.pos);
  if (!t || t->rank < 0)
    return unknown(fmt::format("rank of {} is unknown; release requires {} to be one of its last {} axes",
                               describe_input(c.node, ix), axis_text, last));
  int64_t a = axis < 0 ? axis + t->rank : axis;
  if (a >= t->rank - last && a < t->rank) return holds();
  if (a < 0 || a >= t->rank)
    return fails(fmt::format("{} is outside the rank {} of {}", axis_text, t->rank, describe_input(c.node, ix)));
  return fails(fmt::format("{} of {} (rank {}) is not one of its last {} axes; release reduces only over the last {} "
                           "axes", axis_text, describe_input(c.node, ix), t->rank, last, last));
}

// The graph held by the node's graph attribute `name` (If branches, Loop body); null when not loaded.
const Graph* subgraph(const Ctx& c, std::string_view name) {
  const Attribute* a = c.node.attribute(name);
  if (!a || a->graphs.empty() || a->graphs[0] < 0 || static_cast<size_t>(a->graphs[0]) >= c.model.graphs.size())
    return nullptr;
  return &c.model.graphs[static_cast<size_t>(a->graphs[0])];
}

// Output k of a subgraph as its readers see it; null when the graph does not describe it.
const TensorInfo* graph_output(const Graph& g, size_t k) {
  return k < g.outputs.size() ? g.at(g.id(g.outputs[k])) : nullptr;
}

// Loop: a scan output gets its length from the trip limit. The importer treats an absent trip
// count, and a constant INT64 one of INT32_MAX or more (how scripted `while` loops export), as no
// trip limit, and from 10.11 refuses a scan output then ("cannot infer the shape of scan output").
RuleCheck check_loop_scan_trip_limit(const Rule&, const Ctx& c) {
  const Graph* body = subgraph(c, "body");
  if (!body) return unknown("the Loop's body graph is not known; release requires a trip limit for scan outputs");
  size_t states = c.node.inputs.size() > 2 ? c.node.inputs.size() - 2 : 0;
  if (body->outputs.size() <= 1 + states) return holds();
  size_t scans = body->outputs.size() - 1 - states;
  std::string what = fmt::format("the Loop has {} scan output{} (body output '{}'{})", scans, scans > 1 ? "s" : "",
                                 body->outputs[1 + states], scans > 1 ? ", ..." : "");
  if (!input_present(c.node, 0))
    return fails(fmt::format("{} and no trip count M; release cannot infer the shape of a scan output without a "
                             "trip limit", what));
  const TensorInfo* m = input_tensor(c, 0);
  // A trip count computed at run time is a trip limit; the importer only reads constant INT64 ones.
  if (!m || !is_constant(*m) || m->type != ElemType::INT64) return holds();
  if (!m->values || m->values->empty())
    return unknown(fmt::format("{} and a constant trip count whose value is not known; release treats a trip count "
                               "of INT32_MAX or more as no trip limit", what));
  double v = m->values->front();
  if (v < static_cast<double>(INT32_MAX)) return holds();
  return fails(fmt::format("{} and the constant trip count {} (INT32_MAX or more, which the importer reads as no trip "
                           "limit: a `while` loop); release cannot infer the shape of a scan output without a trip limit",
                           what, v >= 9.2233720368547748e18 ? std::string("INT64_MAX") : fmt::format("{:.0f}", v)));
}

// Shapes of two tensors: Fails when they surely differ (rank, or two fixed sizes), Unknown when
// a rank or a dimension is not known, Holds when equal. `differ` names the first difference.
RuleOutcome compare_shapes(const TensorInfo* a, const TensorInfo* b, bool ranks_only, std::string& differ) {
  if (!a || !b || a->rank < 0 || b->rank < 0) return RuleOutcome::Unknown;
  if (a->rank != b->rank) {
    differ = fmt::format("rank {} and rank {}", a->rank, b->rank);
    return RuleOutcome::Fails;
  }
  if (ranks_only) return RuleOutcome::Holds;
  if (a->dims.size() != b->dims.size()) return RuleOutcome::Unknown;
  RuleOutcome out = RuleOutcome::Holds;
  for (size_t i = 0; i < a->dims.size(); ++i) {
    const Dim &x = a->dims[i], &y = b->dims[i];
    if (x.fixed() && y.fixed()) {
      if (x.value == y.value) continue;
      differ = fmt::format("size {} and size {} at axis {}", x.value, y.value, i);
      return RuleOutcome::Fails;
    }
    if (!x.fixed() && !y.fixed() && !x.param.empty() && x.param == y.param) continue;
    out = RuleOutcome::Unknown;
  }
  return out;
}

// Loop: each loop-carried state keeps its shape (IRecurrenceLayer: the next value "must have the
// same dimensions as input 0"): node input 2+i against body output 1+i.
RuleCheck check_loop_state_shapes(const Rule&, const Ctx& c) {
  const Graph* body = subgraph(c, "body");
  if (!body) return unknown("the Loop's body graph is not known; release requires each loop-carried state to keep its shape");
  std::optional<RuleCheck> undecided;
  for (size_t i = 2; i < c.node.inputs.size(); ++i) {
    if (c.node.inputs[i].empty()) continue;
    const TensorInfo* init = input_tensor(c, i);
    const TensorInfo* next = graph_output(*body, i - 1);
    std::string differ;
    RuleOutcome o = compare_shapes(init, next, false, differ);
    std::string state = fmt::format("loop-carried state {} (initial '{}', next '{}')", i - 2, c.node.inputs[i],
                                    i - 1 < body->outputs.size() ? body->outputs[i - 1] : std::string("?"));
    if (o == RuleOutcome::Fails)
      return fails(fmt::format("{} changes shape in the body: {}; release requires the next value to have the "
                               "dimensions of the initial one", state, differ));
    if (o == RuleOutcome::Unknown && !undecided)
      undecided = unknown(fmt::format("the shape of {} is not known in full; release requires the next value to have "
                                      "the dimensions of the initial one", state));
  }
  return undecided ? *undecided : holds();
}

// If with a condition computed at run time: each output has the same rank in both branches
// (IIfConditional::addOutput). A constant condition imports only the branch it selects.
RuleCheck check_if_branch_ranks(const Rule&, const Ctx& c) {
  if (input_present(c.node, 0))
    if (const TensorInfo* cond = input_tensor(c, 0); cond && is_constant(*cond)) return holds();
  const Graph* then_g = subgraph(c, "then_branch");
  const Graph* else_g = subgraph(c, "else_branch");
  if (!then_g || !else_g)
    return unknown("the If's branches are not known; release requires each output to have the same rank in both");
  std::optional<RuleCheck> undecided;
  for (size_t k = 0; k < std::min(then_g->outputs.size(), else_g->outputs.size()); ++k) {
    std::string differ;
    RuleOutcome o = compare_shapes(graph_output(*then_g, k), graph_output(*else_g, k), true, differ);
    if (o == RuleOutcome::Fails)
      return fails(fmt::format("output {} of the If has {} in then_branch ('{}') and else_branch ('{}'); release "
                               "requires the same rank in both branches when the condition is not a build-time "
                               "constant", k, differ, then_g->outputs[k], else_g->outputs[k]));
    if (o == RuleOutcome::Unknown && !undecided)
      undecided = unknown(fmt::format("the rank of output {} of the If is not known in both branches ('{}', '{}'); "
                                      "release requires the same rank in both", k, then_g->outputs[k],
                                      else_g->outputs[k]));
  }
  return undecided ? *undecided : holds();
}

// ---------------------------------------------------------------- the vocabulary

using CheckFn = RuleCheck (*)(const Rule&, const Ctx&);
using HintFn = std::string (*)(const Rule&, const Node&);
using DocFn = std::string (*)(const Rule&);

// One rule name: how its arguments look, how it is checked, what a person can do when it
// fails or cannot be decided, and what it says in words (ops, check text, the report page).
struct RuleSpec {
  std::string_view name;
  std::vector<Arg> args;  // in order
  size_t required;        // leading arguments that must be given
  CheckFn check;
  HintFn hint;            // what to do when the rule fails
  HintFn unknown_hint;    // what to do when it cannot be decided
  DocFn doc;              // the rule in words, e.g. "attribute mode is one of nearest, linear"
};

std::string arg_or(const Rule& r, size_t i) { return i < r.args.size() ? r.args[i] : "?"; }

// "input 2 (training_mode)" for "2:training_mode".
std::string input_words(std::string_view arg) {
  if (arg == "*") return "every input";
  Index ix = index_arg(arg);
  return ix.doc.empty() ? fmt::format("input {}", ix.pos) : fmt::format("input {} ({})", ix.pos, ix.doc);
}

std::string hint_const(const Rule& r, const Node& n) {
  return fmt::format("make input {} of {} a constant: fold constants first (e.g. polygraphy surgeon sanitize "
                     "--fold-constants) or export with constant folding", arg_or(r, 0), n.op_type);
}

std::string hint_types(const Rule&, const Node& n) {
  // A Cast does not help Q/DQ: TensorRT quantizes to signed INT8 with a zero point of 0.
  if (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear")
    return "quantize to signed INT8 (or FP8) with a zero point of 0: symmetric quantization is what TensorRT runs";
  return "insert a Cast to one of the accepted element types before this node";
}

// static_shape and static_dim: the same way out.
std::string hint_static(const Rule&, const Node&) {
  return "give the input fixed dimensions (static shapes at export, or trtexec --shapes with min=opt=max)";
}

std::string hint_attr(const Rule& r, const Node&) {
  return fmt::format("set attribute '{}' to {}", arg_or(r, 0), set_words(arg_or(r, 1)));
}

// The ways out of an undecided rule, by what was not known.
std::string unknown_shape(const Rule&, const Node&) {
  return "trtlens could not infer this shape or type: give the input shapes (--shapes NAME:1x3x224x224, as "
         "trtexec takes them), or save the model with ONNX shape inference (onnx.shape_inference.infer_shapes)";
}
std::string unknown_values(const Rule&, const Node&) {
  return "trtlens reads constant values only up to 4096 elements held in the model file: fold constants "
         "(polygraphy surgeon sanitize --fold-constants), or build it to know (trtlens build)";
}
std::string unknown_origin(const Rule&, const Node&) {
  return "the input comes from an enclosing graph or is not described: fold constants (polygraphy surgeon "
         "sanitize --fold-constants) or build it to know (trtlens build)";
}
std::string unknown_attr(const Rule& r, const Node&) {
  return fmt::format("trtlens cannot read attribute '{}' (a graph, or a tensor too large to hold): build it to "
                     "know (trtlens build)", arg_or(r, 0));
}
std::string unknown_opset(const Rule&, const Node&) {
  return "import the default ONNX domain (opset_import with domain \"\") as every exporter does";
}

std::string doc_static_dim(const Rule& r) {
  const std::string spec = arg_or(r, 1);  // owned: arg_or returns a copy
  if (spec.starts_with("attr:")) {
    auto parts = split(std::string_view(spec).substr(5), ':');
    return fmt::format("{} has a static dimension at the axis attribute {} names (default {})", input_words(r.args[0]),
                       parts[0], parts.size() > 1 ? parts[1] : "?");
  }
  return fmt::format("{} has a static dimension at axis {}", input_words(r.args[0]), spec);
}

std::string doc_attr_in(const Rule& r) {
  std::string s = fmt::format("attribute {} is {}", arg_or(r, 0), set_words(arg_or(r, 1)));
  if (r.args.size() > 2) s += fmt::format(" ({} when absent)", std::string_view(r.args[2]).substr(5));
  return s;
}

// One line per rule name (data/trt/README.md describes each).
const std::vector<RuleSpec>& rule_specs() {
  static const std::vector<RuleSpec> specs = {
      {"const_input", {Arg::Index}, 1, check_const_input, hint_const, unknown_origin,
       [](const Rule& r) { return input_words(arg_or(r, 0)) + " is a constant (an initializer or a Constant node)"; }},
      {"weights_input", {Arg::Index}, 1, check_weights_input, hint_const, unknown_origin,
       [](const Rule& r) {
         return input_words(arg_or(r, 0)) + " holds constant weights (or DequantizeLinear of constant weights)";
       }},
      {"nonconst_input", {Arg::Index}, 1, check_nonconst_input,
       [](const Rule&, const Node&) -> std::string { return "feed this input from a runtime tensor instead of a constant"; },
       unknown_origin, [](const Rule& r) { return input_words(arg_or(r, 0)) + " is computed at run time, not a constant"; }},
      {"input_present", {Arg::Index}, 1, check_input_present,
       [](const Rule& r, const Node&) { return fmt::format("provide optional input {} explicitly", arg_or(r, 0)); },
       unknown_shape, [](const Rule& r) { return "optional " + input_words(arg_or(r, 0)) + " is given"; }},
      {"input_absent", {Arg::Index}, 1, check_input_absent,
       [](const Rule& r, const Node&) { return fmt::format("drop optional input {}", arg_or(r, 0)); }, unknown_shape,
       [](const Rule& r) { return "optional " + input_words(arg_or(r, 0)) + " is absent"; }},
      {"value_in", {Arg::Index, Arg::NumSet}, 2, check_value_in,
       [](const Rule& r, const Node&) {
         return fmt::format("change {} so that every value is {}", input_words(arg_or(r, 0)), set_words(arg_or(r, 1)));
       },
       unknown_values,
       [](const Rule& r) {
         return fmt::format("every value of {} is {}", input_words(arg_or(r, 0)), set_words(arg_or(r, 1)));
       }},
      {"input_types", {Arg::IndexOrStar, Arg::TypeSet}, 2, check_input_types, hint_types, unknown_shape,
       [](const Rule& r) {
         return fmt::format("{} is of type {}", input_words(arg_or(r, 0)), set_words(arg_or(r, 1)));
       }},
      {"rank", {Arg::Index, Arg::NumSet}, 2, check_rank,
       [](const Rule&, const Node&) -> std::string {
         return "reshape the input to a supported rank (e.g. Unsqueeze/Reshape around the node)";
       },
       unknown_shape,
       [](const Rule& r) { return fmt::format("{} has rank {}", input_words(arg_or(r, 0)), set_words(arg_or(r, 1))); }},
      {"static_shape", {Arg::Index}, 1, check_static_shape, hint_static, unknown_shape,
       [](const Rule& r) { return input_words(arg_or(r, 0)) + " has a static shape"; }},
      {"static_dim", {Arg::Index, Arg::Axis}, 2, check_static_dim, hint_static, unknown_shape, doc_static_dim},
      {"output_unused", {Arg::Index}, 1, check_output_unused,
       [](const Rule&, const Node&) -> std::string {
         return "remove the consumers of that optional output (or drop it from the node's outputs)";
       },
       unknown_shape,
       [](const Rule& r) { return fmt::format("optional output {} is not produced", input_words(arg_or(r, 0)).substr(6)); }},
      {"attr_in", {Arg::Word, Arg::ValSet, Arg::Default}, 2, check_attr_in, hint_attr, unknown_attr, doc_attr_in},
      {"attr_all", {Arg::Word, Arg::NumSet}, 2, check_attr_all, hint_attr, unknown_attr,
       [](const Rule& r) {
         return fmt::format("every element of attribute {} is {}", arg_or(r, 0), set_words(arg_or(r, 1)));
       }},
      {"attr_absent", {Arg::Word}, 1, check_attr_absent,
       [](const Rule& r, const Node&) { return fmt::format("remove attribute '{}'", arg_or(r, 0)); }, unknown_attr,
       [](const Rule& r) { return fmt::format("attribute {} is not set", arg_or(r, 0)); }},
      {"attr_no_substr", {Arg::Word, Arg::Str}, 2, check_attr_no_substr,
       [](const Rule& r, const Node&) { return fmt::format("rewrite attribute '{}' without '{}'", arg_or(r, 0), arg_or(r, 1)); },
       unknown_attr,
       [](const Rule& r) { return fmt::format("attribute {} does not contain \"{}\"", arg_or(r, 0), arg_or(r, 1)); }},
      {"pads_symmetric", {}, 0, check_pads_symmetric,
       [](const Rule&, const Node&) -> std::string { return "use equal begin and end pads (or an explicit Pad node before it)"; },
       unknown_attr, [](const Rule&) -> std::string { return "begin and end pads are equal"; }},
      {"bidir_same_activations", {}, 0, check_bidir_same_activations,
       [](const Rule&, const Node&) -> std::string { return "use the same activations for both directions"; },
       unknown_attr, [](const Rule&) -> std::string { return "both directions use the same activations"; }},
      {"opset", {Arg::NumSet}, 1, check_opset,
       [](const Rule&, const Node&) -> std::string {
         return "export with an opset the rule accepts (torch.onnx.export opset_version=...)";
       },
       unknown_opset, [](const Rule& r) { return "the model's opset is " + set_words(arg_or(r, 0)); }},
      {"einsum_subscripts", {}, 0, check_einsum_subscripts,
       [](const Rule&, const Node&) -> std::string {
         return "rename the subscripts to lowercase letters a-z (the equation means the same)";
       },
       unknown_attr,
       [](const Rule&) -> std::string {
         return "the equation uses only lowercase letters a-z, ',', '->', '.' and spaces";
       }},
      {"einsum_no_diagonal", {}, 0, check_einsum_no_diagonal,
       [](const Rule&, const Node&) -> std::string {
         return "take the diagonal before the Einsum (e.g. multiply by an identity mask and ReduceSum), or use a "
                "release that supports diagonal Einsum";
       },
       unknown_attr, [](const Rule&) -> std::string { return "no subscript repeats inside one input term (no diagonal)"; }},
      {"same_types", {Arg::Index, Arg::NumSet}, 2, check_same_types,
       [](const Rule& r, const Node&) {
         return fmt::format("give inputs {} the element type of input {} (convert the initializers, or Cast)",
                            arg_or(r, 1), arg_or(r, 0));
       },
       unknown_shape,
       [](const Rule& r) {
         return fmt::format("inputs {} have the element type of {}", set_words(arg_or(r, 1)), input_words(arg_or(r, 0)));
       }},
      {"resize_nd", {Arg::Index}, 1, check_resize_nd,
       [](const Rule&, const Node&) -> std::string {
         return "resize the outer axes in a separate Resize with mode nearest, or move them inward with a Transpose";
       },
       unknown_values,
       [](const Rule& r) {
         return fmt::format("the scales of {} resize only the innermost 3 axes with mode linear, 2 with cubic",
                            input_words(arg_or(r, 0)));
       }},
      {"axis_last", {Arg::Index, Arg::Axis, Arg::NumSet}, 3, check_axis_last,
       [](const Rule& r, const Node&) {
         return fmt::format("move the axis among the last {} with a Transpose before the node (and back after), or "
                            "Reshape to fewer axes", arg_or(r, 2));
       },
       unknown_shape,
       [](const Rule& r) {
         return fmt::format("the axis {} is one of the last {} axes of {}", std::string_view(arg_or(r, 1)).starts_with("attr:") ? "its attribute names" : arg_or(r, 1), arg_or(r, 2),
                            input_words(arg_or(r, 0)));
       }},
      {"loop_scan_trip_limit", {}, 0, check_loop_scan_trip_limit,
       [](const Rule&, const Node&) -> std::string {
         return "export the loop with a finite trip count (a for loop over a known range, or pass M computed in the "
                "graph), or return the values through loop-carried state instead of scan outputs";
       },
       unknown_values,
       [](const Rule&) -> std::string {
         return "a Loop with scan outputs has a trip count M below INT32_MAX (not only a condition)";
       }},
      {"loop_state_shapes", {}, 0, check_loop_state_shapes,
       [](const Rule&, const Node&) -> std::string {
         return "keep each loop-carried state at one shape (pad to the largest size and carry the length in "
                "another state), or unroll the loop";
       },
       unknown_shape,
       [](const Rule&) -> std::string { return "each loop-carried state has the same shape before and after the body"; }},
      {"if_branch_ranks", {}, 0, check_if_branch_ranks,
       [](const Rule&, const Node&) -> std::string {
         return "make both branches return tensors of the same rank (Reshape/Unsqueeze in the smaller one), or make "
                "the condition a constant (fold constants) so that only one branch is imported";
       },
       unknown_shape,
       [](const Rule&) -> std::string {
         return "each output has the same rank in both branches, unless the condition is a constant";
       }},
  };
  return specs;
}

const RuleSpec* find_spec(std::string_view name) {
  for (const RuleSpec& s : rule_specs())
    if (s.name == name) return &s;
  return nullptr;
}

// Splits at '@' outside parentheses.
std::vector<std::string_view> split_guards(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')') --depth;
    else if (s[i] == '@' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

Rule parse_atom(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("rule '{}': {}", text, why));
  };
  Rule r;
  r.text = std::string(text);
  size_t open = text.find('(');
  std::string_view name = text.substr(0, open);
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; }))
    throw bad("not of the form name(arg,...)");
  const RuleSpec* spec = find_spec(name);
  if (!spec) throw bad(fmt::format("unknown rule name '{}'", name));
  r.name = std::string(name);
  if (open != std::string_view::npos) {
    if (text.back() != ')') throw bad("missing ')'");
    std::string_view inner = text.substr(open + 1, text.size() - open - 2);
    if (spec->args.empty()) throw bad(fmt::format("{} takes no arguments", name));
    if (inner.find_first_of("()") != std::string_view::npos) throw bad("nested parentheses");
    for (std::string_view a : split(inner, ',')) r.args.emplace_back(a);
  }
  if (r.args.size() < spec->required || r.args.size() > spec->args.size())
    throw bad(spec->required == spec->args.size()
                  ? fmt::format("{} takes {} argument(s), got {}", name, spec->required, r.args.size())
                  : fmt::format("{} takes {} to {} arguments, got {}", name, spec->required, spec->args.size(), r.args.size()));
  for (size_t i = 0; i < r.args.size(); ++i)
    if (!valid_arg(spec->args[i], r.args[i])) throw bad(fmt::format("argument {} '{}' is malformed", i + 1, r.args[i]));
  return r;
}

RuleCheck check_atom(const Rule& r, const Ctx& c) {
  const RuleSpec* spec = find_spec(r.name);
  if (!spec) throw std::invalid_argument(fmt::format("rule '{}': unknown rule name '{}'", r.text, r.name));
  if (r.args.size() < spec->required || r.args.size() > spec->args.size())
    throw std::invalid_argument(fmt::format("rule '{}': wrong number of arguments", r.text));
  return spec->check(r, c);
}

}  // namespace

Rule parse_rule(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty rule");
  if (text.find_first_of(" \t;") != std::string_view::npos)
    throw std::invalid_argument(fmt::format("rule '{}': spaces and ';' are not allowed inside a rule", text));
  auto parts = split_guards(text);
  Rule r = parse_atom(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) r.guards.push_back(parse_atom(parts[i]));
  r.text = std::string(text);
  return r;
}

const std::vector<std::string>& rule_vocabulary() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const RuleSpec& s : rule_specs()) out.emplace_back(s.name);
    return out;
  }();
  return names;
}

namespace {

// Guards decide whether the rule applies: a failing guard makes it hold. The spec whose
// question was left open is returned through `open` (the rule's, or a guard's).
RuleCheck check_guarded(const Rule& rule, const Ctx& c, const Rule** open) {
  std::optional<RuleCheck> undecided_guard;
  const Rule* guard_open = nullptr;
  for (const Rule& g : rule.guards) {
    RuleCheck gc = check_atom(g, c);
    if (gc.outcome == RuleOutcome::Fails) return holds();
    if (gc.outcome == RuleOutcome::Unknown && !undecided_guard) {
      undecided_guard = gc;
      guard_open = &g;
    }
  }
  RuleCheck main = check_atom(rule, c);
  *open = &rule;
  if (main.outcome == RuleOutcome::Holds || !undecided_guard) return main;
  // The rule would fail (or is undecided) but may not apply.
  if (main.outcome == RuleOutcome::Fails) *open = guard_open;
  return unknown(fmt::format("{}, if it applies ({})", main.message, undecided_guard->message));
}

// Hints a person would write for one op, where the rule's own hint is too general: the first
// entry of the op and fact (a rule name, or "status" for an op the release does not import)
// whose condition holds (rules in the table's grammar, ';' between them; empty = always).
struct OpHint {
  std::string_view op, fact, when, hint;
};
constexpr std::string_view kDynamicQuantHint =
    "this is ONNX Runtime dynamic quantization, which TensorRT does not run: re-quantize with Q/DQ (static "
    "quantization, e.g. TensorRT Model Optimizer) or ship the float model";
constexpr OpHint kOpHints[] = {
    {"Dropout", "value_in", "input_present(1);const_input(1);value_in(1:ratio,0)",
     "ratio is 0, the node is an identity: export with model.eval() or fold it (polygraphy surgeon sanitize "
     "--fold-constants, onnxsim)"},
    {"Dropout", "value_in", "",
     "training_mode is on: export with model.eval(), or remove the Dropout (at inference it is an identity)"},
    {"Dropout", "const_input", "",
     "training_mode is computed at run time: export with model.eval(), or remove the Dropout (at inference it is an "
     "identity)"},
    {"ConvInteger", "status", "", kDynamicQuantHint},
    {"MatMulInteger", "status", "", kDynamicQuantHint},
    {"DynamicQuantizeLinear", "status", "", kDynamicQuantHint},
};

// The conditions of kOpHints, parsed once (entries without one hold an empty list).
const std::vector<std::vector<Rule>>& op_hint_conditions() {
  static const std::vector<std::vector<Rule>> parsed = [] {
    std::vector<std::vector<Rule>> out;
    for (const OpHint& h : kOpHints) {
      out.emplace_back();
      if (!h.when.empty())
        for (std::string_view part : split(h.when, ';')) out.back().push_back(parse_rule(part));
    }
    return out;
  }();
  return parsed;
}

// The op's own hint for `fact`, when its condition holds on the node (`c` null: no condition may be checked).
const OpHint* find_op_hint(std::string_view op, std::string_view fact, const Ctx* c) {
  const auto& conditions = op_hint_conditions();
  for (size_t i = 0; i < std::size(kOpHints); ++i) {
    const OpHint& h = kOpHints[i];
    if (h.op != op || h.fact != fact) continue;
    if (!conditions[i].empty() && !c) continue;
    bool applies = std::all_of(conditions[i].begin(), conditions[i].end(), [&](const Rule& r) {
      const Rule* open = nullptr;
      return check_guarded(r, *c, &open).outcome == RuleOutcome::Holds;
    });
    if (applies) return &h;
  }
  return nullptr;
}

}  // namespace

RuleCheck check_rule(const Rule& rule, const Model& model, const Graph& graph, const Node& node) {
  Ctx c{model, graph, node};
  const Rule* open = nullptr;
  RuleCheck out = check_guarded(rule, c, &open);
  if (out.outcome == RuleOutcome::Holds) return out;
  if (out.outcome == RuleOutcome::Fails) {
    const OpHint* own = node.domain.empty() ? find_op_hint(node.op_type, rule.name, &c) : nullptr;
    out.hint = own ? std::string(own->hint) : find_spec(rule.name)->hint(rule, node);
  } else if (open) {
    out.hint = find_spec(open->name)->unknown_hint(*open, node);
  }
  return out;
}

std::string op_hint(std::string_view op_type, std::string_view fact) {
  const OpHint* h = find_op_hint(op_type, fact, nullptr);
  return h ? std::string(h->hint) : std::string();
}

std::string describe_rule(const Rule& rule) {
  auto words = [](const Rule& r) {
    const RuleSpec* spec = find_spec(r.name);
    return spec ? spec->doc(r) : r.text;
  };
  std::string out = words(rule);
  for (size_t i = 0; i < rule.guards.size(); ++i) out += (i ? " and " : ", when ") + words(rule.guards[i]);
  return out;
}

std::string describe_rule_text(std::string_view text) {
  try {
    return describe_rule(parse_rule(text));
  } catch (const std::invalid_argument&) {
    return std::string(text);  // a fact name ("status", "int64"), not a rule
  }
}

}  // namespace trtlens
