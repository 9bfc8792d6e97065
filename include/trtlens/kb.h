// The knowledge base: which ONNX ops the TensorRT ONNX parser imports, per
// TensorRT release, with which element types and under which rules.
// Facts come from three sources, the first winning where they disagree: the
// importer code of each release's ONNX-TensorRT branch (data/importer, 7.0-10.1,
// carried forward to 10.2-11.1), our release policies (data/policies.tsv), and
// the ONNX-TensorRT support matrix of each release (tables for 5.1-10.1,
// changelog-derived rows for 10.2-11.1). tools/convert_kb.py merges them into
// data/trt/<release>.tsv, compiled into the binary.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "trtlens/model.h"

namespace trtlens {

// Support status of an op in one release's table.
enum class OpStatus { Y, N, EXPERIMENTAL, PLUGIN };
std::string_view op_status_name(OpStatus s);  // "Y", "N", "EXPERIMENTAL", "PLUGIN"

// One structured restriction, e.g. "rank(0,3..5)" or
// "attr_in(mode,nearest|linear,dflt=nearest)@opset(>=11)". The vocabulary is in
// data/trt/README.md; every name there has a check function in src/kb/rules.cpp.
struct Rule {
  std::string text;               // as written in the table, guards included
  std::string name;               // e.g. "rank"
  std::vector<std::string> args;  // e.g. {"0", "3..5"}
  std::vector<Rule> guards;       // the rule applies only when every guard holds
  std::string where;              // importer line it was read from ("builtin_op_importers.cpp:1216"), or ""
};

// One type check of a release's importer: the element types it lets through
// for an input. From data/importer (the ONNX-TensorRT importer code).
struct ImportTypeCheck {
  int input = -1;                  // 0-based input; -1 = every input
  std::vector<std::string> types;  // accepted type names ("FP32" ...)
  std::string where;               // "onnx2trt_utils.cpp:1814", may be empty
};

// An input or attribute whose value changes the result but that the release's
// importer never reads (data/semantic_args.tsv against data/importer).
struct IgnoredArg {
  std::string text;       // as written: "attr:reduction=none", "input:1@opset(>=18)"
  bool is_attribute = false;
  std::string attribute;  // the attribute name (is_attribute)
  int input = -1;         // the input position (!is_attribute)
  std::string harmless;   // a value that is harmless to ignore; empty: only absence is
  std::vector<Rule> guards;  // applies only when every guard holds
};

struct OpEntry {
  std::string op;                  // ONNX op_type
  OpStatus status = OpStatus::N;
  std::vector<std::string> types;  // normalized type names ("FP32" ...); empty = not stated
  std::vector<Rule> rules;         // all must hold for the node to import
  std::string note;                // remark the rules cannot express; may be empty
  std::string plugin;              // plugin the importer uses (and when); may be empty
  // "yes", "no", "rejected" or "n/a" for an op of the table; "plugin" for a plugin that
  // libnvinfer_plugin of the release registers (status PLUGIN, reached through the importer's
  // fallback plugin path); "user" for a plugin the user declared (KnowledgeBase::with_plugins).
  std::string importer;
  std::string basis;               // "table" or "derived"
  std::string rules_src;           // "table", "source", "changelog", combinations, or ""
  // Importer facts; import_src empty = none for this op (the table's types rule).
  std::string import_src;                   // "8.6-GA builtin_op_importers.cpp:618"
  std::vector<ImportTypeCheck> import_types;  // empty with import_src set: no type check
  std::vector<IgnoredArg> ignored;
  bool has_type(std::string_view t) const;
};

// What the importer does with an op_type it has no built-in importer for.
enum class PluginFallback {
  None,            // import fails
  Registry,        // looked up in the plugin registry by op_type, attributes plugin_version
                   // (default "1") and plugin_namespace (default "")
  RegistryDomain,  // the same, and a node's non-empty domain names the plugin namespace
};

// Release-wide behaviour (data/policies.tsv, or the release's importer facts).
struct ReleasePolicy {
  bool int64_native = false;      // INT64 tensors exist; else narrowed to INT32 on import
  bool uint8_boundary = false;    // a node may not produce a UINT8 tensor that is not a graph output
  bool implicit_int8 = true;      // the INT8 builder flag quantizes; false: INT8 only through Q/DQ
  bool implicit_int8_removed = false;  // "removed" (11.0): no calibrator API at all, not only deprecated
  bool strongly_typed = false;    // no precision builder flags: tensors run at the model's types
  bool function_plugin = false;   // a registered plugin wins over a local function of its name
  PluginFallback plugin_fallback = PluginFallback::None;
  bool parser_loads_plugins = true;  // the parser registers libnvinfer_plugin itself; else the application must
  // An INT64 constant outside INT32 read only as Slice starts/ends is clamped on import without changing
  // the slice (the importer clamps to INT32, then to the dimensions): not a narrowing that matters.
  bool int64_index_clamp = false;
  // Where each fact comes from, by key ("int64", ...): "importer 9.0-GA onnx2trt_utils.cpp:353".
  std::map<std::string, std::string, std::less<>> sources;
  std::string source(std::string_view key) const;  // "" when not stated
};

struct Release {
  std::string name;    // "8.6", "10.13", "11.1"
  int major = 0, minor = 0;
  std::string source;  // the table or changelog heading the facts come from
  std::string date;    // YYYY-MM-DD
  int opset_min = 0;   // 0 = not stated
  int opset_max = 0;   // highest stated opset (a lower bound when opset_max_is_bound)
  bool opset_max_is_bound = false;
  std::vector<std::string> types;          // element types the release names
  std::vector<std::string> types_limited;  // narrowed, I/O-only or quantization-only types
  std::string basis;   // "table" or "derived"
  std::string carried_from;  // derived releases: the last table release they start from ("10.1")
  std::string notes;
  // The importer the facts come from: "8.6-GA 0a1b2c3d4e5f", with "(... carried forward)"
  // for releases after the last importer branch; empty = none (5.1, 6.0).
  std::string importer;
  std::vector<std::string> types_importer;  // types the importer can represent; empty = not known
  std::vector<std::string> types_weights;   // types its weight loader accepts (initializers, Constant); empty = not known
  ReleasePolicy policy;
  std::map<std::string, OpEntry, std::less<>> ops;
  const OpEntry* find(std::string_view op_type) const;  // nullptr when not in the table
  // "ONNX-TensorRT support matrix, release 8.6" (table rows) or
  // "TensorRT 10.4 changelog (10.1 table carried forward)" (derived rows).
  std::string citation() const;
  // The bundled plugins of the release (rows with importer "plugin"), sorted by name.
  std::vector<const OpEntry*> bundled_plugins() const;
  // "importer 8.6-GA FILE:LINE" for an importer line; "TensorRT release/X.Y:include/NvInfer.h:LINE" for a layer contract.
  std::string importer_citation(std::string_view where) const;
};

class KnowledgeBase {
 public:
  // The knowledge base compiled into the binary. Parsed once, on first use.
  // Throws std::runtime_error if the embedded data is malformed (a build bug).
  static const KnowledgeBase& builtin();
  // Parses release files (contents of data/trt/<release>.tsv). Throws
  // InputError(name, problem) on a malformed file.
  static KnowledgeBase parse(const std::vector<std::pair<std::string, std::string>>& files);
  // The same, over (name, contents) views that outlive the call.
  static KnowledgeBase parse_views(const std::vector<std::pair<std::string_view, std::string_view>>& files);

  const std::vector<Release>& releases() const { return releases_; }  // oldest first
  // Maps "8.6", "8.6.1" or "8.6.1.6" to its table. Throws UsageError
  // ("unknown TensorRT release 8.7; known: 5.1, 6.0, ...") otherwise.
  const Release& resolve(std::string_view text) const;
  // The first release (oldest first) after `after` (or from the first, when
  // null) whose table marks op_type Y, PLUGIN or EXPERIMENTAL; nullptr if none.
  const Release* first_supporting(std::string_view op_type, const Release* after = nullptr) const;
  // The newest release before `before` whose table marks op_type Y, PLUGIN or
  // EXPERIMENTAL; nullptr if none.
  const Release* last_supporting_before(std::string_view op_type, const Release& before) const;

  // A copy in which every release whose importer has a fallback plugin path also
  // imports the user's own plugins: one row per name (status PLUGIN, importer "user",
  // a plugin_version rule when versions are given). A name that is a built-in op of a
  // release keeps its built-in row there (the importer's built-in importer wins).
  // Throws UsageError for an empty name or version.
  struct DeclaredPlugin {
    std::string name;                   // the creator's registered name (= the node's op_type)
    std::vector<std::string> versions;  // creator versions; empty = any
  };
  KnowledgeBase with_plugins(const std::vector<DeclaredPlugin>& plugins) const;

  // Identifies the facts judged with (64 lowercase hex digits): the SHA-256 of the
  // manifest "SHA256  NAME\n" of the files in name order (fingerprint_of). For the
  // built-in knowledge base those are the release tables and the target facts, every
  // .tsv under data/trt and data/targets, so it is what
  //   find data/trt data/targets -name '*.tsv' | LC_ALL=C sort | xargs sha256sum | sha256sum
  // prints in the source tree; for parse()/parse_views(), the files given. With declared
  // plugins, the SHA-256 of that and each plugin's NAME:VERSIONS. Every JSON output
  // carries it (docs/check-json.md).
  const std::string& fingerprint() const { return fingerprint_; }
  // The manifest digest of (path, contents) pairs: SHA-256 of "SHA256(contents)  path\n"
  // per file, sorted by path (byte order). Never throws.
  static std::string fingerprint_of(const std::vector<std::pair<std::string_view, std::string_view>>& files);
  // Whether an embedded file enters the built-in fingerprint: a .tsv under data/trt/ or data/targets/.
  static bool fingerprinted(std::string_view path);

 private:
  static KnowledgeBase parse_tables(const std::vector<std::pair<std::string_view, std::string_view>>& files);
  std::vector<Release> releases_;
  std::string fingerprint_;
};

// This build of trtlens: the CMake project version ("0.1.0"). Every JSON output
// carries it beside the knowledge-base fingerprint.
std::string_view trtlens_version();

// Outcome of checking one rule on one node.
enum class RuleOutcome { Holds, Fails, Unknown };

struct RuleCheck {
  RuleOutcome outcome = RuleOutcome::Holds;
  std::string message;  // why it fails or cannot be decided; empty when it holds
  // What a person can do (one sentence): the op's own hint where one is written for this rule
  // (Dropout with ratio 0, ...), else the rule's; for Unknown, how to let trtlens decide. Empty when it holds.
  std::string hint;
};

// Checks `rule` (guards included: a rule whose guard fails Holds) on `node` of
// `graph` in `model`. Unknown when the rule depends on facts that are not
// known statically (a rank or value that inference could not determine).
// A guard that fails makes the rule hold (it does not apply); a guard that is
// Unknown makes a failing or undecided rule Unknown. "Constant" means an
// initializer or a Constant node's output (TensorOrigin), as the parser sees
// it; constant-foldable inputs fail with a hint to fold constants first.
// The message is one sentence naming the input or attribute and its value,
// e.g. "input 0 (X) has rank 6; release requires 3..5".
// Throws std::invalid_argument for a rule name outside the vocabulary.
RuleCheck check_rule(const Rule& rule, const Model& model, const Graph& graph, const Node& node);

// Parses one rule text ("rank(0,3..5)@opset(>=11)"), checking the name and
// the form of every argument. Throws std::invalid_argument naming the rule.
Rule parse_rule(std::string_view text);

// What a person can do about `op_type` for a fact that is not a rule ("status": the release does not
// import the op, e.g. ONNX Runtime's ConvInteger); empty when trtlens has no hint of its own for it.
std::string op_hint(std::string_view op_type, std::string_view fact);

// The rule in words, guards included: "attribute mode is one of nearest, linear (nearest when absent),
// when the model's opset is at least 11". For people (text, markdown, the report page); JSON keeps Rule::text.
std::string describe_rule(const Rule& rule);
// The same from a rule's text; a text that is not a rule (a fact name such as "status") comes back as is.
std::string describe_rule_text(std::string_view text);

// The rule vocabulary: every rule name check_rule understands.
const std::vector<std::string>& rule_vocabulary();

}  // namespace trtlens
