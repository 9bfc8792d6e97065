// Output of `trtlens check` and `trtlens matrix`: text for people, json for
// programs (schema in docs/check-json.md), markdown for pull-request comments.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "trtlens/compat.h"

namespace trtlens {

inline constexpr int kCheckSchemaVersion = 1;

struct CheckView {
  bool color = false;                  // ANSI colour in text
  std::vector<Verdict> only;           // text/markdown: list only these verdicts (empty = all)
};

// Every node with verdict, precision, reasons and hints, then the summary.
std::string check_text(const Model& m, const Annotations& a, const CheckView& view);
// The public JSON document (schema_version 1), pretty-printed.
std::string check_json(const Model& m, const Annotations& a);
// The same document handed to `write` piece by piece (one node per call), never held whole.
void check_json(const Model& m, const Annotations& a, const std::function<void(std::string_view)>& write);
// Summary, then the nodes that are not SUPPORTED (all nodes in a details block).
std::string check_markdown(const Model& m, const Annotations& a, const CheckView& view);

// `matrix`: releases × precisions with verdict counts and converts yes/no.
std::string matrix_text(const Model& m, const Matrix& mx, bool color);
std::string matrix_json(const Model& m, const Matrix& mx);
std::string matrix_markdown(const Model& m, const Matrix& mx);

// `matrix --diff A B`: the nodes whose verdict changes.
std::string diff_text(const Model& m, const Annotations& a, const Annotations& b, bool color);
std::string diff_json(const Model& m, const Annotations& a, const Annotations& b);
std::string diff_markdown(const Model& m, const Annotations& a, const Annotations& b);

// Text for a markdown table cell: markdown's special characters escaped, control characters as \xNN.
std::string md_escape(std::string s);

// "Loop_3/body/5" style id of a node: graph path, '/', index (as `data-node` in reports).
std::string node_id(const Model& m, int graph, int index);

}  // namespace trtlens
