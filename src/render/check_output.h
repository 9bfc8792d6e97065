// Output of `trtlens check` and `trtlens matrix`: text for people, json for
// programs (schema in docs/check-json.md, docs/schemas/), markdown for pull-request
// comments, SARIF for code scanning and JUnit XML for CI test reports.
#pragma once
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "render/escape.h"  // md_escape, xml_escape: every writer of those formats
#include "trtlens/compat.h"

namespace trtlens {

inline constexpr int kCheckSchemaVersion = 1;

// CI gates on a DLA target's placement (check --fail-on gpu_fallback, --min-dla-share, --max-dla-loadables).
struct DlaGates {
  bool gpu_fallback = false;     // fail when a node falls back from the DLA to the GPU
  double min_share = -1;         // fail when fewer than this % of the placed nodes run on the DLA; < 0: off
  int max_loadables = -1;        // fail when the placement needs more DLA loadables than this; < 0: off
  bool any() const { return gpu_fallback || min_share >= 0 || max_loadables >= 0; }
};

struct CheckView {
  bool color = false;                  // ANSI colour in text
  std::vector<Verdict> only;           // text/markdown: list only these verdicts (empty = all)
  // junit: a test case fails when a node has one of these verdicts (--fail-on).
  std::vector<Verdict> fail_on = {Verdict::UNSUPPORTED};
};

// Markdown is meant for a pull-request comment: GitHub refuses comments over
// 65,536 characters; check_markdown stays under this many bytes.
inline constexpr size_t kMarkdownMaxBytes = 60000;
// Rows that share verdict, reason kinds and hints are one row in text and
// markdown when there are more of them than this.
inline constexpr size_t kGroupAfter = 3;
// Text and markdown list SUPPORTED nodes row by row only for models of at most this many
// nodes (or with --only); above it the summary counts them.
inline constexpr size_t kSupportedRowsUpTo = 500;

// Every node with verdict, precision, reasons and hints (rows sharing them grouped), then the summary.
std::string check_text(const Model& m, const Annotations& a, const CheckView& view);
// The public JSON document (schema_version 1, docs/check-json.md), pretty-printed.
// `kb` is the knowledge base `a` was judged with: its fingerprint is recorded.
std::string check_json(const Model& m, const Annotations& a, const KnowledgeBase& kb);
// The same document handed to `write` piece by piece (one node per call), never held whole.
void check_json(const Model& m, const Annotations& a, const KnowledgeBase& kb,
                const std::function<void(std::string_view)>& write);
// For a pull-request comment: the summary, the UNSUPPORTED and UNKNOWN rows, the
// FALLBACK and IMPLICIT_CAST rows in a <details> block, then (models of at most 500
// nodes, or with view.only) the SUPPORTED rows in another; at most kMarkdownMaxBytes,
// then "N more rows in the JSON".
std::string check_markdown(const Model& m, const Annotations& a, const CheckView& view);
// SARIF 2.1.0 for GitHub code scanning (docs/check-json.md): one result per node
// that is not SUPPORTED (at most 25,000, GitHub's limit per run, the most severe
// kept), rule ids per reason kind, the model file as the location. Streamed to `write`.
void check_sarif(const Model& m, const Annotations& a, const KnowledgeBase& kb,
                 const std::function<void(std::string_view)>& write);
// JUnit XML: one test suite with one test case for the runtime, failed when a node
// has a verdict of view.fail_on or a DLA gate of `gates` fails; the failure lists those nodes and names the gates.
std::string check_junit(const Model& m, const Annotations& a, const CheckView& view, const DlaGates& gates = {});

// One <testcase> of JUnit XML for one runtime (check_junit, matrix --format junit);
// `failed` tells whether it failed; `command` names its class ("trtlens.check").
// Lists at most kJunitMaxNodes nodes. With a target the name ends "on <target>"; on a DLA
// target a failing node that falls back to the GPU says why, <system-out> carries
// the placement's summary line, and a failed gate of `dla_gates` fails the case, named in its message.
inline constexpr size_t kJunitMaxNodes = 200;
std::string junit_testcase(const Model& m, const Annotations& a, const CheckView& view, std::string_view command,
                           bool& failed, const DlaGates& dla_gates = {});
// The JUnit document around `testcases` (junit_testcase), as one suite named `suite`.
std::string junit_document(const std::string& suite, const Model& m, const std::vector<std::string>& testcases,
                           size_t failures);

// True when a node of `a` has one of `verdicts` (--fail-on).
bool has_verdict(const Annotations& a, const std::vector<Verdict>& verdicts);
// The DLA gates `a` (placed on a DLA core: a.dla) fails, one sentence each naming the option ("--fail-on
// gpu_fallback: 11 nodes fall back from the DLA to the GPU"); empty when none fails or nothing was placed.
std::vector<std::string> failed_dla_gates(const Annotations& a, const DlaGates& gates);

// `matrix`: releases × precisions with verdict counts and converts yes/no.
std::string matrix_text(const Model& m, const Matrix& mx, bool color);
std::string matrix_json(const Model& m, const Matrix& mx, const KnowledgeBase& kb);
std::string matrix_markdown(const Model& m, const Matrix& mx);

// `matrix --diff A B`: the nodes whose verdict changes.
std::string diff_text(const Model& m, const Annotations& a, const Annotations& b, bool color);
std::string diff_json(const Model& m, const Annotations& a, const Annotations& b, const KnowledgeBase& kb);
std::string diff_markdown(const Model& m, const Annotations& a, const Annotations& b);

// Appends `s` as a JSON string literal, the bytes nlohmann-json's dump writes (invalid
// UTF-8 replaced by U+FFFD): for documents streamed without a DOM.
void append_json_string(std::string& out, std::string_view s);
// The input shapes an analysis assumed (--shapes, --minShapes/--optShapes/--maxShapes): one
// {"name", "min", "opt", "max"} object per input, dimensions as integers; [] when none were given.
nlohmann::json input_shapes_json(const Model& m);

// "Loop_3/body/5" style id of a node: graph path, '/', index (as `data-node` in reports).
std::string node_id(const Model& m, int graph, int index);

}  // namespace trtlens
