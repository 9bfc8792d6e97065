// The comparison of two versions of a model (`trtlens serve`'s compare view):
// JSON for the API (schema_version 1), an HTML fragment for the page.
#pragma once
#include <string>

#include "trtlens/compat.h"

namespace trtlens {

inline constexpr int kModelDiffSchemaVersion = 1;

struct ModelDiffView {
  const ModelDiff* diff = nullptr;
  std::string before_label, after_label;  // e.g. "version 2"
  std::string runtime;                    // e.g. "10.16 fp16"
  bool converts_before = false, converts_after = false;
};

// {"schema_version":1,"runtime":..,"before":{"label","converts"},"after":{..},
//  "kept":N,"added":[{"graph","node","op_type","verdict"}],"removed":[..],
//  "changed":[{"graph","node","op_type","before","after","reason"}]}.
// Strings from the model are kept as written, invalid UTF-8 replaced.
std::string model_diff_json(const ModelDiffView& v);
// A <section> with the counts and three tables; every model string escaped.
std::string model_diff_html(const ModelDiffView& v);

}  // namespace trtlens
